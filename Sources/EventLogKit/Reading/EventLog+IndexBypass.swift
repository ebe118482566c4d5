import LMDB

/// Reading a stream past damage to its index. The entries are the record; the stream index only finds them
/// faster. When the index is damaged (``EventLogError/corruptIndex(streamID:block:reason:)``), a read of the
/// stream picks its entries out of the whole log instead: the same answer, slower. ``EntryIterator`` does so for
/// the entries themselves, and the reads below for what they take from the index: ``sequences(stream:kinds:from:through:)``,
/// ``lastSequence(stream:kinds:atOrBefore:after:)``, ``firstOfLatest(_:stream:atOrBefore:)`` and
/// ``statistics(stream:)``. Call sites are kept in the index alone: ``callSites(stream:from:through:)`` still throws.
extension EventLog {
    /// Damage found in stream indexes that reads of this log in this process went around, reading the stream's
    /// entries from the whole log instead: the first found in each stream's index, in order of stream id. Every
    /// answer was complete; what it costs is time. ``verify(progress:)`` reports all of the damage.
    public var bypassedIndexDamage: [EventLogError] {
        storage.bypassedIndexDamage
    }

    /// `indexed()`, or, when it meets damage to stream `info`'s index, `scanned` with an iterator over the stream's
    /// entries from `from` through `through` (of `kinds`) that reads the whole log; the damage is kept
    /// (``bypassedIndexDamage``).
    func bypassingDamage<Result>(
        toIndexOf info: StreamInfo, kinds: Set<EntryKind>? = nil, from: UInt64, through: UInt64,
        _ indexed: () throws(EventLogError) -> Result, scanned: (inout EntryIterator) throws(EventLogError) -> Result
    ) throws(EventLogError) -> Result {
        do {
            return try indexed()
        } catch {
            guard case .corruptIndex(info.id, _, _) = error else { throw error }
            storage.noteBypassed(error)
            var iterator = EntryIterator(
                storage: storage, query: EntryQuery(from: from, through: through, stream: info.name, kinds: kinds), bypassingIndex: true)
            return try scanned(&iterator)
        }
    }
}

import LMDB

extension EventLog {
    /// Removes entries and snapshots before `sequence`, keeping in each stream the latest snapshot before
    /// it and every entry after that snapshot, so that every remaining entry can still be replayed. A
    /// stream with no snapshot before `sequence` is kept whole. The highest sequence number, of the log
    /// and of each stream, never goes down. Removed space is reused by later writes; ``copy(to:compact:claimed:)``
    /// makes a smaller file.
    @discardableResult
    public func trim(before sequence: UInt64) throws(EventLogError) -> TrimReport {
        // What is queued (snapshots among it) counts: commit it first.
        try requireWriter().flush()
        return try storage.write { txn in try removeOldest(before: sequence, streams: streams(), in: txn) }
    }

    /// ``trim(before:)`` of `streams` (every stream of the log) inside `txn`: what retention does between commits,
    /// in the writer's own transaction.
    func removeOldest(before sequence: UInt64, streams: [StreamInfo], in txn: Transaction) throws -> TrimReport {
        let highest = try highestSequence()
        try storage.putMetadata(txn, [LogLayout.MetaKey.sequenceFloor: String(highest)])
        var results: [TrimReport.StreamResult] = []
        var removedEntries = 0
        var removedSnapshots = 0
        for info in streams {
            guard sequence > 1, let base = try storage.latestSnapshotSequence(txn, stream: info.id, atOrBefore: sequence - 1) else {
                results.append(.init(stream: info.name, replaysFrom: nil, removedEntries: 0))
                continue
            }
            let streamHighest = try highestSequence(stream: info.name)
            let removed = try storage.deleteEntries(txn, stream: info.id, from: 0, through: base)
            removedSnapshots += try storage.deleteSnapshots(txn, stream: info.id, from: 0, before: base)
            try storage.deleteGaps(txn, stream: info.id, endingIn: 0...base)
            var updated = info
            updated.sequenceFloor = max(info.sequenceFloor, streamHighest)
            try txn.put(storage.streams, key: KeyCoding.stream(info.id), value: StreamRecord.encode(updated))
            storage.cache(updated)
            removedEntries += removed
            results.append(.init(stream: info.name, replaysFrom: base, removedEntries: removed))
        }
        return TrimReport(before: sequence, removedEntries: removedEntries, removedSnapshots: removedSnapshots, streams: results)
    }
}

/// The checks that keep a damaged stream index from being read as other entries. A block of the index seals its
/// items but not its key, so a key moved to another number (the keys still in order) moves the block's items onto
/// other entries and hides the entries between; `StreamIndex.forEach` checks blocks against their neighbours, and
/// readers check what the index says against the entries themselves here.
extension EntryCursor {
    /// The entry `item` of stream `id`'s index names, which must be of that stream and of the kind it says.
    mutating func listed(_ item: StreamIndex.Item, stream id: UInt32, named name: String?) throws -> Found {
        guard let entry = try entry(item.sequence) else {
            throw EventLogError.corruptEntry(sequence: item.sequence, reason: "stream '\(name ?? "id \(id)")' lists it, but the entry is missing")
        }
        guard entry.header.streamID == id, entry.header.kind.rawValue == item.kind else {
            throw EventLogError.corruptIndex(
                streamID: id, block: nil,
                reason: "it lists #\(item.sequence) as one of its \(EntryKind(rawValue: item.kind)?.description ?? "unknown") entries, but it is not")
        }
        return entry
    }

    /// Entry `sequence`, the first of a block of stream `id`'s index, must be of that stream. An entry that cannot be
    /// read (a damaged block of entries) cannot be checked, and passes: the index is sound as far as it can tell, and
    /// the damage is the reader's of that entry to report, so it does not stop walks that read no entries.
    mutating func requireEntry(ofStream id: UInt32, at sequence: UInt64) throws {
        let found: Found?
        do {
            found = try entry(sequence)
        } catch EventLogError.corruptEntry {
            return
        }
        guard let entry = found, entry.header.streamID == id else {
            throw EventLogError.corruptIndex(
                streamID: id, block: sequence, reason: "the block's key, #\(sequence), is not one of the stream's entries")
        }
    }

    /// Where stream `id`'s index lists none of its entries, the entries at both ends of `range` must be other
    /// streams': a key moved up hides the entries just before its block (the end of the stretch before it), a key
    /// moved down those just after the block (the start of the stretch after it). The first and the last 64 numbers
    /// of the stretch are read; the check ends, passing, at an entry that cannot be read (as in
    /// ``requireEntry(ofStream:at:)``).
    mutating func requireUnlisted(stream id: UInt32, in range: ClosedRange<UInt64>) throws {
        // Counted from the bounds inward, which cannot overflow: a stretch may end at the largest number.
        guard range.upperBound - range.lowerBound > 127 else { return try requireNone(of: id, in: range) }
        try requireNone(of: id, in: range.lowerBound...range.lowerBound + 63)
        try requireNone(of: id, in: range.upperBound - 63...range.upperBound)
    }

    /// No entry in `range` may be of stream `id`; an entry that cannot be read ends the check, passing.
    private mutating func requireNone(of id: UInt32, in range: ClosedRange<UInt64>) throws {
        do {
            var entry = try seek(atOrAfter: range.lowerBound)
            while let current = entry, current.sequence <= range.upperBound {
                guard current.header.streamID != id else {
                    throw EventLogError.corruptIndex(
                        streamID: id, block: nil, reason: "it does not list #\(current.sequence), one of the stream's entries")
                }
                entry = try next()
            }
        } catch EventLogError.corruptEntry {
            return
        }
    }
}

import LMDB

/// Removing stretches of a stream inside one write transaction: what `trim`, `removeEntries` and retention share.
extension LogStorage {
    /// The sequence number of stream `id`'s latest snapshot at or before `sequence`, without decoding it.
    func latestSnapshotSequence(_ txn: Transaction, stream id: UInt32, atOrBefore sequence: UInt64) throws -> UInt64? {
        try txn.withCursor(snapshots) { cursor in
            var keys = StreamKeyCursor(cursor, stream: id, .records("snapshot"))
            do {
                return try keys.seek(atOrBefore: sequence)?.sequence
            } catch EventLogError.corruptKeys {
                // A key that does not read (verify names it) does not stop a trim: the snapshots' keys in page order,
                // one of the wrong length where its record places it, as readers take it.
                return try keys.scan(atOrBefore: sequence, placing: SnapshotRecord.recordedPosition).found.first?.sequence
            }
        }
    }

    /// Deletes stream `id`'s entries numbered `first` through `last`, and their items in the stream index; returns how many.
    func deleteEntries(_ txn: Transaction, stream id: UInt32, from first: UInt64, through last: UInt64) throws -> Int {
        var removed: [UInt64] = []
        let count = try index.remove(txn, stream: id, from: first, through: last) { removed.append($0) }
        try removeEntries(txn, removed)
        return count
    }

    /// Deletes stream `id`'s snapshots numbered from `first` up to (not including) `end`; returns how many.
    func deleteSnapshots(_ txn: Transaction, stream id: UInt32, from first: UInt64, before end: UInt64) throws -> Int {
        guard end > first else { return 0 }
        return try deleteKeys(txn, snapshots, "snapshot", stream: id, in: first...end - 1, placing: SnapshotRecord.recordedPosition)
    }

    /// Deletes stream `id`'s gap records whose snapshot is numbered in `range`: the stretch before them is gone, or
    /// a new gap takes them in. A record under a key that does not read goes where its bytes say it belongs.
    func deleteGaps(_ txn: Transaction, stream id: UInt32, endingIn range: ClosedRange<UInt64>) throws {
        guard let gaps else { return }
        _ = try deleteKeys(txn, gaps, "gap", stream: id, in: range, placing: GapRecord.key(of:))
    }

    /// Stream `id`'s gaps, as this transaction sees them, in order; a damaged record stands for the gap
    /// ``gap(_:stream:at:record:after:)`` reads from it.
    func gapRanges(_ txn: Transaction, stream id: UInt32) throws -> [ClosedRange<UInt64>] {
        var previousEnd: UInt64 = 0
        return try streamRecords(txn, gaps, stream: id, what: "gap", placing: GapRecord.key(of:)) { resumesAt, record in
            let gap = try gap(txn, stream: id, at: resumesAt, record: record, after: previousEnd)
            previousEnd = gap?.removed.upperBound ?? previousEnd
            return gap?.removed
        }
    }

    /// The gap the record stored under (`id`, `resumesAt`) in `gaps` stands for, and whether the record is damaged:
    /// - intact, the gap it holds;
    /// - under a key a bad bit changed, the gap its record holds, or `nil` when that is another stream's;
    /// - itself damaged, the gap from just after the stream's last entry before `resumesAt` (and after `previousEnd`,
    ///   where the stream's gap before it ends) up to `resumesAt`, where its key says the stream's snapshot is.
    ///   That holds the gap written, and every number it adds holds none of the stream's entries, so time travel
    ///   treats the two alike.
    func gap(_ txn: Transaction, stream id: UInt32, at resumesAt: UInt64, record: UnsafeRawBufferPointer, after previousEnd: UInt64) throws
        -> (removed: ClosedRange<UInt64>, isDamaged: Bool)? {
        let key = KeyCoding.streamSequence(id, resumesAt)
        if let gap = key.withUnsafeBytes({ GapRecord.decode(key: $0, record: record) }) { return (gap.removed, false) }
        if let gap = GapRecord.decode(record) { return gap.stream == id ? (gap.removed, true) : nil }
        let lastBefore = resumesAt > 1 ? try index.last(txn, stream: id, atOrBefore: resumesAt - 1)?.sequence ?? 0 : 0
        // (Compared, not added to: a hostile record may end the gap before it at the last number there is.)
        let before = max(lastBefore, previousEnd)
        return ((before < resumesAt ? before + 1 : resumesAt)...resumesAt, true)
    }

    /// Deletes the (stream, sequence) keys of `database`, which holds `what` records, for stream `id` numbered in
    /// `range`; returns how many. When the keys are damaged (``StreamKeyCursor``'s checks), the rest are found by
    /// walking the whole database, each record placed as a reader places it (``LogStorage/forEachPlaced(_:placing:_:)``):
    /// one bad key does not stop a trim, and one whose size is damaged goes with the others.
    private func deleteKeys(
        _ txn: Transaction, _ database: Database, _ what: String, stream id: UInt32, in range: ClosedRange<UInt64>,
        placing: RecordPlacing
    ) throws -> Int {
        try txn.withCursor(database) { cursor in
            var count = 0
            do {
                var keys = StreamKeyCursor(cursor, stream: id, .records(what))
                var item = try keys.seek(atOrAfter: range.lowerBound)
                while let current = item, range.contains(current.sequence) {
                    try cursor.deleteCurrent()
                    count += 1
                    item = current.sequence < .max ? try keys.seek(atOrAfter: current.sequence + 1) : nil
                }
            } catch EventLogError.corruptKeys {
                _ = try Self.forEachPlaced(cursor, placing: placing) { placement, _ in
                    guard let key = placement.key, key.stream == id, range.contains(key.sequence) else { return }
                    try cursor.deleteCurrent()
                    count += 1
                }
            }
            return count
        }
    }
}

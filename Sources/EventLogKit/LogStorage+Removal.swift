import LMDB

/// Removing stretches of a stream inside one write transaction: what `trim`, `removeEntries` and retention share.
extension LogStorage {
    /// The sequence number of stream `id`'s latest snapshot at or before `sequence`, without decoding it.
    func latestSnapshotSequence(_ txn: Transaction, stream id: UInt32, atOrBefore sequence: UInt64) throws -> UInt64? {
        try txn.withCursor(snapshots) { cursor in
            var keys = StreamKeyCursor(cursor, stream: id, .records("snapshot"))
            return try keys.seek(atOrBefore: sequence)?.sequence
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
        try deleteKeys(txn, snapshots, "snapshot", stream: id, from: first) { $0 < end }
    }

    /// Deletes stream `id`'s gap records whose snapshot is at or before `sequence`: the stretch before them is gone.
    func deleteGaps(_ txn: Transaction, stream id: UInt32, through sequence: UInt64) throws {
        guard let gaps else { return }
        _ = try deleteKeys(txn, gaps, "gap", stream: id, from: 0) { $0 <= sequence }
    }

    /// Stream `id`'s gaps, as this transaction sees them, in order; a damaged record is an error.
    func gapRanges(_ txn: Transaction, stream id: UInt32) throws -> [ClosedRange<UInt64>] {
        try streamRecords(txn, gaps, stream: id, what: "gap") { GapRecord.decode(key: $0, record: $1)?.removed }
    }

    /// Deletes the (stream, sequence) keys of `database`, which holds `what` records, for stream `id` from `first` on
    /// while `matches` says so.
    private func deleteKeys(_ txn: Transaction, _ database: Database, _ what: String, stream id: UInt32, from first: UInt64, while matches: (UInt64) -> Bool) throws -> Int {
        try txn.withCursor(database) { cursor in
            var keys = StreamKeyCursor(cursor, stream: id, .records(what))
            var count = 0
            var item = try keys.seek(atOrAfter: first)
            while let current = item, matches(current.sequence) {
                try cursor.deleteCurrent()
                count += 1
                guard current.sequence < .max else { break }
                item = try keys.seek(atOrAfter: current.sequence + 1)
            }
            return count
        }
    }
}

import LMDB

/// The entries as a whole: their first and last numbers, their count, and removing some, whether each is held in a
/// record of its own (format versions 1 to 6) or in a block (version 7, ``EntryBlock``).
extension LogStorage {
    /// The sequence number of the log's first entry, as `txn` sees it.
    func lowestEntry(_ txn: Transaction) throws -> UInt64? {
        try txn.withCursor(entries) { cursor in
            var entries = EntryCursor(cursor)
            return try entries.first()?.sequence
        }
    }

    /// The sequence number of the log's last entry, as `txn` sees it. When the last block is damaged, so that its
    /// entries are unknown, the highest number the stream index lists stands in: a writer goes on after the numbers
    /// the block held, and a reader of what came before is not stopped by it.
    func highestEntry(_ txn: Transaction) throws -> UInt64? {
        try txn.withCursor(entries) { cursor in
            var entries = EntryCursor(cursor)
            do {
                return try entries.last()?.sequence
            } catch EventLogError.corruptEntry(let sequence, let reason) {
                guard let last = try cursor.last() else { throw EventLogError.corruptEntry(sequence: sequence, reason: reason) }
                guard let key = EntryKey.number(last) else {
                    // A record that tells no number (a node a zeroed sector wiped: its key and sizes 0): the index lists
                    // the numbers it held, where a stream's last entries were among them.
                    let listed = try highestListed(txn)
                    guard listed > 0 else { throw EventLogError.corruptEntry(sequence: sequence, reason: reason) }
                    return listed
                }
                // A block whose key alone is damaged says where it starts: its key may be any number. A key whose
                // size is damaged keeps its number.
                return max(EntryBlock.recordedFirst(last.value) ?? key, try highestListed(txn))
            }
        }
    }

    /// The numbers the stream index lists past the log's last readable entry when a key that lost bytes hides the
    /// last block (``EntryCursor/shorterKeyBeforeEnd(_:)``), of stream `id` or of every stream, with the damage;
    /// `nil` when none is hidden. A walk over the entries ends before them without an error: readers ask at its end.
    func hiddenTail(_ txn: Transaction, stream id: UInt32?) throws -> (numbers: ClosedRange<UInt64>, damage: EventLogError)? {
        try txn.withCursor(entries) { cursor in
            guard let size = try EntryCursor.shorterKeyBeforeEnd(cursor) else { return nil }
            var walk = EntryCursor(cursor)
            let readable = (try? walk.lastInTree()?.sequence) ?? nil ?? 0
            let listed = try id.map { (try? index.last(txn, stream: $0, atOrBefore: .max)?.sequence) ?? nil ?? 0 } ?? highestListed(txn)
            guard listed > readable else { return nil }
            let reason = "a key of the log is \(size) bytes, not 8, and sorts before its place: the entries from #\(readable + 1) to #\(listed), which the stream index lists, cannot be found"
            return ((readable + 1)...listed, .corruptEntry(sequence: readable + 1, reason: reason))
        }
    }

    /// The highest number the stream index lists, over every stream; a damaged index block is passed over.
    private func highestListed(_ txn: Transaction) throws -> UInt64 {
        try streamIDs(txn).compactMap { try? index.last(txn, stream: $0, atOrBefore: .max)?.sequence }.max() ?? 0
    }

    /// Where the entries of `record`, one that tells no number (a node a zeroed sector wiped, its key and sizes 0),
    /// start when it is the tree's first record: the lowest number the stream index lists from `position` below
    /// `next`, the first number of the record after it (`nil` at the tree's end), since a trim or retention may have
    /// removed every number below the log's first entry; a damaged index block is passed over. `nil` when the record
    /// is not the first (its entries follow those of the one before) or the index lists none there.
    func wipedStart(_ txn: Transaction, _ record: KeyValue, from position: UInt64, before next: UInt64?) throws -> UInt64? {
        let end = next ?? .max
        guard position < end, let first = try txn.withCursor(entries, { try $0.first() }),
              first.key.baseAddress == record.key.baseAddress, first.value.baseAddress == record.value.baseAddress
        else { return nil }
        let listed = try streamIDs(txn).compactMap { id -> UInt64? in
            var lowest: UInt64?
            _ = try? index.forEach(txn, stream: id, from: position, through: end - 1, damaged: { _ in }) { item in
                lowest = item.sequence
                return false
            }
            return lowest
        }
        return listed.min()
    }

    /// The ids of the streams the log describes, in order; a key that is not a stream id is passed over.
    private func streamIDs(_ txn: Transaction) throws -> [UInt32] {
        try txn.withCursor(streams) { cursor in
            var ids: [UInt32] = []
            var item = try cursor.first()
            while let current = item {
                if let id = KeyCoding.decodeStream(current.key) { ids.append(id) }
                item = try cursor.next()
            }
            return ids
        }
    }

    /// How many entries the log holds: a walk over its records, reading a block's count from its header.
    func entryCount(_ txn: Transaction) throws -> Int {
        try txn.withCursor(entries) { cursor in
            var count = 0
            var record = try cursor.first()
            while let current = record {
                count += EntryBlock.isBlock(current.value) && current.value.count >= EntryBlock.headerSize
                    ? Int(ByteReader(bytes: current.value).u16(5)) : 1
                record = try cursor.next()
            }
            return count
        }
    }

    /// Removes the entries numbered `sequences`, in rising order; a number the log lacks is passed over. A record of
    /// one entry is deleted; a block is written again without the entries removed, under the number of its first
    /// remaining entry, or deleted when none remains.
    func removeEntries(_ txn: Transaction, _ sequences: [UInt64]) throws {
        try Self.removeEntries(sequences, from: entries, in: txn)
    }

    /// ``removeEntries(_:_:)`` in `database`, the `entries` of a log: also how tests take entries out of a log to see
    /// what readers and `verify` make of the hole.
    static func removeEntries(_ sequences: [UInt64], from entries: Database, in txn: Transaction) throws {
        var next = 0
        while next < sequences.count {
            let target = sequences[next]
            let looked: (key: UInt64, kept: [EntryRecord.Pending], removed: Int, end: UInt64)? = try txn.withCursor(entries) { cursor in
                // A record whose key size is damaged holds the entries from its number on, which cannot be read, so
                // nor removed.
                if let damaged = try EntryKey.damagedSizeRecord(holding: target, cursor) {
                    throw EventLogError.corruptEntry(sequence: damaged.number, reason: EntryKey.damagedSizeReason(damaged.record.key.count))
                }
                guard let record = try EntryKey.seek(atOrBefore: target, cursor),
                      let key = KeyCoding.decodeSequence(record.key) else { return nil }
                guard EntryBlock.isBlock(record.value) else {
                    if key == target { try cursor.deleteCurrent() }
                    return nil
                }
                var reader = try EntryBlock.Reader(key: key, block: record.value)
                var (kept, removed, end) = ([EntryRecord.Pending](), 0, key)
                var listed = next
                while let header = try reader.next() {
                    end = header.sequence
                    while listed < sequences.count && sequences[listed] < header.sequence { listed += 1 }
                    if listed < sequences.count && sequences[listed] == header.sequence {
                        removed += 1
                    } else {
                        kept.append(EntryRecord.Pending(
                            sequence: header.sequence, streamID: header.streamID, kind: header.kind, codec: header.codec,
                            timestamp: header.timestamp, cause: header.cause,
                            caseName: String(decoding: record.value[header.caseRange], as: UTF8.self),
                            payload: Array(record.value[header.payloadRange])))
                    }
                }
                return (key, kept, removed, end)
            }
            if let looked, looked.removed > 0 { try rewriteBlock(txn, entries, old: looked.key, looked.kept) }
            // Every listed number up to the end of the record looked at is dealt with (or was not in the log).
            let reached = max(target, looked?.end ?? target)
            while next < sequences.count && sequences[next] <= reached { next += 1 }
        }
    }

    /// Replaces the block stored under `old` by blocks holding `kept` (in order; one, unless the old block held more
    /// than a block is made to), or deletes it when `kept` is empty.
    private static func rewriteBlock(_ txn: Transaction, _ entries: Database, old: UInt64, _ kept: [EntryRecord.Pending]) throws {
        try txn.delete(entries, key: KeyCoding.sequence(old))
        var builder = EntryBlock.Builder()
        func put() throws {
            guard let key = builder.key else { return }
            try KeyCoding.sequence(key).withUnsafeBytes { key in
                try txn.reserve(entries, key: key, size: builder.size) { builder.write(into: $0) }
            }
            builder.reset()
        }
        for entry in kept {
            if builder.append(entry) { continue }
            try put()
            _ = builder.append(entry)
        }
        try put()
    }
}

/// Appends entries to `entries` in blocks (``EntryBlock``), inside the writer's transaction: the log's last block is
/// continued while it has room and written again under its key; each block after it is appended in place.
///
/// The log's last block with its key damaged upwards (a flipped bit LMDB does not check) stays last in the tree, above
/// every number still to come: an append after it would fail (`MDB_KEYEXIST`) and stop the log for good. Blocks are
/// then put before it in the tree's order, the first in a new block, and the last of those is continued. Readers name
/// the damaged block by the numbers it records (``EntryIterator/skip(past:)``).
struct EntryAppender: ~Copyable {
    private let cursor: Cursor
    private var builder: EntryBlock.Builder
    /// The key the open block is stored under already, when it continues the log's last block.
    private var stored: UInt64?
    /// The tree's highest key when it belongs to a block damaged upwards: keys below it are put, not appended.
    private let damagedAbove: UInt64?

    /// Opens the log's last block for more entries when it is an intact block with room.
    init(_ cursor: Cursor) throws {
        self.cursor = cursor
        // The tree's last record is read once a commit: the cheap look at its header finds it sound.
        var last = try cursor.last()
        let damaged = last.flatMap(EntryCursor.damagedUpwards)
        if let damaged {
            // The block before it is continued when it came after it: one the appends put there.
            let before = try cursor.previous()
            last = before.flatMap { KeyCoding.decodeSequence($0.key) }.map { $0 > damaged.numbers.upperBound } == true ? before : nil
        }
        damagedAbove = damaged?.key
        if let last, let key = KeyCoding.decodeSequence(last.key), EntryBlock.isBlock(last.value),
           let continued = EntryBlock.Builder(continuing: last.value, key: key) {
            builder = continued
            stored = key
        } else {
            builder = EntryBlock.Builder()
            stored = nil
        }
    }

    /// Appends `entry`, whose payload is `payload`, and which follows every entry of the log.
    mutating func append<Entry: EntryFields>(_ entry: Entry, payload: UnsafeRawBufferPointer) throws {
        guard !builder.append(entry, payload: payload) else { return }
        try flush()
        _ = builder.append(entry, payload: payload)
    }

    /// Writes the open block.
    mutating func finish() throws {
        try flush()
    }

    private mutating func flush() throws {
        guard let key = builder.key else { return }
        let flags: WriteFlags = stored == key || damagedAbove.map({ key < $0 }) == true ? [] : .append
        try withUnsafeBytes(of: key.bigEndian) { key in
            try cursor.reserve(key: key, size: builder.size, flags: flags) { builder.write(into: $0) }
        }
        builder.reset()
        stored = nil
    }
}

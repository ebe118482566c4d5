import LMDB

/// The key of a record of `entries`, its first entry's number in 8 bytes, big-endian; and what a damaged key size
/// makes of it.
///
/// LMDB keeps each key's size in its node, unchecked. One bad bit there grows the key past 8 bytes (it takes the
/// record's first bytes, and the record is read from a byte or more on) or, for bit 3, shrinks it to nothing (the
/// record read from where the key starts, so that its first bytes are the key). Either way the record stays where it
/// was in the tree, among the numbers it held, and cannot be read: readers take it as a damaged block, from its
/// number to the next record's first. A shrunken key compares below every other key, so a seek for a number below
/// its own that compares with it is drawn onto it: ``seek(atOrBefore:_:)`` steps back over it.
enum EntryKey {
    /// The number `record` is stored under: its 8-byte key's, or the one a damaged key size leaves
    /// (``damagedSizeNumber(_:)``); `nil` when neither tells it.
    static func number(_ record: KeyValue) -> UInt64? {
        KeyCoding.decodeSequence(record.key) ?? damagedSizeNumber(record)
    }

    /// The number of a record whose key size is damaged: a key grown past 8 bytes still begins with it; a key that
    /// lost bytes has the rest of it in what LMDB takes for the record's first bytes, trusted only when the bytes
    /// after them begin a block recording that number as its first. `nil` for a key of 8 bytes, or one that tells none.
    static func damagedSizeNumber(_ record: KeyValue) -> UInt64? {
        let lost = 8 - record.key.count
        guard lost != 0 else { return nil }
        guard lost > 0 else { return UInt64(bigEndian: record.key.loadUnaligned(as: UInt64.self)) }
        guard record.value.count > lost + EntryBlock.headerSize else { return nil }
        let number = (Array(record.key) + Array(record.value.prefix(lost))).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let block = UnsafeRawBufferPointer(rebasing: record.value[lost...])
        return EntryBlock.isBlock(block) && ByteReader(bytes: block).u64(15) == number ? number : nil
    }

    /// Why the entries of a record whose key size is damaged (``damagedSizeNumber(_:)``) cannot be read.
    static func damagedSizeReason(_ size: Int) -> String {
        "the key of the record that holds it is \(size) bytes, not 8 (a damaged key size), so the record cannot be read"
    }

    /// Why the entries of a record that tells no number (neither its key nor a damaged key size: a node a zeroed sector
    /// wiped, its key `size` bytes) cannot be read.
    static func numberlessReason(_ size: Int) -> String {
        "the record that holds it tells no number (its key is \(size) bytes, not 8), so it cannot be read"
    }

    /// The record stored at or before entry `sequence`, the cursor left on it: LMDB's seek, stepping back over a
    /// record whose key lost bytes and whose number is above `sequence`, where a seek that compared with it went; and
    /// stepping forward where the seek landed below `sequence` (``misrouted(_:_:)``).
    /// Inlined: a lookup of one stream's entry among many streams' seeks once an entry, and the call cost 0.4% of a
    /// replay's instructions (docs/PERFORMANCE.md).
    @inline(__always)
    static func seek(atOrBefore sequence: UInt64, _ cursor: Cursor) throws(LMDBError) -> KeyValue? {
        let found = try KeyCoding.withSequence(sequence) { key throws(LMDBError) in try cursor.seek(atOrAfter: key) }
        let record: KeyValue?
        if let found {
            let number = KeyCoding.decodeSequence(found.key)
            if number == sequence {
                record = found
            } else if let number, number < sequence {
                record = try misrouted(sequence, cursor)
            } else {
                record = try cursor.previous()
            }
        } else {
            record = try cursor.last()
        }
        guard let record, record.key.count < 8 else { return record }
        let stepped = try stepBack(from: record, over: sequence, cursor)
        guard let stepped, number(stepped) == nil else { return stepped }
        return try numberless(stepped, before: sequence, cursor)
    }

    /// Where ``seek(atOrBefore:_:)`` landed on `record`, a record that tells no number (a node a zeroed sector wiped:
    /// its key and sizes 0), the cursor on it: such a key compares below every other wherever it lies, so LMDB's
    /// search within its page lands on it from anywhere after it. The record at or before `sequence` is the last one
    /// before it numbered at or below `sequence`, when that one's numbers reach `sequence` (or it is damaged, and says
    /// nothing of them); else the record that tells no number, whose numbers are unknown. The cursor is left on the
    /// record returned.
    private static func numberless(_ record: KeyValue, before sequence: UInt64, _ cursor: Cursor) throws(LMDBError) -> KeyValue {
        var steps = 0
        var before = try cursor.previous()
        while let current = before, number(current).map({ $0 > sequence }) ?? true {
            steps += 1
            before = try cursor.previous()
        }
        if let before, let key = KeyCoding.decodeSequence(before.key), lastNumber(of: before, key: key).map({ $0 >= sequence }) ?? true {
            return before
        }
        // Back onto the record that tells no number, as many records on as were stepped back.
        var current = before == nil ? try cursor.first() : try cursor.next()
        for _ in 0..<steps { current = try cursor.next() }
        return current ?? record
    }

    /// The number of the last entry a sound record stored under `key` holds; `nil` when it is damaged.
    static func lastNumber(of record: KeyValue, key: UInt64) -> UInt64? {
        guard EntryBlock.isBlock(record.value) else { return (try? EntryRecord.header(key: key, record: record.value)) != nil ? key : nil }
        return EntryBlock.numbers(record.value, key: key)?.upperBound
    }

    /// The last record at or before `sequence` where LMDB's seek for the first at or after it landed below it, which a
    /// sound tree never does: a bad bit raised a key of a branch page, whose search then went to the leaf before the
    /// number's own and took the next leaf's first record. The records from there are walked forward (by the pages'
    /// order, not their keys) to the last one at or before `sequence`. ``EventLog/verify(progress:)`` names the damage.
    static func misrouted(_ sequence: UInt64, _ cursor: Cursor) throws(LMDBError) -> KeyValue? {
        while let next = try cursor.next() {
            guard let number = KeyCoding.decodeSequence(next.key), number <= sequence else { return try cursor.previous() }
        }
        return try cursor.last()
    }

    /// `record`, or the first record before it whose key is not one that lost bytes and stands for a number above
    /// `sequence` (``seek(atOrBefore:_:)``).
    private static func stepBack(from record: KeyValue, over sequence: UInt64, _ cursor: Cursor) throws(LMDBError) -> KeyValue? {
        var record: KeyValue? = record
        while let current = record, current.key.count < 8, let number = damagedSizeNumber(current), number > sequence {
            record = try cursor.previous()
        }
        return record
    }

    /// The record whose key size is damaged that holds entry `sequence`, and its number, the cursor left on it: the
    /// record stored at or before the number, or the one right after it when its key grew from the number itself (a
    /// grown key sorts after its own number). `nil` when the entry is in no such record.
    static func damagedSizeRecord(holding sequence: UInt64, _ cursor: Cursor) throws(LMDBError) -> (record: KeyValue, number: UInt64)? {
        var landed = try seek(atOrBefore: sequence, cursor)
        if landed.flatMap(damagedSizeNumber) == nil { landed = landed == nil ? try cursor.first() : try cursor.next() }
        guard let landed, let number = damagedSizeNumber(landed), number <= sequence else { return nil }
        return (landed, number)
    }

    /// The first record stored at or after entry `sequence`, the cursor left on it, found by ``seek(atOrBefore:_:)``:
    /// LMDB's seek for it would pass a record whose key lost bytes.
    static func seek(atOrAfter sequence: UInt64, _ cursor: Cursor) throws(LMDBError) -> KeyValue? {
        guard let before = try seek(atOrBefore: sequence, cursor) else { return try cursor.first() }
        return number(before) == sequence ? before : try cursor.next()
    }
}

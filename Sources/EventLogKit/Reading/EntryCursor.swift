import LMDB

/// Reads the entries of `entries` in sequence order through one cursor, whatever holds each: a record of its own
/// (format versions 1 to 6, in either record layout) or a block of consecutive entries (version 7, ``EntryBlock``),
/// as a log continued across versions mixes them. Every reader of entries goes through it.
///
/// An entry found is its checked header and the bytes its ranges index (its record, or its block), valid while the
/// transaction lasts. Damage is ``EventLogError/corruptEntry(sequence:reason:)``, never a guess.
struct EntryCursor {
    /// An entry: its header, and the record or block its ranges index.
    struct Found {
        let header: EntryRecord.Header
        let bytes: UnsafeRawBufferPointer

        var sequence: UInt64 { header.sequence }
        /// The case name's bytes.
        var caseName: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[header.caseRange]) }
        /// The payload's bytes.
        var payload: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[header.payloadRange]) }
    }

    private let cursor: Cursor
    /// The block the cursor is on, read up to ``found``; `nil` on a record of one entry, or nowhere.
    private var block: EntryBlock.Reader?
    /// The entry found last.
    private(set) var found: Found?
    /// The most records stepped over before seeking instead.
    private static let maximumSteps = 8
    /// Keys of damaged records a scan has already passed over (``EntryIterator/skip(past:)``), stepped over unread
    /// where a scan's seek or step lands on them: a key damaged out of its place in the tree's order is where a seek
    /// for the numbers after it lands, again and again.
    private let passedOver: Set<UInt64>

    /// Where the entries of a record that tells no number start when no entry was read before it, given the record,
    /// the number sought and the first number of the record after it (``LogStorage/wipedStart(_:_:from:before:)``);
    /// without it, or where it tells none, the number sought, which lies below the log's first entry when a walk
    /// from the start of a trimmed log meets the record.
    private let wipedStart: ((KeyValue, UInt64, UInt64?) throws -> UInt64?)?

    init(_ cursor: Cursor, passingOver passedOver: Set<UInt64> = [], wipedStart: ((KeyValue, UInt64, UInt64?) throws -> UInt64?)? = nil) {
        self.cursor = cursor
        self.passedOver = passedOver
        self.wipedStart = wipedStart
    }

    /// Entry `sequence`, or `nil` when the log has none. A number a little above the last one found is reached by
    /// stepping forward (a stream's entries lie close together), any other by one seek. Only the record that holds
    /// the entry, or would, is read: records stepped over are not, so damage elsewhere does not reach this reader.
    mutating func entry(_ sequence: UInt64) throws -> Found? {
        if let current = found, current.sequence < sequence {
            // A block's numbers rise by one an entry unless entries were taken out, so a number its remaining entries
            // reach is most likely in it: read on. One further is in a later record unless the block skips numbers,
            // which the next record's key tells without reading the rest of the block; records about as large as
            // this one are stepped over by their keys, unless more than a few lie between, when a seek costs less.
            let distance = sequence - current.sequence
            if let remaining = block?.remaining, distance <= UInt64(remaining) {
                if let next = try nextInBlock(from: sequence) { return next.sequence == sequence ? next : nil }
            } else if distance <= UInt64(Self.maximumSteps * (block?.count ?? 1)), let outcome = try stepOver(to: sequence) {
                return outcome
            }
        }
        guard let record = try EntryKey.seek(atOrBefore: sequence, cursor) else {
            return try pastOutOfPlace(sequence, from: try cursor.first())
        }
        if let entry = try within(record, sequence) { return entry }
        return try pastOutOfPlace(sequence, from: try cursor.next())
    }

    /// Entry `sequence` where a seek cannot reach it, `record` being the one after where the seek landed: when that
    /// record's key is damaged above its place in the tree's order, the seek went wrong there, and the entry is in a
    /// record after it (``holder(pastOutOfPlace:)``); when its block records a first number at or below `sequence`
    /// (its key alone is damaged), the entry is in it, and its damage is thrown; so too when the tree's last block is
    /// one whose key alone is damaged, upwards, and records a first number at or below `sequence`; and when that record's
    /// key's size is damaged and it stands for `sequence` (``EntryKey/damagedSizeNumber(_:)``). `nil` otherwise: the
    /// log has no such entry.
    private mutating func pastOutOfPlace(_ sequence: UInt64, from record: KeyValue?) throws -> Found? {
        // A key that grew sorts right after its number: a seek for that number lands before it.
        if let record, EntryKey.damagedSizeNumber(record) == sequence { return try enter(record, after: nil, from: sequence) }
        if let record, let key = KeyCoding.decodeSequence(record.key), key > sequence {
            if let holder = try holder(pastOutOfPlace: sequence) { return try within(holder, sequence) }
            if let first = EntryBlock.misfiledFirst(record.value, key: key), first <= sequence {
                return try enter(record, after: nil, from: sequence)
            }
        }
        if let damaged = try Self.lastDamagedUpwards(cursor), damaged.numbers.contains(sequence) {
            return try enter(damaged.record, after: nil, from: sequence)
        }
        (block, found) = (nil, nil)
        return nil
    }

    /// The tree's last record when it is a block whose key alone is damaged upwards, above the numbers its checksum
    /// vouches for: it stays last in the tree, and the appends after it went before it (`EntryAppender`), so a seek
    /// for its numbers finds other records. The record, its key and its numbers, the cursor left on it; `nil` otherwise
    /// (a cheap look at the last record's header on a sound log).
    static func lastDamagedUpwards(_ cursor: Cursor) throws -> (record: KeyValue, key: UInt64, numbers: ClosedRange<UInt64>)? {
        try cursor.last().flatMap(damagedUpwards)
    }

    /// `last`, the tree's last record, when it is a block whose key alone is damaged upwards (``lastDamagedUpwards(_:)``).
    static func damagedUpwards(_ last: KeyValue) -> (record: KeyValue, key: UInt64, numbers: ClosedRange<UInt64>)? {
        guard let key = KeyCoding.decodeSequence(last.key), let first = EntryBlock.misfiledFirst(last.value, key: key),
              let numbers = EntryBlock.numbers(last.value, key: first), numbers.upperBound < key
        else { return nil }
        return (last, key, numbers)
    }

    /// The record that would hold entry `sequence`, after the one the cursor is on, whose key is damaged above its
    /// place in the tree's order: the last of the rising keys after it at or below `sequence` (a page holds a few
    /// dozen records at most), the cursor left on it, where a lookup or scan goes on from; `nil` when the record after
    /// it is above `sequence`.
    private func holder(pastOutOfPlace sequence: UInt64) throws -> KeyValue? {
        guard var holder = try cursor.next(), var holderKey = KeyCoding.decodeSequence(holder.key), holderKey <= sequence else {
            return nil
        }
        while let next = try cursor.next() {
            guard let nextKey = KeyCoding.decodeSequence(next.key), nextKey > holderKey, nextKey <= sequence else {
                _ = try cursor.previous()
                break
            }
            (holder, holderKey) = (next, nextKey)
        }
        return holder
    }

    /// Entry `sequence`, after ``found``, reached by stepping over the keys of the records that follow it, reading
    /// none but the one that holds it: the entry, or `.some(nil)` when the log has none; `nil` when it is further than
    /// ``maximumSteps`` records (or the log ends first), or falls between two records, for a seek to find.
    private mutating func stepOver(to sequence: UInt64) throws -> Found?? {
        var stepped: KeyValue?
        for _ in 0..<Self.maximumSteps {
            guard let record = try cursor.next(), let key = KeyCoding.decodeSequence(record.key) else { return nil }
            if key == sequence { return try within(record, sequence) }
            if key < sequence {
                stepped = record
                continue
            }
            // The entry is in the record before this one, if anywhere: go back to it. Unless this record's key is not
            // the first number its block records: damaged, maybe out of the tree's order, which a seek goes round.
            if EntryBlock.recordsFirst(record.value, other: key) { return nil }
            guard try cursor.previous() != nil else { return nil }
            if let stepped { return try within(stepped, sequence) }
            if let next = try nextInBlock(from: sequence) { return .some(next.sequence == sequence ? next : nil) }
            // Between two records: a seek finds whether a damaged key hides the entry (``pastOutOfPlace(_:from:)``).
            (block, found) = (nil, nil)
            return nil
        }
        return nil
    }

    /// Entry `sequence` in `record`, the one stored at or before its number, or `nil` when it does not hold it.
    private mutating func within(_ record: KeyValue, _ sequence: UInt64) throws -> Found? {
        let entry = try enter(record, after: nil, from: sequence)
        return entry?.sequence == sequence ? entry : nil
    }

    /// The first entry numbered `sequence` or higher.
    mutating func seek(atOrAfter sequence: UInt64) throws -> Found? {
        // The record at or before the number may be a block that holds it.
        if let record = try EntryKey.seek(atOrBefore: sequence, cursor) {
            var entry = try enter(try passing(record), after: nil, from: sequence)
            // A block that ends before the number leaves it to the next record.
            if entry == nil, block != nil { entry = try next(steppingOverOutOfPlace: sequence) }
            while let current = entry {
                if current.sequence >= sequence { return current }
                entry = try next()
            }
            return nil
        }
        // Nothing is stored at or before it: the first record is after it (LMDB's seek would pass one whose key lost
        // bytes, `EntryKey`). Unless that record's key is damaged above its place: the seek landed on it and found
        // nothing before it, and the entries from the number are in a record after it (a listing from the number
        // began at the log's second record before 2026-12-06, with the entries below the number).
        let first = try passing(try cursor.first())
        if let first, let key = KeyCoding.decodeSequence(first.key), key > sequence {
            if let holder = try holder(pastOutOfPlace: sequence) { return try firstEntry(from: sequence, in: holder) }
            _ = try passing(try cursor.first())
        }
        return try enter(first, after: nil)
    }

    /// `record`, or where the cursor lands stepping forward past the records ``passedOver`` names.
    private func passing(_ record: KeyValue?) throws -> KeyValue? {
        guard !passedOver.isEmpty else { return record }
        var record = record
        while let current = record, let key = KeyCoding.decodeSequence(current.key), passedOver.contains(key) {
            record = try cursor.next()
        }
        return record
    }

    /// The entry after the one found last, or `nil` at the end of the log or past `limit`: a record whose key is above
    /// `limit` is not read, so damage past the range a reader asked for does not reach it.
    mutating func next(through limit: UInt64 = .max) throws -> Found? {
        let previous = found?.sequence
        if let next = try nextInBlock() { return next }
        let record = try passing(try cursor.next())
        if let record, let key = EntryKey.number(record), key > limit {
            // Past the limit, unless the key alone is damaged upwards and its block's numbers are within it: its
            // damage is thrown (a range read ended there in silence before 2026-12-01).
            if EntryBlock.misfiledFirst(record.value, key: key).map({ $0 > limit }) ?? true {
                (block, found) = (nil, nil)
                return nil
            }
        }
        return try enter(record, after: previous)
    }

    /// ``next(through:)``, where a seek for `sequence` landed before a record whose key is damaged out of the tree's
    /// order (above the next record's): the seek went wrong at that key, and the first entry numbered `sequence` or
    /// higher is in a record after it (``holder(pastOutOfPlace:)``), or the one after that. The damaged record is
    /// stepped over only then; otherwise its damage is thrown.
    private mutating func next(steppingOverOutOfPlace sequence: UInt64) throws -> Found? {
        do {
            return try next()
        } catch {
            guard let holder = try holder(pastOutOfPlace: sequence) else { throw error }
            return try firstEntry(from: sequence, in: holder)
        }
    }

    /// The first entry numbered `sequence` or higher in `holder`, found past a key damaged out of the tree's order
    /// (``holder(pastOutOfPlace:)``), or in the record after it: a block that ends before the number leaves it to the
    /// next record, as for a seek that went right.
    private mutating func firstEntry(from sequence: UInt64, in holder: KeyValue) throws -> Found? {
        if let entry = try enter(holder, after: nil, from: sequence) { return entry }
        return block != nil ? try next() : nil
    }

    /// The first number `record`, one that tells no number and the cursor on it, holds where a walk from `sought`
    /// meets it before any entry (``wipedStart``); the cursor stays on it.
    private func start(ofWiped record: KeyValue, sought: UInt64) throws -> UInt64 {
        guard let wipedStart else { return sought }
        // A step past the tree's end leaves the cursor where it was; a step onto a record is taken back.
        guard let next = try cursor.next() else { return try wipedStart(record, sought, nil) ?? sought }
        _ = try cursor.previous()
        return try wipedStart(record, sought, EntryKey.number(next)) ?? sought
    }

    /// The log's first entry.
    mutating func first() throws -> Found? {
        try enter(try cursor.first(), after: nil)
    }

    /// The log's last entry.
    ///
    /// A block whose key lost bytes sorts before its place, among the keys it is a prefix of, and the block before it
    /// would pass for the last in silence: readers would take the log for shorter, and a writer would number entries
    /// it holds again. A key that is not 8 bytes first in the tree (a size damaged to 0 sorts there), or where the
    /// last key less its last byte sorts, is thrown as damage instead. Two lookups more than the last record's.
    mutating func last() throws -> Found? {
        if let size = try Self.shorterKeyBeforeEnd(cursor) {
            throw EventLogError.corruptEntry(sequence: 0, reason: "its key is \(size) bytes, not 8")
        }
        return try lastInTree()
    }

    /// The last entry of the tree's last record, which ``last()`` checks is the log's.
    mutating func lastInTree() throws -> Found? {
        var entry = try enter(try cursor.last(), after: nil)
        while let next = try nextInBlock() { entry = next }
        return entry
    }

    /// The size of a key that lost bytes and hides the log's last block (``last()``), or `nil`: a key that is not
    /// 8 bytes first in the tree, or where the last key less its last byte sorts, while the last key is 8.
    static func shorterKeyBeforeEnd(_ cursor: Cursor) throws -> Int? {
        guard let last = try cursor.last(), last.key.count == 8 else { return nil }
        for shorter in [try cursor.first(), try cursor.seek(atOrAfter: UnsafeRawBufferPointer(rebasing: last.key[0..<7]))] {
            // One that a damaged key size shrank stays in its place, and is read as damage there; so is a node a zeroed
            // sector wiped (its key and sizes 0), which holds no block to be out of place.
            if let shorter, shorter.key.count != 8, EntryKey.damagedSizeNumber(shorter) == nil, !shorter.value.isEmpty {
                return shorter.key.count
            }
        }
        return nil
    }

    /// The entry after ``found`` in the block the cursor is on, or the first numbered `sequence` or higher after it;
    /// `nil` at the block's end, or on a record of one entry. ``found`` stays the last entry found.
    private mutating func nextInBlock(from sequence: UInt64 = 0) throws -> Found? {
        guard block != nil, let header = try block!.next(from: sequence) else { return nil }
        found = Found(header: header, bytes: block!.block)
        return found
    }

    /// Moves onto `record` and returns its first entry, or in a block the first numbered `sequence` or higher;
    /// `after` is the entry before it, for errors.
    private mutating func enter(_ record: KeyValue?, after previous: UInt64?, from sequence: UInt64 = 0) throws -> Found? {
        let names = block?.names ?? []
        block = nil
        found = nil
        guard let record else { return nil }
        guard let key = KeyCoding.decodeSequence(record.key) else {
            if let number = EntryKey.damagedSizeNumber(record) {
                // Named, as a damaged block is, by its first number: which entries it holds is not known.
                throw EventLogError.corruptEntry(sequence: number, reason: EntryKey.damagedSizeReason(record.key.count))
            }
            // A record that tells no number (a node a zeroed sector wiped) holds the entries after the one before it,
            // or from the one sought.
            throw EventLogError.corruptEntry(sequence: try previous.map { $0 + 1 } ?? start(ofWiped: record, sought: max(sequence, 1)), reason: EntryKey.numberlessReason(record.key.count))
        }
        if EntryBlock.isBlock(record.value) {
            block = try EntryBlock.Reader(key: key, block: record.value, reusing: names)
            found = try block!.next(from: sequence).map { Found(header: $0, bytes: record.value) }
        } else {
            found = Found(header: try EntryRecord.header(key: key, record: record.value), bytes: record.value)
        }
        return found
    }
}

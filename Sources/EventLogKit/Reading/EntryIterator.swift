import Foundation
import LMDB

/// Reads the entries a query selects, in sequence order, a chunk at a time.
///
/// Each chunk is read in its own short read transaction, so iterating a huge log neither holds it in
/// memory nor pins a snapshot that would make a live log's file grow. Entries committed while
/// iterating are seen when the iteration reaches them.
///
/// A query of one stream walks the stream's index. When the index is damaged
/// (``EventLogError/corruptIndex(streamID:block:reason:)``), the iterator reads the rest of the stream's entries
/// from the whole log instead: the same entries, found more slowly, since the entries are the record and the index
/// only finds them faster. The damage is kept in ``EventLog/bypassedIndexDamage``.
///
/// ```swift
/// var iterator = log.entries(EntryQuery(stream: "search", kinds: [.mutation]))
/// while let entry = try iterator.next() { ... }
/// ```
public struct EntryIterator {
    /// How many entries one read transaction returns at most.
    static let chunkSize = 1024
    /// How many records one read transaction examines at most, matching or not.
    static let scanLimit = 8192

    private let storage: LogStorage
    private let query: EntryQuery
    private var buffer: [LogEntry] = []
    private var bufferIndex = 0
    private var remaining: Int
    private var reachedEnd = false
    private var streamID: UInt32??
    /// Damage met partway through the last chunk, thrown once the entries read before it are handed over (and again
    /// at each call, until ``skip(past:)`` passes it). Kept, not met again by a second read: a read that starts
    /// later may not see damage that only the walk's start could (a stream index block's neighbours).
    private var pendingFailure: EventLogError?
    /// Whether the query's stream is read from the whole log, its entries picked out one by one, because its index
    /// is damaged.
    private var bypassingIndex: Bool
    /// Keys of records damaged out of their place in the tree's order, passed over: a scan steps over them.
    private var passedOver: Set<UInt64> = []
    /// The entry the last chunk stopped at because its stream's descriptor is damaged, and that stream's id.
    private var undescribed: (sequence: UInt64, stream: UInt32)?
    /// Whether a scan of the whole log looked, at its end, for the log's last block with its key damaged upwards.
    private var lookedBehind = false
    /// The next sequence number the iterator will examine.
    public private(set) var nextSequence: UInt64

    /// An iterator over `query`'s entries; with `bypassingIndex`, a query of one stream reads its entries from the
    /// whole log from the start (its index is known to be damaged).
    init(storage: LogStorage, query: EntryQuery, bypassingIndex: Bool = false) {
        self.storage = storage
        self.query = query
        self.bypassingIndex = bypassingIndex
        self.nextSequence = query.from
        self.remaining = max(0, query.limit ?? .max)
    }

    /// Whether the query is satisfied: its limit is reached or its upper bound passed. An iterator that
    /// returned `nil` but is not complete may return more entries later, as a writer appends them.
    public var isComplete: Bool {
        remaining == 0 || nextSequence > query.through || nextSequence == 0
    }

    /// The next entry, or `nil` when none is left now.
    public mutating func next() throws(EventLogError) -> LogEntry? {
        while bufferIndex == buffer.count {
            if let pendingFailure { throw pendingFailure }
            if isComplete || reachedEnd {
                try requireNoneBehind()
                return nil
            }
            try readChunk()
        }
        let entry = buffer[bufferIndex]
        bufferIndex += 1
        if remaining != .max { remaining -= 1 }
        return entry
    }

    /// Throws, once, the damage of the log's last block with its key damaged upwards when a scan of the whole log ends
    /// without having met it and its numbers lie in the query's range (``EntryCursor/lastDamagedUpwards(_:)``): it sits
    /// at the tree's end, behind the appends that came after it, so a scan that stops before the end would leave its
    /// numbers out unnamed. ``skip(past:)`` then names them. A query with a limit, or of a stream read through its
    /// index (whose lookups find the block), does not look.
    private mutating func requireNoneBehind() throws(EventLogError) {
        guard !lookedBehind, query.limit == nil, streamID == .some(nil) || bypassingIndex, let range = queryRange else { return }
        lookedBehind = true
        let passedOver = passedOver
        let damage: EventLogError? = try storage.read { txn in
            try txn.withCursor(storage.entries) { cursor -> EventLogError? in
                guard let damaged = try EntryCursor.lastDamagedUpwards(cursor), !passedOver.contains(damaged.key),
                      damaged.numbers.overlaps(range) else { return nil }
                do throws(EventLogError) {
                    _ = try EntryBlock.Reader(key: damaged.key, block: damaged.record.value)
                    return nil
                } catch {
                    return error
                }
            }
        }
        if let damage { throw damage }
    }

    /// The numbers the query selects from; `nil` when it selects none (`from` above `through`).
    private var queryRange: ClosedRange<UInt64>? {
        query.from <= query.through ? query.from...query.through : nil
    }

    /// An iterator that continues this one, seeing entries committed since it reached the end.
    public func resumed() -> EntryIterator {
        var copy = self
        copy.buffer = []
        copy.bufferIndex = 0
        copy.reachedEnd = false
        return copy
    }

    /// After ``next()`` threw `error`, moves past what could not be read and returns the numbers passed over, so that
    /// a listing goes on with what is intact. For ``EventLogError/corruptEntry(sequence:reason:)`` at `sequence`: when
    /// the record that holds the entry is sound (its checksum matches), the one entry; when the record is damaged (a
    /// block whose checksum fails), from `sequence` (or from where the iterator stands, when that is later) up to the
    /// next record's first number, or to the end (`sequence...UInt64.max`) when no record follows. A record whose key
    /// is damaged out of its place in the tree's order, so that no seek for its key finds it, holds the numbers from
    /// where the iterator stands to the next sound record after it; a scan of the whole log steps over it from then on.
    /// A block whose key alone is damaged holds the numbers its checksum vouches for; when they lie behind the iterator
    /// (its key was damaged upwards, and a writer went on appending before it in the tree's order), the iterator stays
    /// where it stands, stepping over the key from then on. A record whose key size is damaged, grown past 8 bytes or
    /// shrunk, holds the numbers from the one its key still tells to the next record's first. Returns `nil` and moves
    /// nowhere for any other error, for damage already passed, and when the record after the damage cannot be found
    /// (a key that is not a number).
    public mutating func skip(past error: EventLogError) throws(EventLogError) -> ClosedRange<UInt64>? {
        guard case .corruptEntry(let sequence, _) = error else { return nil }
        let position = nextSequence
        var outOfPlace: UInt64?, behind: UInt64?
        let stretch: ClosedRange<UInt64>? = try storage.read { txn in
            try txn.withCursor(storage.entries) { cursor -> ClosedRange<UInt64>? in
                if let damaged = try Self.damagedSize(sequence, from: position, cursor) { return damaged }
                // The record stored under the damaged number, or else one before it that holds that entry.
                let record = try EntryKey.seek(atOrBefore: sequence, cursor)
                if let record, EntryKey.number(record) == nil {
                    // A record that tells no number, where a seek for the damaged one ends (first in the tree, or past
                    // the entries of the record before it).
                    // From where the iterator stands, or first in the tree from the first number the index lists, up
                    // to the next record's first number, or to the end.
                    let start = max(position, 1), next = try cursor.next()
                    let end = next.flatMap(EntryKey.number)
                    if next != nil, end.map({ $0 > start }) != true { return nil }
                    return try (storage.wipedStart(txn, record, from: start, before: end) ?? start)...(end.map { $0 - 1 } ?? .max)
                }
                if let record, let key = KeyCoding.decodeSequence(record.key) {
                    switch Self.check(record, key: key, holding: sequence) {
                    case .holds:
                        guard sequence >= position else { return nil }
                        return sequence...sequence
                    case .damaged:
                        // A block whose key alone is damaged still says where its entries start.
                        if let numbers = EntryBlock.recordedNumbers(record.value), numbers.lowerBound != key {
                            // Its checksum vouches for the numbers it records. Behind the iterator, the key was damaged
                            // upwards and a writer went on appending before it in the tree's order: the iterator stays.
                            if numbers.upperBound < position {
                                behind = key
                                return numbers
                            }
                            // A key above its numbers is where a later seek would land again: stepped over from now.
                            if key > numbers.upperBound { outOfPlace = key }
                            return max(numbers.lowerBound, position)...numbers.upperBound
                        }
                        let start = max(EntryBlock.recordedFirst(record.value) ?? sequence, position)
                        guard let next = try cursor.next() else { return start...UInt64.max }
                        guard let first = KeyCoding.decodeSequence(next.key), first > start else { return nil }
                        return start...(first - 1)
                    case .elsewhere:
                        break
                    }
                }
                guard let (stretch, key) = try Self.outOfPlace(sequence, from: position, cursor) else { return nil }
                outOfPlace = key
                return stretch
            }
        }
        guard let stretch, behind != nil || stretch.lowerBound <= query.through else { return nil }
        if let key = outOfPlace ?? behind { passedOver.insert(key) }
        buffer = []
        bufferIndex = 0
        pendingFailure = nil
        if behind == nil { nextSequence = stretch.upperBound &+ 1 }
        reachedEnd = false
        return stretch
    }

    /// When entry `sequence` is in a record whose key size is damaged (``EntryKey/damagedSizeRecord(holding:_:)``), the
    /// numbers it holds: from its key's number (or `position`, when later) up to the next record's first number, or
    /// to the end; `.some(nil)` when nothing lies between. `nil` for any other record.
    private static func damagedSize(_ sequence: UInt64, from position: UInt64, _ cursor: Cursor) throws(LMDBError) -> ClosedRange<UInt64>?? {
        guard let (_, number) = try EntryKey.damagedSizeRecord(holding: sequence, cursor) else { return nil }
        let start = max(number, position)
        guard let next = try cursor.next() else { return start...UInt64.max }
        guard let first = EntryKey.number(next), first > start else { return .some(nil) }
        return start...(first - 1)
    }

    /// Whether a record holds entry `sequence` and is sound, is damaged, or holds other numbers.
    private enum RecordCheck { case holds, damaged, elsewhere }

    /// What `record`, stored under `key`, is to entry `sequence`: a sound block is read up to it.
    private static func check(_ record: KeyValue, key: UInt64, holding sequence: UInt64) -> RecordCheck {
        guard EntryBlock.isBlock(record.value) else {
            guard (try? EntryRecord.header(key: key, record: record.value)) != nil else { return .damaged }
            return key == sequence ? .holds : .elsewhere
        }
        guard var reader = try? EntryBlock.Reader(key: key, block: record.value) else { return .damaged }
        do {
            return try reader.next(from: sequence)?.sequence == sequence ? .holds : .elsewhere
        } catch {
            // An entry that breaks the block's layout, at the number or on the way to it: the block holds the damage.
            return .holds
        }
    }

    /// The numbers a record whose key is damaged holds, when the damage at `sequence` is not where a seek for it
    /// lands: a seek for `position`, the first number not yet read, lands on that record (whose key is `sequence`
    /// itself, is not the first number its block records, or is above the next record's, out of the tree's order)
    /// or right after it (the record before has a higher key). From `position` up to the first number of the next
    /// sound record, and the damaged record's key; `nil` when no such record is there, or nothing lies between.
    private static func outOfPlace(
        _ sequence: UInt64, from position: UInt64, _ cursor: Cursor
    ) throws(LMDBError) -> (stretch: ClosedRange<UInt64>, key: UInt64)? {
        let target = KeyCoding.sequence(position)
        guard let landed = try cursor.seek(atOrAfter: target), let landedKey = KeyCoding.decodeSequence(landed.key) else { return nil }
        var found: (key: UInt64, after: KeyValue?)?
        let next = try cursor.next()
        let recorded = EntryBlock.recordedFirst(landed.value)
        if landedKey == sequence || recorded.map({ $0 != landedKey }) == true {
            found = (landedKey, next)
        } else if let next, let nextKey = KeyCoding.decodeSequence(next.key), nextKey < landedKey {
            found = (landedKey, next)
        } else if try cursor.seek(atOrAfter: target) != nil, let before = try cursor.previous(),
                  let beforeKey = KeyCoding.decodeSequence(before.key), beforeKey > landedKey {
            found = (beforeKey, try cursor.next())
        }
        guard let found else { return nil }
        // Where the sound record before the damaged one ends, when that is after `position` (a stream's reader stands
        // at the number after its own last entry).
        let end = try cursor.seek(atOrBefore: target).flatMap { record in
            KeyCoding.decodeSequence(record.key).flatMap { EntryKey.lastNumber(of: record, key: $0) }
        }
        let start = max(position, end.map { $0 &+ 1 } ?? 0)
        guard let after = found.after else { return (start...UInt64.max, found.key) }
        guard let first = KeyCoding.decodeSequence(after.key), first > start,
              check(after, key: first, holding: first) == .holds
        else { return nil }
        return (start...(first - 1), found.key)
    }

    /// The next entry that can be read, or `nil` when none is left now: each stretch that cannot be read is passed over
    /// (``skip(past:)``) and handed to `skipped` with the damage that made it, before the entries after it, cut to the
    /// query's range unless it runs to the log's end. A sound
    /// entry of a stream whose descriptor is damaged (``EventLog/damagedStreams()``) is passed over as a stretch of
    /// its own, handed over with the descriptor's ``EventLogError/corruptStream(id:reason:)``. Damage that cannot be
    /// passed over is thrown.
    public mutating func nextReadable(skipped: (ClosedRange<UInt64>, EventLogError) -> Void) throws(EventLogError) -> LogEntry? {
        while true {
            do {
                return try next()
            } catch {
                if let (sequence, damage) = try passOverUndescribed(error) {
                    skipped(sequence...sequence, damage)
                    continue
                }
                guard let stretch = try skip(past: error) else { throw error }
                // A block behind the iterator, out of the query's range, is passed over unnamed; one in it is named
                // within the range, but one that runs to the log's end still says so.
                guard let range = queryRange, stretch.overlaps(range) else { continue }
                skipped(stretch.upperBound == .max ? stretch : stretch.clamped(to: range), error)
            }
        }
    }

    /// When `error` is the iterator's stop at a sound entry of a stream whose descriptor is damaged, moves past that
    /// entry and returns its number and the descriptor's damage; else moves nowhere and returns `nil`.
    mutating func passOverUndescribed(_ error: EventLogError) throws(EventLogError) -> (UInt64, EventLogError)? {
        guard case .corruptEntry(let sequence, _) = error, let found = undescribed, found.sequence == sequence,
              let damage = storage.descriptorDamage(found.stream)
        else { return nil }
        undescribed = nil
        guard try skip(past: error) != nil else { return nil }
        return (sequence, damage)
    }

    /// Resolves the query's stream once; `false` when it names a stream the log does not have (yet).
    private mutating func resolveStream() throws(EventLogError) -> Bool {
        if streamID == nil {
            streamID = .some(try query.stream.map { (name) throws(EventLogError) -> UInt32? in try storage.stream(named: name)?.id } ?? nil)
        }
        if case .some(.none) = streamID, query.stream != nil {
            // An unknown stream has no entries (yet).
            reachedEnd = true
            streamID = nil
            return false
        }
        return true
    }

    /// Reads the next chunk into the buffer. Damage met partway (a damaged block, an entry that names an unknown
    /// stream, a moved index block) does not cost the entries read before it: they are returned first, then the
    /// damage is thrown (``pendingFailure``).
    private mutating func readChunk() throws(EventLogError) {
        guard try resolveStream() else { return }
        let want = min(Self.chunkSize, remaining)
        var raw: [RawEntry] = []
        var failure: EventLogError?
        var (next, atEnd) = (nextSequence, false)
        do {
            (next, atEnd) = try storage.read { txn in
                try visit(txn: txn, want: want) { header, record in
                    raw.append(try RawEntry(header, record))
                    return true
                }
            }
        } catch {
            failure = error
        }
        var names = storage.cachedStreams
        buffer = []
        buffer.reserveCapacity(raw.count)
        do {
            for entry in raw { buffer.append(try entry.entry(names: &names, storage: storage)) }
        } catch {
            failure = error
            let header = raw[buffer.count].header
            if storage.hasDamagedDescriptor(header.streamID) { undescribed = (header.sequence, header.streamID) }
        }
        bufferIndex = 0
        if let failure, bypass(failure, after: buffer.last?.sequence) { return }
        if let failure {
            guard let last = buffer.last else { throw failure }
            (next, atEnd) = (last.sequence &+ 1, false)
            pendingFailure = failure
        }
        nextSequence = next
        reachedEnd = atEnd
    }

    /// Whether `failure` is damage to the index of the stream being read, which the iterator goes around from now on,
    /// going on after `last`, the last entry handed over, or where it stood when none was.
    private mutating func bypass(_ failure: EventLogError, after last: UInt64?) -> Bool {
        guard case .corruptIndex = failure, !bypassingIndex, case .some(.some) = streamID else { return false }
        storage.noteBypassed(failure)
        bypassingIndex = true
        if let last { nextSequence = last &+ 1 }
        reachedEnd = false
        return true
    }

    /// Calls `body` with each entry left as an index item (its number and kind, no call site), read in place until
    /// `body` returns `false`: a stream's index rebuilt from its entries, for a read that goes around damage to it.
    mutating func forEachItem(_ body: (StreamIndex.Item) -> Bool) throws(EventLogError) {
        var going = true
        while going && !isComplete && !reachedEnd {
            guard try resolveStream() else { return }
            (nextSequence, reachedEnd) = try storage.read { txn in
                try visit(txn: txn, want: Self.chunkSize) { header, _ in
                    going = body(StreamIndex.Item(sequence: header.sequence, kind: header.kind.rawValue))
                    return going
                }
            }
        }
    }

    /// Calls `body` with each entry that is left, read in place, chunk by chunk in short read transactions
    /// (``EventLog/forEachEntry(_:undescribed:_:)``). A chunk of every stream stops at an entry of a stream not yet
    /// known, so that the streams are read again outside its transaction; an entry of a stream whose descriptor is
    /// damaged is then handed to `undescribed` and passed over, or without it thrown as damage.
    mutating func forEachInPlace(undescribed: ((UInt64, EventLogError) -> Void)? = nil, _ body: (EntryView) throws -> Void) throws {
        // A scan of every stream names each entry's stream from the streams read afresh (another process may have
        // renamed one); a stream's own scan names them all after the query's stream, with no lookup an entry (the
        // path of replay and time travel).
        var streams = query.stream == nil ? try storage.reloadStreams() : [:]
        while !isComplete && !reachedEnd {
            guard try resolveStream() else { return }
            let only: String? = if case .some(.some) = streamID { query.stream } else { nil }
            // An error of `body` ends the read and reaches the caller as it was thrown, not as a storage error.
            var failure: (any Error)?
            var unknown: UInt32?
            var given: UInt64?
            let read = Result { () throws(EventLogError) in try storage.read { txn in
                try visit(txn: txn, want: Self.chunkSize) { header, record in
                    guard let name = only ?? streams[header.streamID]?.name else {
                        unknown = header.streamID
                        return false
                    }
                    let caseBytes = UnsafeRawBufferPointer(rebasing: record[header.caseRange])
                    guard String.isValidUTF8(caseBytes) else {
                        throw EventLogError.corruptEntry(sequence: header.sequence, reason: "its case name is not valid UTF-8")
                    }
                    do {
                        try body(EntryView(
                            sequence: header.sequence, streamID: header.streamID, stream: name, kind: header.kind,
                            codec: header.codec, timestamp: header.timestamp, cause: header.cause == 0 ? nil : header.cause,
                            caseName: caseBytes, payload: UnsafeRawBufferPointer(rebasing: record[header.payloadRange])))
                    } catch {
                        failure = error
                        throw error
                    }
                    given = header.sequence
                    return true
                }
            } }
            if let failure { throw failure }
            if case .failure(let damage) = read, bypass(damage, after: given) { continue }
            let (next, atEnd) = try read.get()
            nextSequence = next
            reachedEnd = atEnd
            if let unknown {
                // The cache's copy let go of first, as ``RawEntry/entry(names:storage:)`` does.
                streams = [:]
                if try storage.stream(id: unknown) == nil {
                    if let undescribed, let damage = storage.descriptorDamage(unknown) {
                        undescribed(next, damage)
                        nextSequence = next &+ 1
                        streams = storage.cachedStreams
                        continue
                    }
                    throw EventLogError.corruptEntry(sequence: next, reason: "it names stream id \(unknown), \(storage.undescribed(unknown))")
                }
                streams = storage.cachedStreams
            }
        }
    }

    /// Calls `found` with up to `want` matching records from `nextSequence`, inside `txn`; returns where to go on and
    /// whether the end was reached. `found` returns `false` to stop before the record it was given.
    private func visit(
        txn: Transaction, want: Int, _ found: (EntryRecord.Header, UnsafeRawBufferPointer) throws -> Bool
    ) throws -> (UInt64, Bool) {
        guard case .some(.some(let id)) = streamID else { return try visitAll(txn: txn, want: want, found) }
        if bypassingIndex { return try visitAll(only: id, txn: txn, want: want, found) }
        return try visitStream(id, txn: txn, want: want, found)
    }

    /// Scans `entries` from `nextSequence`: every stream's, or `only` that stream's.
    private func visitAll(
        only stream: UInt32? = nil, txn: Transaction, want: Int, _ found: (EntryRecord.Header, UnsafeRawBufferPointer) throws -> Bool
    ) throws -> (UInt64, Bool) {
        try txn.withCursor(storage.entries) { cursor in
            var entries = EntryCursor(cursor, passingOver: passedOver) { [storage] in try storage.wipedStart(txn, $0, from: $1, before: $2) }
            var matched = 0
            var next = nextSequence
            var scanned = 0
            var entry = try entries.seek(atOrAfter: nextSequence)
            while let current = entry, matched < want, scanned < Self.scanLimit {
                if current.sequence > query.through { return (current.sequence, true) }
                if stream.map({ $0 == current.header.streamID }) ?? true, query.matches(current.header, caseBytes: current.caseName) {
                    guard try found(current.header, current.bytes) else { return (current.sequence, false) }
                    matched += 1
                }
                next = current.sequence &+ 1
                scanned += 1
                entry = try entries.next(through: query.through)
            }
            return (next, entry == nil)
        }
    }

    /// Walks the stream index from `nextSequence`, reading only this stream's entries.
    private func visitStream(
        _ id: UInt32, txn: Transaction, want: Int, _ found: (EntryRecord.Header, UnsafeRawBufferPointer) throws -> Bool
    ) throws -> (UInt64, Bool) {
        var matched = 0
        var next = nextSequence
        var scanned = 0
        let ended = try txn.withCursor(storage.entries) { cursor in try txn.withCursor(storage.entries) { stretchCursor in
            var entries = EntryCursor(cursor)
            // A block whose key was moved past entries of the stream hides them: the stretches the index leaves
            // out between its blocks, and after its last item in range, are checked, through a cursor of their own.
            // Had the optional (so escaping) closure that checks them captured `entries` too, `entries` would live in
            // a box whose every access is checked for exclusivity while running: about 130 instructions an entry.
            var stretches = EntryCursor(stretchCursor)
            return try storage.index.forEach(
                txn, stream: id, from: nextSequence, through: query.through,
                gaps: { try stretches.requireUnlisted(stream: id, in: $0) }
            ) { item in
                guard matched < want, scanned < Self.scanLimit else { return false }
                let kindMatches = EntryKind(byte: item.kind).map { query.admits($0) } ?? true
                if kindMatches {
                    let entry = try entries.listed(item, stream: id, named: query.stream)
                    if query.matches(entry.header, caseBytes: entry.caseName) {
                        guard try found(entry.header, entry.bytes) else {
                            next = item.sequence
                            return false
                        }
                        matched += 1
                    }
                }
                next = item.sequence &+ 1
                scanned += 1
                return true
            }
        } }
        return (next, ended)
    }
}

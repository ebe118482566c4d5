import LMDB

/// A cursor over one stream's keys in a database keyed by stream id and sequence number (the stream index,
/// snapshots, gaps, schema eras), which refuses the damage LMDB would pass over in silence.
///
/// LMDB's seek is a binary search that trusts the keys to be in order. One damaged key (its size changed to 0,
/// say) sends the search past keys of the stream, and a walk that took the first key not of the stream for its end
/// then leaves them out with nothing said. So every seek also checks the key before where it lands, every step
/// checks that the keys go on rising, and a key that is not 12 bytes is an error, not the end of the stream.
struct StreamKeyCursor {
    /// A key of the stream and its value, pointing into the map.
    typealias Found = (sequence: UInt64, value: UnsafeRawBufferPointer)

    /// What the database holds, which names it in errors.
    enum Contents {
        /// The stream index: damage is ``EventLogError/corruptIndex(streamID:block:reason:)``.
        case index
        /// Records named so in errors (`snapshot`, `gap`, `schema era`): damage is
        /// ``EventLogError/corruptKeys(streamID:records:reason:)``.
        case records(String)
    }

    private let cursor: Cursor
    private let stream: UInt32
    private let contents: Contents
    /// The key the cursor is on, once a move found one.
    private var position: (stream: UInt32, sequence: UInt64)?
    /// Where the last move forwards (``seek(atOrAfter:)``, ``next()``) found the stream's keys ended: another
    /// stream's key, and its value; `nil` after a move that found one of the stream's, or none.
    private(set) var beyond: (stream: UInt32, sequence: UInt64, value: UnsafeRawBufferPointer)?

    init(_ cursor: Cursor, stream: UInt32, _ contents: Contents) {
        self.cursor = cursor
        self.stream = stream
        self.contents = contents
    }

    /// Moves to the stream's first key at or after `sequence`; `nil` when the stream has none there.
    mutating func seek(atOrAfter sequence: UInt64) throws -> Found? {
        try forwards(seekChecked(sequence))
    }

    /// Moves to the stream's last key at or before `sequence`; `nil` when the stream has none there.
    mutating func seek(atOrBefore sequence: UInt64) throws -> Found? {
        if let found = try seekChecked(sequence), found.key == (stream, sequence) { return forwards(found) }
        return try previous()
    }

    /// Moves to the stream's next key; `nil` at the stream's end.
    mutating func next() throws -> Found? {
        try forwards(step(try cursor.next(), after: true))
    }

    /// ``next()``, handing a key of the stream that does not rise above the one the cursor is on to `misplaced` first,
    /// with its record and that key's number: when it returns `true` (it told the record's damage), the key is passed
    /// over and the step goes on to the one after it.
    mutating func next(passingOver misplaced: (_ key: UInt64, _ record: UnsafeRawBufferPointer, _ after: UInt64) throws -> Bool) throws -> Found? {
        while true {
            let moved = try cursor.next()
            if let moved, let position, position.stream == stream, let key = KeyCoding.decodeStreamSequence(moved.key),
               key.stream == stream, key.sequence <= position.sequence, try misplaced(key.sequence, moved.value, position.sequence) {
                continue
            }
            return try forwards(step(moved, after: true))
        }
    }

    /// Takes the stream's key `sequence` (0: none) for the one the cursor is on, for the next step's check: after a
    /// record whose key a bad bit raised, the keys go on rising from the one before it.
    mutating func resume(after sequence: UInt64) {
        position = (stream, sequence)
    }

    /// Moves to the stream's previous key; `nil` at the stream's start.
    mutating func previous() throws -> Found? {
        // After a seek past the last key, LMDB's cursor has no position to step back from.
        let moved = position == nil ? try cursor.last() : try cursor.previous()
        beyond = nil
        return try onStream(step(moved, after: false))
    }

    /// What ``scan(atOrBefore:placing:)`` found: the stream's keys, latest first, and whether they are all of them.
    struct Scan {
        /// The stream's keys at or before the number asked for, latest first; of two under one number, the first in
        /// the tree's order first.
        var found: [Found] = []
        /// Whether every key of the database was read or placed and the 12-byte keys are in order: the list is then
        /// the one a sound tree would give, though a seek found damage.
        var isWhole = true
        /// For each key that neither reads nor is placed and may be the stream's, the numbers it may stand for: between
        /// the 12-byte keys on either side of it in the pages, which a sound tree keeps in order (the whole range of
        /// numbers where those keys are not in order). Numbers past the one asked for included.
        var hidden: [ClosedRange<UInt64>] = []

        /// ``found`` in order of number, one a number: of two under one, the first in the tree's order.
        var ascendingOnce: [Found] {
            var seen = Set<UInt64>()
            return found.filter { seen.insert($0.sequence).inserted }.reversed()
        }
    }

    /// The stream's keys at or before `sequence`, latest first, among all the database's keys read in the order of
    /// its pages: for a reader that may take an earlier key than the last (a snapshot to replay from) when a seek
    /// finds the keys out of order, or the last one's record damaged. A key that is not 12 bytes is placed where its
    /// record says, or where its bytes say when a bad bit changed its size, or else passed over
    /// (``LogStorage/forEachPlaced(_:placing:_:)``).
    mutating func scan(atOrBefore sequence: UInt64, placing: LogStorage.RecordPlacing = { _ in nil }) throws -> Scan {
        var scan = Scan()
        // The last 12-byte key, whether keys not placed followed it, and whether the 12-byte keys rose.
        var before: (stream: UInt32, sequence: UInt64)?
        var unplaced = false, ordered = true
        /// Notes the numbers the keys not placed since `before` may stand for, `after` being the next 12-byte key.
        func bound(by after: (stream: UInt32, sequence: UInt64)?) {
            let lower: UInt64? = switch before {
            case nil: 0
            case let key? where key.stream == stream: key.sequence == .max ? nil : key.sequence + 1
            case let key?: key.stream < stream ? 0 : nil
            }
            let upper: UInt64? = switch after {
            case nil: .max
            case let key? where key.stream == stream: key.sequence == 0 ? nil : key.sequence - 1
            case let key?: key.stream > stream ? .max : nil
            }
            if let lower, let upper, lower <= upper { scan.hidden.append(lower...upper) }
        }
        scan.isWhole = try LogStorage.forEachPlaced(cursor, placing: placing) { placement, record in
            if let key = placement.key, key.stream == stream, key.sequence <= sequence { scan.found.append((key.sequence, record.value)) }
            switch placement {
            case .key(let stream, let sequence):
                if let before, !(before < (stream, sequence)) { ordered = false }
                if unplaced { bound(by: (stream, sequence)) }
                (before, unplaced) = ((stream, sequence), false)
            case .none: unplaced = true
            case .record, .damagedSize: break
            }
        }
        if unplaced { bound(by: nil) }
        // Keys out of order place nothing between them.
        if !ordered, !scan.hidden.isEmpty { scan.hidden = [0...UInt64.max] }
        position = nil
        // The sort is stable: of two under one number, the first in the tree's order stays first.
        scan.found.sort { $0.sequence > $1.sequence }
        return scan
    }

    // MARK: Checks

    private typealias Key = (stream: UInt32, sequence: UInt64)

    /// Seeks the first key at or after (stream, `sequence`), checking that the key before it sorts below.
    private mutating func seekChecked(_ sequence: UInt64) throws -> (key: Key, value: UnsafeRawBufferPointer)? {
        // Errors are worded only when thrown: every seek of time travel passes here.
        // A search for #0 is one from the stream's start: a listing's, or a walk's.
        func place() -> String { sequence == 0 ? "where a search from the stream's start lands" : "where a search for #\(sequence) lands" }
        let found = try KeyCoding.withStreamSequence(stream, sequence) { key in try cursor.seek(atOrAfter: key) }
        var landed: (key: Key, value: UnsafeRawBufferPointer)?
        if let found {
            guard let key = KeyCoding.decodeStreamSequence(found.key) else { throw damage(size: found.key.count, place()) }
            landed = (key, found.value)
        }
        if let before = found == nil ? try cursor.last() : try cursor.previous() {
            guard let key = KeyCoding.decodeStreamSequence(before.key) else { throw damage(size: before.key.count, place()) }
            guard key < (stream, sequence) else { throw damage("the keys are out of order \(place())") }
            if found != nil { _ = try cursor.next() }
        }
        position = landed?.key
        return landed
    }

    /// Checks a key a step reached: 12 bytes, and past (or, stepping back, before) the one the cursor was on.
    private mutating func step(_ moved: KeyValue?, after: Bool) throws -> (key: Key, value: UnsafeRawBufferPointer)? {
        guard let moved else { return nil }
        func place() -> String { position.map { "\(after ? "after" : "before") #\($0.sequence)" } ?? "at the end" }
        guard let key = KeyCoding.decodeStreamSequence(moved.key) else { throw damage(size: moved.key.count, place()) }
        if let position, after ? !(key > position) : !(key < position) {
            throw damage("the keys are out of order \(place())")
        }
        position = key
        return (key, moved.value)
    }

    /// The stream's key a move forwards found, or `nil`, keeping another stream's in ``beyond``.
    private mutating func forwards(_ found: (key: Key, value: UnsafeRawBufferPointer)?) -> Found? {
        beyond = found.flatMap { $0.key.stream == stream ? nil : ($0.key.stream, $0.key.sequence, $0.value) }
        return onStream(found)
    }

    private func onStream(_ found: (key: Key, value: UnsafeRawBufferPointer)?) -> Found? {
        guard let found, found.key.stream == stream else { return nil }
        return (found.key.sequence, found.value)
    }

    private func damage(size: Int, _ place: String) -> EventLogError {
        damage("a key \(place) is \(size) bytes, not 12")
    }

    private func damage(_ reason: String) -> EventLogError {
        switch contents {
        case .index:
            let block = position.flatMap { $0.stream == stream ? $0.sequence : nil }
            return .corruptIndex(streamID: stream, block: block, reason: reason)
        case .records(let name):
            return .corruptKeys(streamID: stream, records: name, reason: reason)
        }
    }
}

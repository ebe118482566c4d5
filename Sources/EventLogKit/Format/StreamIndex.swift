import BinaryPayloadKit
import LMDB

/// The stream index: each stream's entries in order, with each one's kind and, for an action, its call-site
/// number, so that one stream is read without touching the others (docs/FORMAT.md, "The stream index").
///
/// Since format version 5 it is `stream-index`, whose records are blocks of consecutive entries of one stream:
/// about 2.5 bytes an entry instead of the 27 that a record per entry cost. Logs of versions 1 to 4 have
/// `stream-entries`, a record per entry; readers read it as it is, and a writer that opens such a log converts it
/// (``convert(_:records:)``) in the transaction that raises the log's version. Since version 8 a block's checksum
/// covers its key (``Seal``); a writer that opens a log of version 5 to 7 seals its blocks again (``sealKeys(_:)``).
struct StreamIndex: Sendable {
    /// One indexed entry.
    struct Item: Equatable, Sendable {
        /// The entry's sequence number.
        var sequence: UInt64
        /// The raw value of its ``EntryKind``.
        var kind: UInt8
        /// For an action, the number of its call site (a key of `sites`), or 0 when none was recorded.
        var site: UInt32 = 0
    }

    /// How the index is kept.
    enum Layout: Sendable {
        /// Format version 5: `stream-index`, blocks keyed by stream and first sequence number.
        case blocks
        /// Format versions 1 to 4: `stream-entries`, a record per entry keyed by stream and sequence number.
        case records
    }

    /// What a reader takes a block's checksum to cover.
    enum Seal: Sendable {
        /// The block's key (the stream id, then its first item's number, as the 12 bytes of the key), then its
        /// items: format version 8, where a key damaged into another number no longer matches its block.
        case keyAndItems
        /// Its items alone (format versions 5 to 7), or its key and items: a log opened at version 7 or less, which
        /// a writer may raise to 8, sealing every block again, while this reader reads it.
        case itemsOrKeyAndItems
    }

    /// The most bytes of items one block holds, its checksum aside. Three such blocks share a 4 KiB page, and
    /// rewriting the last one at each commit moves no more than this.
    static let blockCapacity = 1024
    /// The bytes of a block's checksum, before its items.
    static let checksumSize = 4

    let database: Database
    let layout: Layout
    /// What each block's checksum covers; writers seal keys and items.
    var seal: Seal = .keyAndItems
    /// For the `records` layout, the log's `meta`: another process's writer may convert the index while this
    /// reader has it open, and LMDB then finds the dropped database empty rather than gone.
    var meta: Database?

    // MARK: Reading

    /// Calls `body` with stream `id`'s items from `from` through `through`, in order, until it returns `false`;
    /// returns whether the walk reached the end of that range. A damaged block is an error, unless `damaged` is
    /// given: then it is told of the block (``EventLogError/corruptIndex(streamID:block:reason:)``) and the walk
    /// goes on after it; keys out of order or not 12 bytes (``StreamKeyCursor``) are told the same way, and end it.
    /// With `gaps`, it is also given each stretch of the range where the index lists none of the stream's entries:
    /// between the blocks read (from the last item of one through the item before the next block's key, also where
    /// that lies before `from`, for the block the walk starts in), and, when
    /// the walk reaches the end of the range, from the last item given to `body` through that end; with
    /// `blockStarts`, the key (the first item's number) of each block that follows such a stretch (or no block known),
    /// before its items: a key moved to another number leaves a stretch before its block, or lands in one.
    @discardableResult
    func forEach(
        _ txn: Transaction, stream id: UInt32, from: UInt64 = 0, through: UInt64 = .max,
        damaged: ((EventLogError) throws -> Void)? = nil, gaps: ((ClosedRange<UInt64>) throws -> Void)? = nil,
        blockStarts: ((UInt64) throws -> Void)? = nil, _ body: (Item) throws -> Bool
    ) throws -> Bool {
        guard from <= through else { return true }
        try requireUnconverted(txn)
        /// The stretch after `last` (an item, or nothing in range) through the end of the range, for `gaps`.
        func lastStretch(after last: UInt64?) throws {
            let low = last.map { $0 == .max ? nil : max($0 + 1, from) } ?? from
            if let gaps, let low, low <= through { try gaps(low...through) }
        }
        return try txn.withCursor(database) { cursor in
            var keys = StreamKeyCursor(cursor, stream: id, .index)
            switch layout {
            case .records:
                var record = try keys.seek(atOrAfter: from)
                var last: UInt64?
                while let current = record, current.sequence <= through {
                    guard try body(Self.item(current.sequence, record: current.value)) else { return false }
                    last = current.sequence
                    record = try keys.next()
                }
                try lastStretch(after: last)
                return true
            case .blocks:
                var block = try Self.move(damaged: damaged) { try Self.seekBlock(&keys, holding: from) }
                // Before format version 8 a block's key was outside its checksum: a key damaged into another number
                // that keeps the keys in order moves the block's items onto other entries. Moved by a whole period of
                // the stream's kinds, they land on entries of the stream of the same kinds, but then overlap the block
                // before or after. So every block read is checked against both, before its items are given: `end` is
                // the last item before it (one lookup when the walk starts inside the stream), and the next key must
                // follow its last item.
                var end = block.flatMap { lastItem(txn, stream: id, beforeBlock: $0.sequence) }
                var given: UInt64?
                // A block's items, decoded once: a block of `blockCapacity` bytes holds at most half as many.
                let items = UnsafeMutableBufferPointer<Item>.allocate(capacity: Self.blockCapacity / 2 + 1)
                defer { items.deallocate() }
                var lastBlock: UInt64?
                // The key of the last block whose key was not found changed by a bad bit (0: none yet).
                var soundKey: UInt64 = 0
                // The next block. A walk that tells of damage (`verify`) goes on past a key a bad bit changed
                // (``keyBeforeDamage(_:stream:key:)``), telling it as its block's damage: one moved below the key
                // before it is passed over, and after one moved up the keys rise again from the one before it.
                func nextBlock() throws -> StreamKeyCursor.Found? {
                    guard let damaged, seal == .keyAndItems else { return try keys.next() }
                    return try keys.next { key, record, after in
                        guard let first = Self.keyBeforeDamage(record, stream: id, key: key), first > after else { return false }
                        try damaged(Self.keyChanged(stream: id, from: first, to: key))
                        return true
                    }
                }
                while let current = block, current.sequence <= through {
                    lastBlock = current.sequence
                    var (stopped, beyond, keyChanged) = (false, false, false)
                    // The next block, found before this one's items are given (once this one decodes); a damaged key
                    // there is thrown only when the walk goes on to it.
                    var following: Result<StreamKeyCursor.Found?, any Error>?
                    do {
                        // A block's first item is its key; the items after it rise (`decode` checks).
                        // (The stream's first block, with none before it, too.)
                        let afterStretch = end.map { $0 == 0 || current.sequence > $0 &+ 1 } ?? true
                        if let end {
                            if current.sequence <= end {
                                throw EventLogError.corruptIndex(
                                    streamID: id, block: current.sequence,
                                    reason: "it begins at #\(current.sequence), but the block before it lists entries up to #\(end)")
                            }
                            // Also before `from`, when the walk starts inside this block: a key moved up hides the
                            // entries just before it, and shifts every item a walk from inside the block reads.
                            let (low, high) = (end + 1, min(current.sequence - 1, through))
                            if let gaps, low <= high { try gaps(low...high) }
                        }
                        if afterStretch { try blockStarts?(current.sequence) }
                        var count = 0
                        end = try Self.decode(current.value, stream: id, first: current.sequence, seal: seal) { item in
                            guard count < items.count else {
                                throw EventLogError.corruptIndex(streamID: id, block: current.sequence, reason: "it holds more entries than a block can")
                            }
                            items[count] = item
                            count += 1
                            return true
                        }
                        following = Result { try Self.move(damaged: damaged) { try nextBlock() } }
                        // Before any item is given, its last must come before the next block: a key moved up by a
                        // whole period of the stream's kinds lands every item on the stream's later entries, and only
                        // the next block can tell. (`verify` finds it when it reaches that block.)
                        if damaged == nil, let end, case .success(let next?)? = following, next.sequence <= end {
                            throw EventLogError.corruptIndex(
                                streamID: id, block: current.sequence,
                                reason: "it lists entries up to #\(end), but the block after it begins at #\(next.sequence)")
                        }
                        for item in items[..<count] where item.sequence >= from {
                            guard item.sequence <= through else {
                                beyond = true
                                break
                            }
                            given = item.sequence
                            stopped = try !body(item)
                            if stopped { break }
                        }
                    } catch let error as EventLogError {
                        guard let damaged, case .corruptIndex(id, current.sequence, _) = error else { throw error }
                        if seal == .keyAndItems, let first = Self.keyBeforeDamage(current.value, stream: id, key: current.sequence),
                           first > soundKey {
                            try damaged(Self.keyChanged(stream: id, from: first, to: current.sequence))
                            keys.resume(after: soundKey)
                            keyChanged = true
                        } else {
                            try damaged(error)
                        }
                    }
                    if !keyChanged { soundKey = current.sequence }
                    if stopped || beyond {
                        if beyond { try lastStretch(after: given) }
                        return !stopped
                    }
                    block = try (following ?? Result { try Self.move(damaged: damaged) { try nextBlock() } }).get()
                }
                if seal == .keyAndItems { try checkKeyPast(block, keys.beyond, after: lastBlock, stream: id, damaged: damaged) }
                try lastStretch(after: end)
                return true
            }
        }
    }

    /// Checks, since format version 8, where a walk of stream `id` that reached the end of its range stopped: a
    /// sound block proves its key. The stream's first block past the range (`next`), when sound, holds none of the
    /// range's entries, nor does any block after it; unread, a key moved past the end of the range would leave
    /// entries out of the stretch before it, unseen where they lie far apart. Where the stream's keys ended instead,
    /// the other stream's key there (`beyond`, after the stream's block keyed `lastBlock`, when the walk read one)
    /// must be sound under its own number: damaged, it may be one of this stream's whose stream id is damaged,
    /// which leaves the walk at it. A walk given `damaged` (`verify`, which counts every stream's entries) is not
    /// checked so.
    private func checkKeyPast(
        _ next: StreamKeyCursor.Found?, _ beyond: (stream: UInt32, sequence: UInt64, value: UnsafeRawBufferPointer)?,
        after lastBlock: UInt64?, stream id: UInt32, damaged: ((EventLogError) throws -> Void)?
    ) throws {
        guard damaged == nil else { return }
        if let next {
            try Self.decode(next.value, stream: id, first: next.sequence, seal: seal) { _ in false }
        } else if let beyond {
            do {
                try Self.decode(beyond.value, stream: beyond.stream, first: beyond.sequence, seal: seal) { _ in false }
            } catch {
                throw EventLogError.corruptIndex(
                    streamID: id, block: lastBlock ?? beyond.sequence,
                    reason: "the key after it, #\(beyond.sequence) of stream id \(beyond.stream), does not match its block's checksum: the block may be one of this stream's, its stream id damaged")
            }
        }
    }

    /// The last item of stream `id`'s block before the one keyed `first`, however far its items run; 0 when the stream
    /// has no block before it (no entry of the stream may come before its first block); `nil` when that block is
    /// damaged, which is not the caller's walk to report.
    private func lastItem(_ txn: Transaction, stream id: UInt32, beforeBlock first: UInt64) -> UInt64? {
        guard first > 0 else { return 0 }
        let found = try? txn.withCursor(database) { cursor -> UInt64? in
            var keys = StreamKeyCursor(cursor, stream: id, .index)
            guard let block = try keys.seek(atOrBefore: first - 1) else { return 0 }
            return try Self.decode(block.value, stream: id, first: block.sequence, seal: seal) { _ in true }
        }
        return found ?? nil
    }

    /// Stream `id`'s last entry at or before `sequence`, or `nil`: one seek.
    func last(_ txn: Transaction, stream id: UInt32, atOrBefore sequence: UInt64) throws -> Item? {
        try last(txn, stream: id, where: { _ in true }, atOrBefore: sequence, after: 0)
    }

    /// Stream `id`'s last entry at or before `sequence` and after `floor` whose kind `matches` accepts, or `nil`:
    /// one seek, then a step back a block (a record) at a time while the entries there are older and rejected.
    func last(
        _ txn: Transaction, stream id: UInt32, where matches: (UInt8) -> Bool, atOrBefore sequence: UInt64, after floor: UInt64
    ) throws -> Item? {
        guard sequence > floor else { return nil }
        try requireUnconverted(txn)
        return try txn.withCursor(database) { cursor in
            var keys = StreamKeyCursor(cursor, stream: id, .index)
            var current = try keys.seek(atOrBefore: sequence)
            while let found = current {
                switch layout {
                case .records:
                    guard found.sequence > floor else { return nil }
                    let item = Self.item(found.sequence, record: found.value)
                    if matches(item.kind) { return item }
                case .blocks:
                    var last: Item?
                    try Self.decode(found.value, stream: id, first: found.sequence, seal: seal) { item in
                        guard item.sequence <= sequence else { return false }
                        if item.sequence > floor, matches(item.kind) { last = item }
                        return true
                    }
                    if let last { return last }
                    guard found.sequence > floor else { return nil }
                }
                current = try keys.previous()
            }
            return nil
        }
    }

    /// The earliest of stream `id`'s latest `count` entries at or before `sequence` (the earliest it has there when it
    /// holds fewer), or `nil` when it holds none: one seek, then a block (a record) at a time backwards, so the cost
    /// is the blocks stepped over, not a seek per entry.
    func firstOfLatest(_ txn: Transaction, stream id: UInt32, count: Int, atOrBefore sequence: UInt64) throws -> Item? {
        guard count > 0 else { return nil }
        try requireUnconverted(txn)
        return try txn.withCursor(database) { cursor in
            var keys = StreamKeyCursor(cursor, stream: id, .index)
            var remaining = count
            var earliest: Item?
            var current = try keys.seek(atOrBefore: sequence)
            while let found = current {
                var items: [Item] = []
                switch layout {
                case .records:
                    items = [Self.item(found.sequence, record: found.value)]
                case .blocks:
                    try Self.decode(found.value, stream: id, first: found.sequence, seal: seal) { item in
                        guard item.sequence <= sequence else { return false }
                        items.append(item)
                        return true
                    }
                }
                if items.count >= remaining { return items[items.count - remaining] }
                remaining -= items.count
                earliest = items.first ?? earliest
                current = try keys.previous()
            }
            return earliest
        }
    }

    /// The key (first item) of the block before stream `id`'s block at or before `sequence`, or of that block when it
    /// is the stream's first; `nil` when the stream has no block there: where a walk starts that checks the block
    /// holding `sequence` against the one before it. For the `records` layout, the record before.
    func startOfBlockBefore(_ txn: Transaction, stream id: UInt32, holding sequence: UInt64) throws -> UInt64? {
        try txn.withCursor(database) { cursor in
            var keys = StreamKeyCursor(cursor, stream: id, .index)
            guard let block = try keys.seek(atOrBefore: sequence) else { return nil }
            return try keys.previous()?.sequence ?? block.sequence
        }
    }

    /// The block `move` finds; with `damaged`, keys out of order (which cannot be walked past) are told to it as a
    /// damaged block, and end the walk.
    private static func move(
        damaged: ((EventLogError) throws -> Void)?, _ move: () throws -> StreamKeyCursor.Found?
    ) throws -> StreamKeyCursor.Found? {
        do {
            return try move()
        } catch let error as EventLogError {
            guard let damaged, case .corruptIndex = error else { throw error }
            try damaged(error)
            return nil
        }
    }

    /// What a walk that tells of damage (`verify`) says of a block whose key a bad bit changed from `first` to `key`.
    private static func keyChanged(stream id: UInt32, from first: UInt64, to key: UInt64) -> EventLogError {
        .corruptIndex(streamID: id, block: first, reason: "its key was changed to #\(key) (one bit), where lookups do not find it")
    }

    /// Positions `cursor` on the first block of stream `id` that may hold `sequence` or a later item: the block at
    /// or before it, when it is the stream's, else the stream's first block after it.
    private static func seekBlock(_ keys: inout StreamKeyCursor, holding sequence: UInt64) throws -> StreamKeyCursor.Found? {
        if let before = try keys.seek(atOrBefore: sequence) { return before }
        return try keys.seek(atOrAfter: sequence)
    }

    // MARK: Writing (blocks only: a writer converts an older index first)

    /// What a writer keeps between its commits for ``append(_:stream:_:tips:)``: the last block it wrote of each stream,
    /// so that continuing that block needs no walk of its items. With a thousand
    /// streams a commit, decoding each stream's last block (up to ``blockCapacity`` bytes) to find its last item was
    /// a twentieth of the writer's time.
    struct Tips: Sendable {
        /// The last block a writer wrote of a stream: its key, its record's size and checksum, and its last item.
        struct Tip: Sendable {
            var first: UInt64, size: Int, checksum: UInt32, last: UInt64
        }

        /// The most streams whose tips are kept; past it they are forgotten, and each such block is decoded once more.
        static let limit = 16_384

        /// The last block written of each stream, by stream id.
        var blocks = NumberTable<Tip>()

        /// Stream `id`'s last item, if `record`, its last block keyed `first`, is the one noted: the same key, size and
        /// stored checksum (what `record` holds is checked against its checksum by the caller).
        func last(of record: UnsafeRawBufferPointer, stream id: UInt32, first: UInt64) -> UInt64? {
            guard let tip = blocks[id], tip.first == first, tip.size == record.count,
                  ByteReader(bytes: record).u32(0) == tip.checksum
            else { return nil }
            return tip.last
        }

        /// Notes `tip` as stream `id`'s last block, forgetting every other stream's first when ``limit`` are kept.
        mutating func note(_ tip: Tip, stream id: UInt32) {
            if blocks.count >= Self.limit && blocks[id] == nil { blocks.removeAll() }
            blocks[id] = tip
        }
    }

    /// Adds `items`, which follow every item stream `id` has, in order: they go into the stream's last block while
    /// it has room, then into new ones. `tips` is kept up to date.
    func append(_ txn: Transaction, stream id: UInt32, _ items: [Item], tips: inout Tips) throws {
        try append(txn, items, streams: [(id, items.indices)], tips: &tips)
    }

    /// Adds each of `streams`' range of `items`, as ``append(_:stream:_:tips:)`` does, through one cursor and one
    /// block buffer for all: a commit to a server's many sessions appends to hundreds of streams.
    func append(_ txn: Transaction, _ items: [Item], streams: [(stream: UInt32, range: Range<Int>)], tips: inout Tips) throws {
        // A buffer of its own, not an array: an array's append checked its uniqueness for each number of each item.
        var bytes = ByteBuffer(capacity: Self.blockCapacity + 17)
        try txn.withCursor(database) { cursor in
            // The index's largest key, which a block must exceed to be appended in place, as this transaction finds
            // it: a removal (retention, `trim`, `removeEntries`) may have rewritten the last block under a later key,
            // and a block appended under a key not past the largest is refused (MDB_KEYEXIST). One seek a call.
            var lastKey = try cursor.last().flatMap { KeyCoding.decodeStreamSequence($0.key) } ?? (0, 0)
            for (id, range) in streams where !range.isEmpty {
                bytes.truncate(to: 0)
                try append(cursor, stream: id, items[range], into: &bytes, tips: &tips, lastKey: &lastKey)
            }
        }
    }

    /// Appends one stream's `items`, building its blocks in `bytes` (empty, with room for a block), seeking its last
    /// block and writing its blocks with `cursor`, after `lastKey`, the index's largest key.
    private func append(
        _ cursor: Cursor, stream id: UInt32, _ items: ArraySlice<Item>, into bytes: inout ByteBuffer, tips: inout Tips,
        lastKey: inout (stream: UInt32, sequence: UInt64)
    ) throws {
        let firstNew = items[items.startIndex]
        var (first, previous) = (firstNew.sequence, firstNew.sequence)
        if let continued = try continueLastBlock(cursor, stream: id, before: firstNew.sequence, tips: tips, into: &bytes) {
            (first, previous) = continued
        }
        for item in items {
            guard item.sequence > previous || bytes.isEmpty else {
                throw EventLogError.invalidArgument("Entry #\(item.sequence) of stream id \(id) does not follow #\(previous) in the stream index.")
            }
            if bytes.count + Self.size(of: item, after: previous) > Self.blockCapacity && !bytes.isEmpty {
                try put(cursor, stream: id, first: first, bytes, lastKey: &lastKey)
                bytes.truncate(to: 0)
                (first, previous) = (item.sequence, item.sequence)
            }
            Self.encode(item, after: bytes.isEmpty ? item.sequence : previous, into: &bytes)
            previous = item.sequence
        }
        let checksum = try put(cursor, stream: id, first: first, bytes, lastKey: &lastKey)
        tips.note(Tips.Tip(first: first, size: Self.checksumSize + bytes.count, checksum: checksum, last: previous), stream: id)
    }

    /// Copies the items of stream `id`'s last block into `bytes` when new items from `next` on may continue it: the
    /// block is intact (a damaged one is left for `verify`), has room, and ends before `next`. Returns the block's first
    /// and last sequence numbers, or `nil`, leaving `bytes` as it was.
    private func continueLastBlock(
        _ cursor: Cursor, stream id: UInt32, before next: UInt64, tips: Tips, into bytes: inout ByteBuffer
    ) throws -> (first: UInt64, last: UInt64)? {
        guard let found = try KeyCoding.withStreamSequence(id, .max, { key in try cursor.seek(atOrBefore: key) }),
              let key = KeyCoding.decodeStreamSequence(found.key), key.stream == id,
              found.value.count < Self.checksumSize + Self.blockCapacity
        else { return nil }
        var last: UInt64?
        if let noted = tips.last(of: found.value, stream: id, first: key.sequence) {
            // The block this writer wrote, if it is still intact: its checksum is checked, its items not walked.
            guard Self.checksumMatches(found.value, stream: id, first: key.sequence, seal: seal) else { return nil }
            last = noted
        } else {
            do {
                try Self.decode(found.value, stream: id, first: key.sequence, seal: seal) { item in
                    last = item.sequence
                    return true
                }
            } catch { return nil }
        }
        guard let last, last < next else { return nil }
        bytes.append(UnsafeRawBufferPointer(rebasing: found.value[Self.checksumSize...]))
        return (key.sequence, last)
    }

    /// Removes stream `id`'s items from `first` through `last`, calling `removing` with each one's sequence number
    /// first; returns how many. A block keeps what lies outside the range, under the sequence number of its first.
    func remove(
        _ txn: Transaction, stream id: UInt32, from first: UInt64, through last: UInt64, removing: (UInt64) throws -> Void
    ) throws -> Int {
        var count = 0
        var position = first
        var straddling = true   // only the first block looked at can start before `first`
        while position <= last {
            let block: (key: UInt64, items: [Item])? = try txn.withCursor(database) { cursor in
                var keys = StreamKeyCursor(cursor, stream: id, .index)
                let found = straddling ? try Self.seekBlock(&keys, holding: position) : try keys.seek(atOrAfter: position)
                guard let found, found.sequence <= last else { return nil }
                var items: [Item] = []
                try Self.decode(found.value, stream: id, first: found.sequence, seal: seal) { items.append($0); return true }
                return (found.sequence, items)
            }
            straddling = false
            guard let block, let end = block.items.last?.sequence else { break }
            let kept = block.items.filter { $0.sequence < first || $0.sequence > last }
            if kept.count != block.items.count {
                for item in block.items where item.sequence >= first && item.sequence <= last { try removing(item.sequence) }
                count += block.items.count - kept.count
                try txn.delete(database, key: KeyCoding.streamSequence(id, block.key))
                if let head = kept.first {
                    try txn.put(database, key: KeyCoding.streamSequence(id, head.sequence), value: Self.block(kept, stream: id))
                }
            }
            guard end < .max else { break }
            position = end + 1
        }
        return count
    }

    /// Writes a block of `items` bytes under (`id`, `first`), appending in place when its key is the largest; returns
    /// its checksum. Through `cursor`, which the stream's last block was just sought with: LMDB then finds the key on
    /// the page the cursor is on, where a put of the transaction's own looked it up from the root.
    @discardableResult
    private func put(
        _ cursor: Cursor, stream id: UInt32, first: UInt64, _ items: borrowing ByteBuffer, lastKey: inout (stream: UInt32, sequence: UInt64)
    ) throws -> UInt32 {
        let key = (id, first)
        let flags: WriteFlags = key > lastKey ? .append : []
        var checksum: UInt32 = 0
        try KeyCoding.withStreamSequence(id, first) { key in
            try cursor.reserve(key: key, size: Self.checksumSize + items.count, flags: flags) { value in
                items.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: value[Self.checksumSize...]).copyMemory(from: $0) }
                checksum = Self.sealChecksum(value, stream: id, first: first)
            }
        }
        if key > lastKey { lastKey = key }
        return checksum
    }

    // MARK: Converting

    /// Rewrites `records`, the per-entry index of a log of format version 1 to 4, as blocks in this index and drops
    /// it, inside `txn`. A key that is not 12 bytes is not an entry's and is left out (`verify` reported it before).
    func convert(_ txn: Transaction, records: Database) throws {
        var tips = Tips()
        var pending: [Item] = []
        var stream: UInt32 = 0
        try txn.withCursor(records) { cursor in
            var record = try cursor.first()
            while let current = record {
                if let key = KeyCoding.decodeStreamSequence(current.key) {
                    if key.stream != stream || pending.count == 65_536 {
                        try append(txn, stream: stream, pending, tips: &tips)
                        (pending, stream) = ([], key.stream)
                    }
                    pending.append(Self.item(key.sequence, record: current.value))
                }
                record = try cursor.next()
            }
        }
        try append(txn, stream: stream, pending, tips: &tips)
        try txn.drop(records)
    }

    /// Seals every block whose checksum covers its items alone (format versions 5 to 7) over its key and items
    /// (version 8), inside `txn`, the one that raises the log's version; returns how many. A block whose checksum
    /// matches neither way, or whose key is out of order with the key before or after it or whose items overlap the
    /// stream's block there (one of the two keys is damaged), is left as it is: damaged under the new seal, and read
    /// round, never sealed as sound.
    @discardableResult
    func sealKeys(_ txn: Transaction) throws -> Int {
        /// A block read and sound, by its place among the database's records, waiting for the block after it to tell
        /// whether they conflict; with the checksum that seals its key, unless it has it already.
        struct Pending {
            var place: Int, stream: UInt32, first: UInt64, last: UInt64, checksum: UInt32?, conflictsBefore: Bool
        }
        // First the blocks to seal, by place in the order of the pages, each with its checksum; then, in a second
        // walk, each rewritten where its node lies: a write that searched the tree for its key could land elsewhere
        // among keys damaged out of order, and leave the old block beside a copy.
        var sealing: [Int: UInt32] = [:]
        var pending: Pending?
        func settle(_ block: Pending, conflictsAfter: Bool) {
            if let checksum = block.checksum, !block.conflictsBefore && !conflictsAfter { sealing[block.place] = checksum }
        }
        try txn.withCursor(database) { cursor in
            var record = try cursor.first()
            var place = 0
            while let current = record {
                // A damaged block (or key) is passed over: the blocks either side of it are compared.
                if let key = KeyCoding.decodeStreamSequence(current.key),
                   let last = try? Self.decode(current.value, stream: key.stream, first: key.sequence, seal: .itemsOrKeyAndItems, { _ in true }) {
                    // Out of order (a stream id damaged in place), or overlapping (a number damaged).
                    let conflicts = pending.map { key.stream < $0.stream || (key.stream == $0.stream && key.sequence <= $0.last) } ?? false
                    if let before = pending { settle(before, conflictsAfter: conflicts) }
                    let checksum = Self.checksum(current.value, stream: key.stream, first: key.sequence)
                    pending = Pending(
                        place: place, stream: key.stream, first: key.sequence, last: last,
                        checksum: checksum == ByteReader(bytes: current.value).u32(0) ? nil : checksum, conflictsBefore: conflicts)
                }
                record = try cursor.next()
                place += 1
            }
            if let last = pending { settle(last, conflictsAfter: false) }
        }
        guard !sealing.isEmpty else { return 0 }
        try txn.withCursor(database) { cursor in
            var record = try cursor.first()
            var place = 0
            while let current = record {
                if let checksum = sealing[place] {
                    let (key, value) = (Array(current.key), Array(current.value))
                    try key.withUnsafeBytes { key in
                        try cursor.reserve(key: key, size: value.count, flags: .current) { stored in
                            value.withUnsafeBytes { stored.copyMemory(from: $0) }
                            ByteWriter(bytes: stored).u32(0, checksum)
                        }
                    }
                }
                record = try cursor.next()
                place += 1
            }
        }
        return sealing.count
    }

    /// Throws LMDB's error for a dropped database when a `records` index was converted since this reader opened it.
    private func requireUnconverted(_ txn: Transaction) throws {
        guard layout == .records, let meta,
              let version = try LogLayout.formatVersion(txn, meta: meta),
              version >= LogLayout.indexBlocksFormatVersion
        else { return }
        throw LMDBError.dropped(LogLayout.streamRecordsDatabase)
    }

    // MARK: The layouts

    /// The item of a version 1 to 4 record: its kind byte, then for an action an optional `u32` call-site number.
    private static func item(_ sequence: UInt64, record: UnsafeRawBufferPointer) -> Item {
        Item(sequence: sequence, kind: record.first ?? 0, site: record.count >= 5 ? ByteReader(bytes: record).u32(1) : 0)
    }

    /// The record of stream `id`'s block holding `items`, which are in order: its checksum, then the items.
    static func block(_ items: [Item], stream id: UInt32) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: checksumSize)
        var previous = items.first?.sequence ?? 0
        for item in items {
            encode(item, after: previous, into: &bytes)
            previous = item.sequence
        }
        _ = bytes.withUnsafeMutableBytes { sealChecksum($0, stream: id, first: items.first?.sequence ?? 0) }
        return bytes
    }

    /// The checksum of the block of stream `id` keyed `first` whose record is `block`: of the key, then the items.
    static func checksum(_ block: UnsafeRawBufferPointer, stream id: UInt32, first: UInt64) -> UInt32 {
        let key = withUnsafeBytes(of: first.bigEndian) { CRC32C.checksum($0, after: withUnsafeBytes(of: id.bigEndian) { CRC32C.checksum($0) }) }
        return CRC32C.checksum(UnsafeRawBufferPointer(rebasing: block[checksumSize...]), after: key)
    }

    /// The number block `block`'s key held before one of its bits changed into `key`: the one number a bit away
    /// from `key` that its checksum (which covers the key since format version 8) matches; `nil` when none or more
    /// than one does. A match cannot come from damage elsewhere in the block: CRC-32C tells apart any two messages
    /// of this size that differ in fewer than four bits.
    static func keyBeforeDamage(_ block: UnsafeRawBufferPointer, stream id: UInt32, key: UInt64) -> UInt64? {
        guard block.count >= checksumSize else { return nil }
        let stored = ByteReader(bytes: block).u32(0)
        let matching = (0..<64).lazy.map { key ^ (1 << $0) }.filter { stored == checksum(block, stream: id, first: $0) }
        guard let first = matching.first, matching.dropFirst().isEmpty else { return nil }
        return first
    }

    /// Stores in `block`'s first four bytes its checksum as format version 8 has it, under the key (`id`, `first`);
    /// returns it.
    @discardableResult
    private static func sealChecksum(_ block: UnsafeMutableRawBufferPointer, stream id: UInt32, first: UInt64) -> UInt32 {
        let checksum = checksum(UnsafeRawBufferPointer(block), stream: id, first: first)
        ByteWriter(bytes: block).u32(0, checksum)
        return checksum
    }

    /// Whether the checksum in `block`'s first four bytes matches it under the key (`id`, `first`), as `seal` reads it.
    private static func checksumMatches(_ block: UnsafeRawBufferPointer, stream id: UInt32, first: UInt64, seal: Seal) -> Bool {
        let stored = ByteReader(bytes: block).u32(0)
        switch seal {
        case .keyAndItems:
            return stored == checksum(block, stream: id, first: first)
        case .itemsOrKeyAndItems:
            return ByteReader(bytes: block).checksumMatches || stored == checksum(block, stream: id, first: first)
        }
    }

    /// The bytes `item` takes in a block after the item numbered `previous`.
    private static func size(of item: Item, after previous: UInt64) -> Int {
        Varint.size(item.sequence - previous) + 1 + (item.kind == EntryKind.action.rawValue ? Varint.size(UInt64(item.site)) : 0)
    }

    /// Appends `item` to a block's bytes: the distance from the item numbered `previous` (0 for a block's first),
    /// its kind byte, and for an action its call-site number, as varints.
    private static func encode<Sink: ByteSink & ~Copyable>(_ item: Item, after previous: UInt64, into bytes: inout Sink) {
        Varint.append(item.sequence - previous, to: &bytes)
        bytes.append(item.kind)
        if item.kind == EntryKind.action.rawValue { Varint.append(UInt64(item.site), to: &bytes) }
    }

    /// Calls `body` with each item of the block of stream `id` keyed `first`, until it returns `false`; a block
    /// whose checksum (as `seal` reads it) or items are wrong is an error, never a guess. Returns the number of the
    /// last item given.
    @discardableResult
    static func decode(
        _ block: UnsafeRawBufferPointer, stream id: UInt32, first: UInt64, seal: Seal, _ body: (Item) throws -> Bool
    ) throws -> UInt64 {
        func damaged(_ reason: String) -> EventLogError { .corruptIndex(streamID: id, block: first, reason: reason) }
        guard block.count > checksumSize else { throw damaged("it is \(block.count) bytes, too short to hold an entry") }
        let items = UnsafeRawBufferPointer(rebasing: block[checksumSize...])
        guard checksumMatches(block, stream: id, first: first, seal: seal) else { throw damaged("its checksum does not match") }
        var offset = 0
        var sequence = first
        while offset < items.count {
            guard let (distance, next) = Varint.read(items, at: offset), next < items.count else {
                throw damaged("an entry after #\(sequence) is cut short")
            }
            guard (offset == 0) == (distance == 0), distance <= UInt64.max - sequence else {
                throw damaged("an entry after #\(sequence) is out of order")
            }
            sequence += distance
            var item = Item(sequence: sequence, kind: items[next])
            offset = next + 1
            if item.kind == EntryKind.action.rawValue {
                guard let (site, after) = Varint.read(items, at: offset), let number = UInt32(exactly: site) else {
                    throw damaged("the call site of entry #\(sequence) is cut short")
                }
                (item.site, offset) = (number, after)
            }
            guard try body(item) else { return sequence }
        }
        return sequence
    }
}

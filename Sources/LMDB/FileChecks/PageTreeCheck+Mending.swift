/// What a reader's walk that mends (``PageTreeCheck/mendableRecords(inDataFile:databases:leavingOutPages:rootLeafKeySizes:)``) reads as it was written: a page's
/// records a bad bit damaged where LMDB finds them (``MendedRecord``). Each method notes the mend in ``mended`` and gives
/// the walk what it then reads. LMDB lays a page's nodes end to end from `upper` to the page's end, each 8 bytes of
/// header, the key and the value (a branch's: the key), made even; most mends are the one value, one bit from what the
/// page states, that makes them do so again.
extension PageTreeCheck.Walker {
    /// The page read last, as its mends name it.
    struct Place {
        let page: UInt64
        let tree: String
        let isBranch: Bool
    }

    /// Notes a mend of the page read last: `bytes` at `offsetInPage` of it.
    mutating func note(_ damage: MendedRecord.Damage, at offsetInPage: Int, bytes: [UInt8], node: Int, _ place: Place,
                               valueSize: Int, nodeOffset: Int, keySize: Int) {
        mended.append(MendedRecord(
            damage: damage, fileOffset: Int(place.page) * pageSize + offsetInPage, bytes: bytes, page: place.page, node: node,
            tree: place.tree, valueSize: valueSize, offsetInPage: nodeOffset, keySize: keySize))
    }

    /// 2 bytes, little-endian.
    private static func bytes(_ value: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian, Array.init)
    }

    /// The extent of the node at `offset` of the page read last, as LMDB lays it.
    private func extent(_ place: Place) -> (Int) -> Int {
        { [buffer] offset in Node(buffer, at: offset).evenSize(isBranch: place.isBranch) }
    }

    /// `upper`, or where the nodes start where `upper` is one bad bit from it (LMDB's readers do not read `upper`, but its
    /// compacting copy copies the page by it).
    mutating func mendUpper(_ upper: Int, lower: Int, _ place: Place) -> Int {
        guard lower >= 16, lower <= pageSize, (lower - 16) % 2 == 0 else { return upper }
        let offsets = (0..<(lower - 16) / 2).map(nodeOffset)
        guard let start = MendedRecord.upperFilling(offsets, stated: upper, pageSize: pageSize, extent: extent(place)) else { return upper }
        note(.upper(stated: upper), at: 14, bytes: Self.bytes(start), node: 0, place, valueSize: 0, nodeOffset: start, keySize: 0)
        return start
    }

    /// The node whose offset a bad bit changed, and where it lies, where one bit from it the page's `count` nodes lie end
    /// to end; `nil` where none did.
    mutating func mendOffset(count: Int, upper: Int, _ place: Place) -> (index: Int, offset: Int)? {
        guard let found = MendedRecord.offsetFilling((0..<count).map(nodeOffset), upper: upper, pageSize: pageSize, extent: extent(place))
        else { return nil }
        let node = Node(buffer, at: found.offset)
        note(.offset(stated: nodeOffset(found.index)), at: 16 + 2 * found.index, bytes: Self.bytes(found.offset), node: found.index, place,
             valueSize: node.dataSize, nodeOffset: found.offset, keySize: node.keySize)
        return found
    }

    /// Mends `node`'s key size, which runs past the page, where one bit from it the node fills its `room`.
    mutating func mendKeySize(of node: inout Node, index: Int, room: Int, _ place: Place) {
        let besides = place.isBranch ? 0 : node.flags & 0x01 != 0 ? 8 : node.dataSize
        guard let keySize = MendedRecord.sizeFilling(room: room, besides: besides, stated: node.keySize) else { return }
        note(.keySize(stated: node.keySize), at: node.offset + 6, bytes: Self.bytes(keySize), node: index, place,
             valueSize: node.dataSize, nodeOffset: node.offset, keySize: keySize)
        node.keySize = keySize
    }

    /// The flags a leaf's `node` is read by (`read`, of its flags), those LMDB never gives such a record cleared, in the
    /// main database (`inMainDatabase`) or a named one's tree.
    mutating func mendFlags(of node: inout Node, read: UInt16, index: Int, inMainDatabase: Bool, _ place: Place) -> UInt16 {
        let wrong = MendedRecord.wrongFlags(
            read, inMainDatabase: inMainDatabase, keySize: node.keySize, valueSize: node.dataSize, valueEnd: node.dataStart + node.dataSize,
            pageSize: pageSize)
        guard wrong != 0 else { return read }
        node.flags &= ~wrong
        note(.flags(cleared: wrong), at: node.offset, bytes: MendedRecord.header(valueSize: node.dataSize, flags: node.flags), node: index, place,
             valueSize: node.dataSize, nodeOffset: node.offset, keySize: node.keySize)
        return read & ~wrong
    }

    /// Mends a leaf's `node` whose value's size runs past the page to `size`, which fills its place.
    mutating func mendSize(of node: Node, to size: Int, index: Int, _ place: Place) {
        note(.size(stated: node.dataSize), at: node.offset, bytes: MendedRecord.header(valueSize: size, flags: node.flags), node: index, place,
             valueSize: size, nodeOffset: node.offset, keySize: node.keySize)
    }

    /// A 48-byte value of the main database without a named database's flag (0x02), as the page read last holds it: a
    /// named database's record, where a bad bit cleared that flag (LMDB then refuses to open the database).
    struct Unflagged {
        let place: Place
        let node: Node
        let index: Int
        let name: String
        /// The value's bytes, read as a database's record (LMDB's `MDB_db`): what it counts, and the rest.
        let counted: Tally
        let padding: UInt32, flags: UInt16, depth: UInt16, root: UInt64
    }

    /// Notes the main database's `node` of the page read last, a 48-byte value without a named database's flag, for
    /// ``mendDatabaseFlags()``.
    mutating func noteUnflagged(_ node: Node, index: Int, _ place: Place) {
        let at = node.dataStart
        unflagged.append(Unflagged(
            place: place, node: node, index: index, name: databaseName(node), counted: Tally(described: buffer, at: at),
            padding: Self.integer(buffer, at), flags: Self.integer(buffer, at + 4), depth: Self.integer(buffer, at + 6),
            root: Self.integer(buffer, at + 40)))
    }

    /// Mends each of the main database's values noted by ``noteUnflagged(_:index:_:)`` that is a named database's record
    /// a bad bit took the flag from, as its 48 bytes show once the trees are walked: they describe a tree no other record
    /// reaches (LMDB's persistent flags, keys alone, no padding; from its root, pages of the depth it states, as many as
    /// it counts, sound, holding as many records as it counts), or an empty one (no root, nothing counted). The tree is
    /// walked then, as the record's.
    mutating func mendDatabaseFlags() {
        let candidates = unflagged
        unflagged = []
        for candidate in candidates where candidate.padding == 0 && candidate.flags & ~0x0A == 0 {
            if candidate.root == UInt64.max {
                guard candidate.depth == 0, candidate.counted == Tally() else { continue }
            } else {
                // The tree walked as the record's, and taken back where it is not sound or not what the record counts.
                let mark = mark(), before = tallies[candidate.name] ?? Tally()
                guard (try? walk(root: candidate.root, depth: candidate.depth, tree: candidate.name, named: false, free: false)) != nil,
                      (tallies[candidate.name] ?? Tally()).since(before) == candidate.counted
                else {
                    undo(to: mark)
                    continue
                }
            }
            let node = candidate.node
            note(.databaseFlag(database: candidate.name), at: node.offset, bytes: MendedRecord.header(valueSize: 48, flags: node.flags | 0x02),
                 node: candidate.index, candidate.place, valueSize: 48, nodeOffset: node.offset, keySize: node.keySize)
        }
    }

    /// A named database's record in the main database, as the page read last holds it, and its key: the database's name.
    struct DatabaseRecord {
        let place: Place
        let node: Node
        let index: Int
        let key: [UInt8]
    }

    /// Checks the names of the main database's named databases' records against ``databaseNames``: a record whose name
    /// is none of them, but one bit from exactly one that no record has, is that database's, renamed by a bad bit. LMDB
    /// would not find the database (a writer would make a new, empty one in its place), so the walk refuses it; a
    /// ``mending`` walk mends it.
    mutating func checkDatabaseNames() throws {
        let records = databaseRecords
        databaseRecords = []
        let missing = databaseNames.subtracting(records.map(\.key))
        for record in records where !databaseNames.contains(record.key) {
            let near = missing.filter { name in
                name.count == record.key.count && zip(name, record.key).reduce(0) { $0 + ($1.0 ^ $1.1).nonzeroBitCount } == 1
            }
            guard near.count == 1, let name = near.first else { continue }
            let database = "database '\(String(decoding: name, as: UTF8.self))'", stated = MendedRecord.shown(record.key)
            guard mending else {
                throw PageTreeCheck.Failure(reason: "the main database names its record of \(database) '\(stated)', one bit from that name, which no record has")
            }
            let node = record.node
            note(.databaseName(stated: stated, database: database), at: node.offset + 8, bytes: name, node: record.index, record.place,
                 valueSize: node.dataSize, nodeOffset: node.offset, keySize: node.keySize)
        }
    }
}

extension PageTreeCheck.Walker {
    /// A leaf's record without the big-data flag (0x01) whose place in its page holds an overflow run's page number and
    /// no more, though its value is too large for LMDB to keep in a page: a record whose flag a bad bit may have
    /// cleared, which ``checkClearedBigData(_:)`` judges once the page's nodes are read.
    struct ClearedBigData {
        let place: Place
        let node: Node
        let index: Int
        /// The page number the record's place holds: where its overflow run starts, if the flag was cleared.
        let first: UInt64
        /// Whether the value, read as held in its page, lies in the file: what a reader makes of the record where it is
        /// not mended (its bytes are then another's, which the record's checksum finds).
        let readsInFile: Bool
    }

    /// `node`, a leaf's record without the big-data flag, as a record whose flag a bad bit may have cleared: its value is
    /// larger than LMDB keeps in a page (``MendedRecord/largestNode(pageSize:)``) and its place (`room`, asked only then) holds its key
    /// and 8 bytes, as a big-data record's does; `nil` where it is not.
    func clearedBigData(_ node: Node, index: Int, room: () -> Int, readsInFile: Bool, _ place: Place) -> ClearedBigData? {
        // The size first: `room` reads every node's offset, and a reader asks this of every record.
        guard 8 + node.keySize + node.dataSize > MendedRecord.largestNode(pageSize: pageSize),
              (8 + node.keySize + 8 + 1) & ~1 == room(), node.dataStart + 8 <= pageSize
        else { return nil }
        return ClearedBigData(place: place, node: node, index: index, first: Self.integer(buffer, node.dataStart), readsInFile: readsInFile)
    }

    /// The overflow pages LMDB gives a value of `size` bytes (`OVPAGES`): its 16-byte header and the value, in whole pages.
    func overflowPages(size: Int) -> UInt64 {
        UInt64((16 - 1 + size) / pageSize + 1)
    }

    /// Whether `record`'s page number starts an overflow run of exactly the pages its value takes, none of them reached
    /// by the walk so far or named by the free list.
    func startsItsRun(_ record: ClearedBigData) -> Bool {
        let first = record.first, pages = overflowPages(size: record.node.dataSize)
        guard first >= 2, first <= lastPage, first + pages <= filePages, first + pages - 1 <= lastPage else { return false }
        let header = Int(first) * pageSize
        let flags: UInt16 = Self.integer(file, header + 10), stated: UInt32 = Self.integer(file, header + 12)
        guard flags & flagsRead == 0x04, UInt64(stated) == pages else { return false }
        return (first..<first + pages).allSatisfy { !isReached($0) && !isListedFree($0) }
    }

    /// Judges `record` (``clearedBigData(_:index:room:readsInFile:_:)``): where its page number starts an overflow run of
    /// exactly the pages its value takes that nothing else reaches, its flag was cleared by a bad bit. LMDB then reads the
    /// page number and the bytes after it as the value, so a reader is refused the record, and a ``mending`` walk reads
    /// the run as the record's and mends the flag. Otherwise the record is read as it states, as LMDB reads it: a value
    /// that runs past the file is damage.
    mutating func checkClearedBigData(_ record: ClearedBigData) throws {
        let node = record.node, pages = overflowPages(size: node.dataSize)
        if startsItsRun(record) {
            let tree = record.place.tree
            guard mending else {
                throw PageTreeCheck.Failure(
                    reason: "node \(record.index) of page \(record.place.page) (\(tree)) lacks the big-data flag, though its \(node.dataSize) bytes lie on the \(pages) overflow pages from page \(record.first), which nothing else reaches")
            }
            try checkOverflow(record.first, size: node.dataSize, tree: tree, free: false, key: nil)
            note(.bigDataFlag(first: record.first, pages: Int(pages)), at: node.offset,
                 bytes: MendedRecord.header(valueSize: node.dataSize, flags: node.flags | 0x01), node: record.index, record.place,
                 valueSize: node.dataSize, nodeOffset: node.offset, keySize: node.keySize)
            return
        }
        guard node.dataStart + node.dataSize <= pageSize || record.readsInFile else {
            throw PageTreeCheck.Failure(reason: "the value of node \(record.index) of page \(record.place.page) (\(record.place.tree)) runs past its page")
        }
    }
}

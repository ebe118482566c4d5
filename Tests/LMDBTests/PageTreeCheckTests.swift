import Foundation
@testable import LMDB
import TestSupport
import Testing

/// `PageTreeCheck` reads a data file's pages in place from a read-only map: every page it touches must lie inside
/// the file, whatever the file's own pages claim.
@Suite("Page tree check")
struct PageTreeCheckTests {
    let scratch = ScratchDirectory()

    /// The data file of a new environment in the scratch directory `name`, whose database "values" each of `writes`
    /// (a transaction each) filled, and its bytes.
    func dataFile(_ name: String, writes: [(Transaction, Database) throws -> Void]) throws -> (path: String, bytes: [UInt8]) {
        let directory = scratch.file(name)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        do {
            let env = try Environment(path: directory)
            let db = try env.openDatabase("values", flags: .create)
            for write in writes { try env.write { txn in try write(txn, db) } }
        }
        let path = directory + "/data.mdb"
        return (path, try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// A data file of ten values in "values": "key0"…"key9", "value-0"…"value-9", in one leaf page.
    func tenValues(_ name: String) throws -> (path: String, bytes: [UInt8]) {
        try dataFile(name, writes: [{ txn, db in
            for index in 0..<10 { try txn.put(db, key: Array("key\(index)".utf8), value: Array("value-\(index)".utf8)) }
        }])
    }

    /// A data file whose last pages are one value's run of overflow pages (a 1 MiB value, 257 pages), written last.
    func fileEndingInOverflowPages() throws -> (path: String, bytes: [UInt8]) {
        try dataFile("overflow", writes: [
            { txn, db in try txn.put(db, key: Array("small".utf8), value: Array("value".utf8)) },
            { txn, db in try txn.put(db, key: Array("large".utf8), value: [UInt8](repeating: 7, count: 1 << 20)) },
        ])
    }

    /// The offsets in `bytes`, a data file, of the leaf nodes that hold `key` (the key's own offset: its size, 2 bytes,
    /// lies before it); pages LMDB freed may hold older copies.
    func leafNodes(holding key: [UInt8], in bytes: [UInt8]) -> [Int] {
        (8192..<bytes.count - key.count).filter { at in
            bytes[at - 2] == key.count && bytes[at - 1] == 0 && Array(bytes[at..<at + key.count]) == key && bytes[at - at % 4096 + 10] & 2 != 0
        }
    }

    /// The free list's pages, written last, are the first a cut takes: a writer is refused there; a reader, which never
    /// reads the free list, where the cut reaches the value's overflow run.
    @Test("a sound file passes; a cut one is refused at the first page past its end")
    func cutFile() throws {
        let (path, bytes) = try fileEndingInOverflowPages()
        #expect(PageTreeCheck.problem(inDataFile: path) == nil)
        for pages in [1, 100, 250] {
            let cut = scratch.file("cut-\(pages).mdb")
            try Data(bytes.prefix(bytes.count - pages * 4096)).write(to: URL(fileURLWithPath: cut))
            guard case .damaged(let reason)? = PageTreeCheck.problem(inDataFile: cut, forWriting: true) else {
                Issue.record("a file cut by \(pages) pages passed")
                continue
            }
            #expect(reason.contains("cannot be read whole"), "\(pages) pages cut: \(reason)")
            if pages > 1 {
                #expect(PageTreeCheck.problem(inDataFile: cut) == .damaged(
                    "has a damaged page structure (overflow page 8 of database 'values' runs past the file's end)"))
            }
        }
    }

    @Test("an overflow run that claims pages past the file's end is refused, even when the meta pages claim them too")
    func overflowRunPastTheEnd() throws {
        var (_, bytes) = try fileEndingInOverflowPages()
        func store<T: FixedWidthInteger>(_ value: T, at offset: Int) {
            withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + MemoryLayout<T>.size, with: $0) }
        }
        // Both meta pages say the file has 2^30 pages (its last page number at byte 136), and the overflow run's
        // first page (flags 0x04 at byte 10) that its value takes 2^20 of them (a count at byte 12).
        store(UInt64(1 << 30), at: 136)
        store(UInt64(1 << 30), at: 4096 + 136)
        let overflow = try #require((2..<bytes.count / 4096).first { bytes[$0 * 4096 + 10] & 0x04 != 0 })
        store(UInt32(1 << 20), at: overflow * 4096 + 12)
        let damaged = scratch.file("claims.mdb")
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        guard case .damaged(let reason)? = PageTreeCheck.problem(inDataFile: damaged) else {
            Issue.record("an overflow run past the file's end passed")
            return
        }
        #expect(reason.contains("overflow page \(overflow)") && reason.contains("runs past the file's end"), "\(reason)")
    }

    @Test("a named database whose name is damaged is not named with the damaged bytes: a damaged key size makes the name run into other bytes")
    func damagedName() throws {
        var (_, bytes) = try fileEndingInOverflowPages()
        // The main database's node for "values": flags (0x02, a database) 4 bytes and the key size (6) 2 bytes before
        // the key, its 48-byte record right after it, the record's depth at its byte 6.
        let key = Array("values".utf8)
        func isNode(_ offset: Int) -> Bool {
            bytes[offset - 2] == 6 && bytes[offset - 4] & 0x02 != 0 && Array(bytes[offset..<offset + 6]) == key
        }
        // Each copy of the node: the main database's page of an earlier commit may remain.
        let nodes = (8192..<bytes.count - 64).filter(isNode)
        try #require(!nodes.isEmpty)
        for at in nodes {
            bytes[at] = 0x01
            bytes[at + 6 + 6] = 0
            bytes[at + 6 + 7] = 0
        }
        let damaged = scratch.file("name.mdb")
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        guard case .damaged(let reason)? = PageTreeCheck.problem(inDataFile: damaged) else {
            Issue.record("a database of depth 0 passed")
            return
        }
        #expect(reason == "has a damaged page structure (a database whose name is damaged declares an impossible depth 0)", "\(reason)")
    }
    @Test("a page marked with a flag LMDB acts on only when it writes is refused for writing and read on; a page of fixed-size keys is refused for both")
    func flagsOnlyAWriterActsOn() throws {
        let (_, bytes) = try fileEndingInOverflowPages()
        // The leaf page of "values" (flags at byte 10, 0x02 a leaf) holding both keys: the first commit's copy, with
        // "small" alone, is no longer reached.
        let leaf = try #require((2..<bytes.count / 4096).first { page in
            let contents = bytes[page * 4096..<(page + 1) * 4096]
            return bytes[page * 4096 + 10] == 0x02 && contents.firstRange(of: Array("small".utf8)) != nil
                && contents.firstRange(of: Array("large".utf8)) != nil
        })
        for (flag, reading) in [(UInt8(0x10), true), (0x40, true), (0x08, true), (0x20, false)] {
            var marked = bytes
            marked[leaf * 4096 + 10] |= flag
            let path = scratch.file("flag-\(flag).mdb")
            try Data(marked).write(to: URL(fileURLWithPath: path))
            // Dirty (0x10): before, a writer took the page for one of its own transaction and wrote into it in place,
            // through LMDB's read-only map: SIGSEGV at the first commit.
            guard case .damaged(let reason)? = PageTreeCheck.problem(inDataFile: path, forWriting: true) else {
                Issue.record("a page flagged \(flag) passed for writing")
                continue
            }
            let shape = reading
                ? "is marked with flags no page on disk has (\(2 | Int(flag))), which a writer would act on"
                : "is neither a branch nor a leaf page (flags \(2 | Int(flag)))"
            #expect(reason == "has a damaged page structure (page \(leaf) of database 'values' \(shape))")
            #expect((PageTreeCheck.problem(inDataFile: path) == nil) == reading, "flag \(flag) for reading")
        }
    }

    @Test(
        "a record whose key size grew past its page's end is read for reading while it stays in the file, refused for writing",
        arguments: [UInt16(7), UInt16(5 + 0x8000)])
    func keySizePastThePage(size: UInt16) throws {
        var (path, bytes) = try fileEndingInOverflowPages()
        // The leaf node of "small" ends its page (LMDB lays a page's nodes from its end, and "small" came first): its
        // key size (2 bytes before the key) is 5, and 5 bytes of value end the page. A bad bit makes the size 7 or 32,773.
        let key = Array("small".utf8)
        let nodes = leafNodes(holding: key, in: bytes).filter { at in (at + 10) % 4096 == 0 }
        try #require(!nodes.isEmpty)
        for at in nodes { withUnsafeBytes(of: size.littleEndian) { bytes.replaceSubrange(at - 2..<at, with: $0) } }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // Only a writer's copy or split of the page would write past it.
        #expect(PageTreeCheck.problem(inDataFile: path) == nil)
        guard case .damaged(let reason)? = PageTreeCheck.problem(inDataFile: path, forWriting: true) else {
            Issue.record("a key size past the page passed for writing")
            return
        }
        #expect(reason.contains(size == 7 ? "the value of node 1 of page" : "the key of node 1 of page") && reason.contains("runs past its page"), "\(reason)")
        // LMDB reads the record, key and value, from bytes of the file: the key begins as it did.
        var options = EnvironmentOptions()
        options.readOnly = true
        let env = try Environment(path: URL(fileURLWithPath: path).deletingLastPathComponent().path, options: options)
        let db = try env.openDatabase("values")
        let read = try env.read { txn in
            try txn.withCursor(db) { cursor in
                var found: [(key: Int, value: Int, prefix: [UInt8])] = []
                var item = try cursor.first()
                while let current = item {
                    found.append((current.key.count, current.value.count, Array(current.key.prefix(5))))
                    item = try cursor.next()
                }
                return found
            }
        }
        #expect(read.map(\.key) == [5, Int(size)] && read.map(\.prefix) == [Array("large".utf8), key] && read[1].value == 5)
    }

    /// LMDB's readers find a page by its place in the file; a writer frees and copies it by the number it stores.
    /// LMDB frees a root that loses its last node, so no page it reaches is empty. A bad bit that lowered a root leaf's
    /// `lower` to 16 (two nodes, 20, to none) was let through, and LMDB's cursor, stepping to the last node, read node
    /// 65535 past the map: every command died of SIGBUS (found by a sweep of page-header flips, 2026-12-06).
    @Test("a leaf that holds no node, its lower a bad bit lowered, is refused for reading and writing")
    func emptyLeaf() throws {
        let (path, bytes) = try dataFile("empty-leaf", writes: [{ txn, db in
            for index in 0..<2 { try txn.put(db, key: Array("key\(index)".utf8), value: Array("value-\(index)".utf8)) }
        }])
        let leaf = try #require(leafNodes(holding: Array("key1".utf8), in: bytes).first) / 4096
        #expect(bytes[leaf * 4096 + 12] == 20 && bytes[leaf * 4096 + 13] == 0, "two nodes")
        var damaged = bytes
        damaged[leaf * 4096 + 12] ^= 0x04
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        for forWriting in [false, true] {
            #expect(PageTreeCheck.problem(inDataFile: path, forWriting: forWriting) == .damaged(
                "has a damaged page structure (page \(leaf) of database 'values' holds no node)"), "forWriting: \(forWriting)")
        }
    }

    @Test("a page's stored number a bit or a byte off is read for reading and refused for writing; one gone astray is refused for both")
    func storedPageNumber() throws {
        let (path, bytes) = try tenValues("page-number")
        let key = Array("key5".utf8)
        let holdsKey = { (page: Int) -> Bool in
            bytes[page * 4096 + 10] == 0x02 && bytes[page * 4096..<(page + 1) * 4096].firstRange(of: key) != nil
        }
        let leaf = try #require((2..<bytes.count / 4096).first(where: holdsKey))
        // A bit, a whole byte (the low one, the sixth), or bits of two bytes, which no bad bit or byte leaves.
        let damages: [(UInt64, Bool)] = [(1, true), (1 << 7, true), (1 << 35, true), (1 << 63, true), (0xFF, true), (0xA5 << 40, true), (0x0101_0000, false)]
        for (mask, reading) in damages {
            var damaged = bytes
            let stored = UInt64(leaf) ^ mask
            withUnsafeBytes(of: stored.littleEndian) { damaged.replaceSubrange(leaf * 4096..<leaf * 4096 + 8, with: $0) }
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            #expect(PageTreeCheck.problem(inDataFile: path, forWriting: true) == .damaged("has a damaged page structure (page \(leaf) says it is page \(stored))"))
            #expect((PageTreeCheck.problem(inDataFile: path) == nil) == reading, "mask \(mask)")
            guard reading else { continue }
            var options = EnvironmentOptions()
            options.readOnly = true
            let env = try Environment(path: URL(fileURLWithPath: path).deletingLastPathComponent().path, options: options)
            let db = try env.openDatabase("values")
            let value = try env.read { txn in try txn.get(db, key: key).map { Array($0) } }
            #expect(value == Array("value-5".utf8))
        }
    }

    /// Before 2026-12-04 the check passed it, and a trim that deleted a record of such a page aborted in
    /// LMDB's memory allocator (`malloc(): invalid size`): LMDB moved the page's nodes by the sizes they state.
    @Test("a node whose key size grew into the next node's bytes is read for reading, refused for writing")
    func keySizeIntoTheNextNode() throws {
        var (path, bytes) = try tenValues("grown")
        // Written in order, key0 ends the page and key5 lies below key4: a size of 20, not 4, runs 16 bytes into key4.
        let key = Array("key5".utf8)
        let nodes = leafNodes(holding: key, in: bytes)
        try #require(!nodes.isEmpty)
        for at in nodes { bytes[at - 2] = 20 }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(PageTreeCheck.problem(inDataFile: path) == nil)
        guard case .damaged(let reason)? = PageTreeCheck.problem(inDataFile: path, forWriting: true) else {
            Issue.record("a key size into the next node passed for writing")
            return
        }
        #expect(reason.contains("node 5 of page") && reason.contains("(database 'values') runs into node 4, which a writer would write over"), "\(reason)")
    }
}

extension PageTreeCheckTests {
    /// LMDB reads a record by three of its flags: big data (bit 0), a sub-database (bit 1) and duplicates (bit 2), the
    /// last of which, on a database without duplicates, makes its cursor follow a sub-cursor it does not have. Before
    /// 2026-12-04 a bad bit in any of a record's 16 flag bits refused the log to readers.
    @Test(
        "a record's flag bit LMDB does not read it by is passed over for reading and refused for writing; sub-database and duplicates are refused for both",
        arguments: 1..<16)
    func recordFlag(bit: Int) throws {
        var (path, bytes) = try tenValues("flag-\(bit)")
        let key = Array("key5".utf8)
        let nodes = leafNodes(holding: key, in: bytes)
        try #require(!nodes.isEmpty)
        // The node's flags lie 4 bytes before its key: after its data size, before its key size.
        for at in nodes { bytes[at - 4 + bit / 8] ^= UInt8(1 << (bit % 8)) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let forWriting = PageTreeCheck.problem(inDataFile: path, forWriting: true)
        guard case .damaged(let reason)? = forWriting else {
            Issue.record("a record's flag \(bit) passed for writing")
            return
        }
        if bit <= 2 {
            #expect(PageTreeCheck.problem(inDataFile: path) == forWriting)
            return
        }
        #expect(reason.contains("node 5 of page") && reason.contains("(database 'values') has flags no record has (\(1 << bit))"), "\(reason)")
        #expect(PageTreeCheck.problem(inDataFile: path) == nil)
        // Readers read the record whole: LMDB passes over that flag.
        var options = EnvironmentOptions()
        options.readOnly = true
        let env = try Environment(path: String(path.dropLast("/data.mdb".count)), options: options)
        let value = try env.read { txn in
            try txn.get(try #require(try txn.openDatabase("values")), key: key).map { Array($0) }
        }
        #expect(value == Array("value-5".utf8))
    }

    /// A named database's record, in the main database, is opened by the same three flags.
    @Test("a named database's record with a flag bit LMDB does not open it by: opened for reading, refused for writing")
    func namedDatabaseFlag() throws {
        var (path, bytes) = try dataFile("named-flag", writes: [{ txn, db in try txn.put(db, key: Array("key".utf8), value: Array("value".utf8)) }])
        let name = Array("values".utf8)
        let nodes = leafNodes(holding: name, in: bytes)
        try #require(!nodes.isEmpty)
        for at in nodes { bytes[at - 3] ^= 0x01 }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        guard case .damaged(let reason)? = PageTreeCheck.problem(inDataFile: path, forWriting: true) else {
            Issue.record("a named database's record flag 0x100 passed for writing")
            return
        }
        #expect(reason.contains("(the main database) has flags no record has (258)"), "\(reason)")
        #expect(PageTreeCheck.problem(inDataFile: path) == nil)
        var options = EnvironmentOptions()
        options.readOnly = true
        let env = try Environment(path: String(path.dropLast("/data.mdb".count)), options: options)
        let value = try env.read { txn in
            try txn.get(try #require(try txn.openDatabase("values")), key: Array("key".utf8)).map { Array($0) }
        }
        #expect(value == Array("value".utf8))
    }

    /// The transaction ids of the two meta pages of the data file `bytes`.
    func transactions(_ bytes: [UInt8]) -> [UInt64] {
        metaValues(bytes, at: 144)
    }

    @Test("the meta pages' transaction ids that a new file, its commits and a compacting copy leave pass for writing")
    func soundTransactionIDs() throws {
        for commits in 0...3 {
            let (path, bytes) = try dataFile("commits-\(commits)", writes: Array(repeating: { txn, db in
                try txn.put(db, key: Array("key".utf8), value: Array("value".utf8))
            }, count: commits))
            #expect(PageTreeCheck.problem(inDataFile: path, forWriting: true) == nil, "\(transactions(bytes))")
        }
        let (path, _) = try dataFile("copied", writes: [{ txn, db in try txn.put(db, key: Array("key".utf8), value: Array("value".utf8)) }])
        for compact in [true, false] {
            let copy = scratch.file("copy-\(compact).mdb")
            let descriptor = open(copy, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            try Environment(path: String(path.dropLast("/data.mdb".count))).copy(toDescriptor: descriptor, compact: compact)
            let copied = try [UInt8](Data(contentsOf: URL(fileURLWithPath: copy)))
            #expect(PageTreeCheck.problem(inDataFile: copy, forWriting: true) == nil, "\(transactions(copied))")
        }
    }

    /// A writer commits over the meta page LMDB does not read, which a damaged id may have made the last commit's.
    @Test(
        "meta pages whose transaction ids no run of commits leaves are refused for writing and read on",
        arguments: [(144, UInt8(0x01)), (144, UInt8(0x80)), (4096 + 144, UInt8(0x80)), (4096 + 145, UInt8(0x01))] as [(Int, UInt8)])
    func damagedTransactionID(offset: Int, mask: UInt8) throws {
        var (path, bytes) = try dataFile("transaction-\(offset)-\(mask)", writes: Array(repeating: { txn, db in
            try txn.put(db, key: Array("key".utf8), value: Array("value".utf8))
        }, count: 4))
        bytes[offset] ^= mask
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let ids = transactions(bytes)
        guard case .damaged(let reason)? = PageTreeCheck.problem(inDataFile: path, forWriting: true) else {
            Issue.record("meta pages with transaction ids \(ids) passed for writing")
            return
        }
        #expect(reason == "has meta pages whose transaction ids, \(ids[0]) and \(ids[1]), no run of commits leaves (page 0 holds an even one, page 1 the odd one next to it): one is damaged, and the page LMDB reads may hold the commit before the last")
        #expect(PageTreeCheck.problem(inDataFile: path) == nil)
    }

    /// A bad bit that lowers the last commit's id below the other page's, or raises the commit before's above it, keeps
    /// the ids' pattern (page 0 even, page 1 the odd one next to it) and made LMDB read the commit before the last, and a
    /// writer commit over the last, without a word. The free lists tell: none names an id above its own page's, and the
    /// trees of the commit after never start at a page the commit before freed.
    @Test(
        "meta pages whose ids keep their pattern but make the commit before current are named, and refused for writing",
        arguments: [false, true])
    func commitBeforeMadeCurrent(raiseTheOther: Bool) throws {
        var (path, bytes, ids, current) = try fourCommits("made-current-\(raiseTheOther)")
        #expect(PageTreeCheck.transactionProblem(inDataFile: path) == nil)
        // Lower the last commit's id by two, or raise the commit before's by two: the same parity, one apart.
        let (page, id) = raiseTheOther ? (1 - current, ids[1 - current] + 2) : (current, ids[current] - 2)
        withUnsafeBytes(of: id.littleEndian) { bytes.replaceSubrange(page * 4096 + 144..<page * 4096 + 152, with: $0) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let damaged = transactions(bytes)
        // The pattern commits leave, which the ids alone cannot tell from the sound file's.
        #expect(damaged[0] % 2 == 0 && damaged[1] % 2 == 1 && max(damaged[0], damaged[1]) - min(damaged[0], damaged[1]) == 1, "\(damaged)")
        let roots = metaValues(bytes, at: 128)
        let reason = raiseTheOther
            ? "has meta pages whose transaction ids, \(damaged[0]) and \(damaged[1]), disagree with their free lists: page \(page)'s trees start at page \(roots[page]), which the commit of page \(1 - page) freed, so one id is damaged, and the page LMDB reads may hold the commit before the last"
            : "has meta pages whose transaction ids, \(damaged[0]) and \(damaged[1]), disagree with their free lists: page \(page)'s files pages under transaction \(ids[current]), above its own id, so that id or the record's key is damaged, and the page LMDB reads may hold the commit before the last"
        #expect(PageTreeCheck.transactionProblem(inDataFile: path) == reason)
        #expect(PageTreeCheck.problem(inDataFile: path, forWriting: true) == .damaged(reason))
        #expect(PageTreeCheck.problem(inDataFile: path) == nil)
    }

    /// A bad bit in a free-list record's key, above the page's own id, trips the same rule: LMDB reads the last commit
    /// all the same, so readers read on, but a writer, whose commits read those keys, is refused the file.
    @Test("a free-list key raised above its page's id is named, and refused for writing only")
    func freeListKeyAboveItsPage() throws {
        var (path, bytes, ids, current) = try fourCommits("free-key")
        // The first record's key, 8 bytes after its node's header.
        let (_, node) = try firstFreeNode(bytes, current)
        bytes[node + 8 + 3] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reason = try #require(PageTreeCheck.transactionProblem(inDataFile: path))
        #expect(reason.hasPrefix("has meta pages whose transaction ids, \(ids[0]) and \(ids[1]), disagree with their free lists: page \(current)'s files pages under transaction "), "\(reason)")
        #expect(reason.contains("so that id or the record's key is damaged"))
        #expect(PageTreeCheck.problem(inDataFile: path, forWriting: true) == .damaged(reason))
        #expect(PageTreeCheck.problem(inDataFile: path) == nil)
    }

    /// A damaged free list, and nothing else: LMDB's readers never read the free list, so they read the last commit as it
    /// is, and only a writer, whose commits take pages from it, is refused. A reader's walk goes on to the main database.
    @Test(
        "a free list damaged by a bad bit is refused for writing and passed over for reading, whose walk goes on",
        arguments: ["a freed page's number", "a page named twice", "a page of its own tree", "the record's count", "the free list's root", "and the main root"])
    func freeListDamage(damage: String) throws {
        var (path, bytes, _, current) = try fourCommits("free-damage-\(damage.filter(\.isLetter))")
        let lastPage = metaValues(bytes, at: 136)[current]
        // The first record, after its node's 8-byte header and 8-byte key: a count, then the freed pages' numbers.
        let (root, node) = try firstFreeNode(bytes, current)
        let record = node + 16
        let freed = integer(bytes, at: record + 8)
        let reason: String
        switch damage {
        case "a freed page's number":
            bytes[record + 8 + 5] ^= 0x01
            reason = "the free list names page \(freed | 1 << 40), outside pages 2…\(lastPage)"
        case "a page named twice", "a page of its own tree":
            // A bad bit that turns one number into another the free list names, or into its own leaf's.
            let named = damage == "a page named twice" ? integer(bytes, at: record + 16) : UInt64(root)
            try #require(bytes[record] >= 2 && named != freed)
            withUnsafeBytes(of: named.littleEndian) { bytes.replaceSubrange(record + 8..<record + 16, with: $0) }
            reason = damage == "a page named twice" ? "the free list names page \(named) twice" : "the free list names page \(named), a page of its own tree"
        case "the record's count":
            bytes[record + 1] ^= 0x01
            let count = integer(bytes, at: record)
            let size = Int(bytes[record - 16]) | Int(bytes[record - 15]) << 8
            reason = "a free-list record of page \(root) counts \(count) pages in \(size) bytes"
        default:
            bytes[current * 4096 + 80 + 5] ^= 0x01
            reason = "the free list refers to page \(root | 1 << 40), outside pages 2…\(lastPage)"
        }
        if damage == "and the main root" {
            bytes[current * 4096 + 128 + 5] ^= 0x01
            let main = metaValues(bytes, at: 128)[current]
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(PageTreeCheck.problem(inDataFile: path) == .damaged(
                "has a damaged page structure (the main database refers to page \(main), outside pages 2…\(lastPage))"))
            return
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(PageTreeCheck.problem(inDataFile: path) == nil)
        #expect(PageTreeCheck.problem(inDataFile: path, forWriting: true) == .damaged("has a damaged page structure (\(reason))"))
        // The commit order cannot be read from a damaged free list: nothing is said of the ids.
        #expect(PageTreeCheck.transactionProblem(inDataFile: path) == nil)
    }

    /// A reader walks beside a live writer, whose commits reuse the pages of the tree it walks: a walk that finds damage
    /// after the meta pages' ids changed walks the new commit. Before, a writer that committed a few times during a
    /// walk and closed before the reader asked `writer.lock` made a sound log read as damaged.
    @Test("a walk that finds damage after a writer committed under it walks again, from the new commit")
    func commitsDuringTheWalk() throws {
        let walkedOnce = try problemWhileCommitting("walked-once", attempts: 1)
        try #require(walkedOnce != nil, "the commits changed no page the walk reads")
        #expect(try problemWhileCommitting("walked-again", attempts: 3) == nil)
    }

    /// What a reader's walk of a new file in the scratch directory `name` finds, in up to `attempts` walks, where a
    /// writer's commits between its reading of the meta pages and its walk fill the pages of the tree it walks.
    func problemWhileCommitting(_ name: String, attempts: Int) throws -> DataFileCheck.Problem? {
        let directory = scratch.file(name)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let env = try Environment(path: directory)
        let db = try env.openDatabase("values", flags: .create)
        try env.write { txn in
            for key in 0..<400 { try txn.put(db, key: Array("key-\(key)".utf8), value: [UInt8](repeating: 1, count: 20 + key % 300)) }
        }
        // The first commit frees the tree the walk reads, and those after it fill its pages with values of 40 pages
        // each: overflow pages, whose bytes no page header survives.
        let commits = {
            do {
                for round in 1...4 {
                    try env.write { txn in
                        if round == 1 { for key in 0..<400 { _ = try txn.delete(db, key: Array("key-\(key)".utf8)) } }
                        try txn.put(db, key: Array("large-\(round)".utf8), value: [UInt8](repeating: 0xAB, count: 40 * 4096))
                    }
                }
            } catch {
                Issue.record("a commit failed: \(error)")
            }
        }
        return PageTreeCheck.problem(
            inDataFile: directory + "/data.mdb", forWriting: false, choosing: MetaPage.readable, attempts: attempts, afterReadingMetas: commits)
    }

    /// The free lists of a file that many commits left, reusing pages, agree with its meta pages after every commit.
    @Test("the free lists of sound commits agree with their meta pages' ids")
    func commitOrderOfSoundCommits() throws {
        let directory = scratch.file("churn")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let env = try Environment(path: directory)
        let db = try env.openDatabase("values", flags: .create)
        var random = Xorshift(state: 82)
        for commit in 0..<60 {
            try env.write { txn in
                for _ in 0..<(1 + Int(random.next() % 40)) {
                    let key = Array("key-\(random.next() % 200)".utf8)
                    if random.next() % 3 == 0 {
                        _ = try txn.delete(db, key: key)
                    } else {
                        // Now and then a value of overflow pages, whose freeing fills the free list.
                        let size = random.next() % 10 == 0 ? 5_000 + Int(random.next() % 20_000) : 1 + Int(random.next() % 300)
                        try txn.put(db, key: key, value: [UInt8](repeating: UInt8(commit & 0xFF), count: size))
                    }
                }
            }
            let path = directory + "/data.mdb"
            #expect(PageTreeCheck.transactionProblem(inDataFile: path) == nil, "after commit \(commit)")
            #expect(PageTreeCheck.problem(inDataFile: path, forWriting: true) == nil, "after commit \(commit)")
        }
    }

    /// A data file that four commits of one key left, its bytes, its meta pages' transaction ids and the index of the
    /// page LMDB reads.
    func fourCommits(_ name: String) throws -> (path: String, bytes: [UInt8], ids: [UInt64], current: Int) {
        let (path, bytes) = try dataFile(name, writes: Array(repeating: { txn, db in
            try txn.put(db, key: Array("key".utf8), value: Array("value".utf8))
        }, count: 4))
        let ids = transactions(bytes)
        return (path, bytes, ids, ids[1] > ids[0] ? 1 : 0)
    }

    /// The free list's root of meta page `current` of `bytes`, a leaf in so small a file, and the offset of its first
    /// node.
    func firstFreeNode(_ bytes: [UInt8], _ current: Int) throws -> (root: Int, node: Int) {
        let root = Int(metaValues(bytes, at: 80)[current])
        try #require(metaValues(bytes, at: 40 + 6)[current] & 0xFFFF == 1)
        return (root, root * 4096 + (Int(bytes[root * 4096 + 16]) | Int(bytes[root * 4096 + 17]) << 8))
    }

    /// The little-endian u64 at byte `offset` of each meta page of `bytes`, a data file.
    func metaValues(_ bytes: [UInt8], at offset: Int) -> [UInt64] {
        [0, 1].map { page in integer(bytes, at: page * 4096 + offset) }
    }

    /// The little-endian u64 at byte `offset` of `bytes`.
    func integer(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        bytes[offset..<offset + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// The last commit's main root moved onto the commit before's: a sound tree, but the older one, which LMDB would read
    /// silently. That commit freed the page, and a commit's trees never reach a page its free list names.
    @Test("a tree that reaches a page the free list names (the main root left as the commit before's) is refused for reading and writing")
    func rootOfTheCommitBefore() throws {
        var (path, bytes) = try dataFile("former-root", writes: Array(repeating: { txn, db in
            try txn.put(db, key: Array("key".utf8), value: Array("value".utf8))
        }, count: 3))
        #expect(PageTreeCheck.problem(inDataFile: path, forWriting: true) == nil)
        let (ids, roots) = (metaValues(bytes, at: 144), metaValues(bytes, at: 128))
        let current = ids[1] > ids[0] ? 1 : 0
        withUnsafeBytes(of: roots[1 - current].littleEndian) { bytes.replaceSubrange(current * 4096 + 128..<current * 4096 + 136, with: $0) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        for forWriting in [false, true] {
            #expect(PageTreeCheck.problem(inDataFile: path, forWriting: forWriting) == .damaged(
                "has a damaged page structure (the main database reaches page \(roots[1 - current]), which the free list names as free)"))
        }
    }

    /// A commit that frees more pages than a record fits in its page stores the record in overflow pages: those are read
    /// too. A root moved onto the freed value's first page is named as a free page, not as a page of the wrong type.
    @Test("a free-list record in overflow pages is read: a tree that reaches one of its pages is refused")
    func freeListInOverflowPages() throws {
        var (path, bytes) = try dataFile("freed-overflow", writes: [
            { txn, db in try txn.put(db, key: Array("large".utf8), value: [UInt8](repeating: 7, count: 1 << 20)) },
            { txn, db in _ = try txn.delete(db, key: Array("large".utf8)) },
        ])
        #expect(PageTreeCheck.problem(inDataFile: path, forWriting: true) == nil)
        // The freed value's run: an overflow page (flags 0x04) that counts its 257 pages; the free record's run is shorter.
        func isFreedRun(_ page: Int) -> Bool {
            let header = page * 4096
            return bytes[header + 10] & 0x04 != 0 && bytes[header + 12] == 1 && bytes[header + 13] == 1
        }
        let freed = try #require((2..<bytes.count / 4096).first(where: isFreedRun))
        let ids = metaValues(bytes, at: 144)
        let current = ids[1] > ids[0] ? 1 : 0
        withUnsafeBytes(of: UInt64(freed).littleEndian) { bytes.replaceSubrange(current * 4096 + 128..<current * 4096 + 136, with: $0) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(PageTreeCheck.problem(inDataFile: path) == .damaged(
            "has a damaged page structure (the main database reaches page \(freed), which the free list names as free)"))
    }
}

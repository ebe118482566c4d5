import Foundation
@testable import LMDB
import TestSupport
import Testing

/// `PageTreeCheck.mendableRecords` and `FallbackCopy.mendRecords`: a record's flag that LMDB never gives it, set
/// by a bad bit, is read without it from a copy. Before 2026-12-05 a reader refused the whole file for one such bit on
/// a page both commits share.
extension PageTreeCheckTests {
    /// The flags of the leaf node of `key` at `at` (the key's offset) in `bytes`: the 2 bytes 4 before the key.
    private func flags(at: Int, in bytes: [UInt8]) -> UInt16 {
        UInt16(bytes[at - 4]) | UInt16(bytes[at - 3]) << 8
    }

    /// Copies the data file at `path` into the scratch directory `name`, mends the copy (of `databases`), and checks that
    /// it mends `records` and passes a writer's walk; the copy's value of `key` in "values", read through LMDB, and its bytes.
    private func mendedCopy(
        of path: String, _ name: String, records: [MendedRecord], key: [UInt8], databases: Set<String> = [], leavingOutPages: Bool = false,
        rootLeafKeySizes: [String: Int] = [:]
    ) throws -> (value: [UInt8]?, bytes: [UInt8]) {
        let directory = scratch.file(name)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let copy = directory + "/data.mdb"
        #expect(FallbackCopy.copy(from: path, to: copy) && FallbackCopy.mendRecords(
            dataFile: copy, databases: databases, leavingOutPages: leavingOutPages, rootLeafKeySizes: rootLeafKeySizes) == records)
        #expect(PageTreeCheck.problem(inDataFile: copy, databases: databases) == nil && PageTreeCheck.problem(inDataFile: copy, forWriting: true, databases: databases) == nil)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: copy)))
        var options = EnvironmentOptions()
        options.readOnly = true
        let env = try Environment(path: directory, options: options)
        let db = try env.openDatabase("values")
        return (try env.read { txn in try txn.get(db, key: key).map { Array($0) } }, bytes)
    }

    /// Values around LMDB's largest node in a page: 8-byte keys, values of 2,018 to 2,027 bytes.
    private func valuesAroundTheLargestNode() throws -> (path: String, bytes: [UInt8]) {
        try dataFile("around-the-largest-node", writes: [{ txn, db in
            for size in 2018...2027 { try txn.put(db, key: Array(String(format: "%08d", size).utf8), value: [UInt8](repeating: 1, count: size)) }
        }])
    }

    @Test("LMDB keeps a value in its page up to the largest node and in overflow pages past it, and nothing sound is mended")
    func largestNodeIsLMDBs() throws {
        let (path, bytes) = try valuesAroundTheLargestNode()
        for size in 2018...2027 {
            let key = Array(String(format: "%08d", size).utf8)
            let nodes = leafNodes(holding: key, in: bytes)
            try #require(!nodes.isEmpty)
            let isBigData = 8 + key.count + size > MendedRecord.largestNode(pageSize: 4096)
            #expect(nodes.allSatisfy { flags(at: $0, in: bytes) == (isBigData ? 0x01 : 0) }, "\(size) bytes")
        }
        #expect(MendedRecord.largestNode(pageSize: 4096) == 2038)
        #expect(PageTreeCheck.mendableRecords(inDataFile: path).isEmpty)
        let (overflowing, _) = try fileEndingInOverflowPages()
        #expect(PageTreeCheck.mendableRecords(inDataFile: overflowing).isEmpty)
    }

    @Test(
        "a flag a bad bit set on a record is read without it from a copy: the value as written, the file left as it was",
        arguments: [(UInt16(0x01), "as stored on overflow pages, though its 2022 bytes lie in its page"),
                    (0x04, "as holding duplicates, in a database that keeps none"),
                    (0x02, "as a named database's, outside the main database")])
    func flagSetByABadBit(mask: UInt16, wrong: String) throws {
        var (path, bytes) = try valuesAroundTheLargestNode()
        // The largest value LMDB keeps in its page: its first 8 bytes, read as a page number, lie far outside the file.
        let key = Array("00002022".utf8)
        let nodes = leafNodes(holding: key, in: bytes)
        for at in nodes { bytes[at - 4] ^= UInt8(mask) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let damaged = bytes
        #expect(PageTreeCheck.problem(inDataFile: path) != nil)
        let records = PageTreeCheck.mendableRecords(inDataFile: path)
        let record = try #require(records.first)
        #expect(records.count == 1 && nodes.contains(record.fileOffset + 8) && record.damage == .flags(cleared: mask))
        #expect(record.bytes == MendedRecord.header(valueSize: 2022, flags: 0))
        #expect(record.problem == "flags a record \(wrong) (node \(record.node) of page \(record.page), in database 'values')")
        #expect(try mendedCopy(of: path, "mended-\(mask)", records: records, key: key).value == [UInt8](repeating: 1, count: 2022))
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == damaged)
    }

    @Test(
        "a value's size a bad bit sent past the page is read as the size that fills the record's place, from a copy",
        arguments: [11, 16, 19, 31])
    func sizeSentPastThePage(bit: Int) throws {
        var (path, bytes) = try valuesAroundTheLargestNode()
        let key = Array("00002020".utf8)
        let nodes = leafNodes(holding: key, in: bytes)
        try #require(!nodes.isEmpty)
        let stated = 2020 ^ 1 << bit
        for at in nodes {
            #expect(Int(bytes[at - 8]) | Int(bytes[at - 7]) << 8 == 2020)
            bytes[at - 8 + bit / 8] ^= 1 << UInt8(bit % 8)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // Bit 11 leaves the value inside the file, which a reader took before 2026-12-05 (the record then read from
        // the next page's bytes, and found damaged): the size that fills its place is known, so it is mended instead.
        #expect(PageTreeCheck.problem(inDataFile: path) != nil)
        let records = PageTreeCheck.mendableRecords(inDataFile: path)
        let record = try #require(records.first)
        #expect(records.count == 1 && nodes.contains(record.fileOffset + 8) && record.valueSize == 2020 && record.damage == .size(stated: stated))
        #expect(record.problem == "gives a record's value as \(stated) bytes, though its place in its page holds 2020 (node \(record.node) of page \(record.page), in database 'values')")
        #expect(try mendedCopy(of: path, "mended-size-\(bit)", records: records, key: key).value == [UInt8](repeating: 1, count: 2020))
    }

    /// A key's size grown past the file is refused to readers (LMDB would read past its map); one that stays inside the
    /// file is taken by readers as before, and mended too where a copy is mended for other damage.
    @Test("a key's size a bad bit sent past the page is read as the size that fills the record's place, from a copy", arguments: [12, 15])
    func keySizeSentPastThePage(bit: Int) throws {
        var (path, bytes) = try tenValues("key-size-\(bit)")
        let key = Array("key5".utf8)
        let nodes = leafNodes(holding: key, in: bytes)
        try #require(!nodes.isEmpty)
        let stated = 4 ^ 1 << bit
        for at in nodes { bytes[at - 2 + bit / 8] ^= 1 << UInt8(bit % 8) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // Bit 15 (32,772 bytes) runs past this file of a few pages; bit 12 stays inside it.
        #expect((PageTreeCheck.problem(inDataFile: path) != nil) == (bit == 15) && nodes.allSatisfy { ($0 + stated > bytes.count) == (bit == 15) })
        let records = PageTreeCheck.mendableRecords(inDataFile: path)
        let record = try #require(records.first)
        #expect(records.count == 1 && nodes.contains(record.fileOffset + 2) && record.keySize == 4 && record.damage == .keySize(stated: stated))
        #expect(record.problem == "gives a record's key as \(stated) bytes, though its place in its page holds 4 (node \(record.node) of page \(record.page), in database 'values')")
        #expect(try mendedCopy(of: path, "mended-key-\(bit)", records: records, key: key).value == Array("value-5".utf8))
    }

    @Test(
        "a node's offset a bad bit changed is read where one bit from it the page's nodes lie end to end, from a copy",
        arguments: [1, 4, 9, 15])
    func offsetChangedByABadBit(bit: Int) throws {
        var (path, bytes) = try tenValues("offset-\(bit)")
        let key = Array("key5".utf8)
        let leaf = try #require(leafNodes(holding: key, in: bytes).first) / 4096
        let table = leaf * 4096 + 16
        let count = ((Int(bytes[leaf * 4096 + 12]) | Int(bytes[leaf * 4096 + 13]) << 8) - 16) / 2
        // The table entry of key5 (node 5: the keys were put in order), its bit flipped.
        let index = try #require((0..<count).first { index in
            let offset = Int(bytes[table + 2 * index]) | Int(bytes[table + 2 * index + 1]) << 8
            return Array(bytes[leaf * 4096 + offset + 8..<leaf * 4096 + offset + 12]) == key
        })
        let sound = Int(bytes[table + 2 * index]) | Int(bytes[table + 2 * index + 1]) << 8
        bytes[table + 2 * index + bit / 8] ^= 1 << UInt8(bit % 8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(PageTreeCheck.problem(inDataFile: path) != nil)
        let records = PageTreeCheck.mendableRecords(inDataFile: path)
        let record = try #require(records.first)
        #expect(records.count == 1 && record.damage == .offset(stated: sound ^ 1 << bit) && record.offsetInPage == sound && record.node == index)
        #expect(record.problem == "places a record at byte \(sound ^ 1 << bit) of its page, though its place is byte \(sound) (node \(index) of page \(leaf), in database 'values')")
        #expect(try mendedCopy(of: path, "mended-offset-\(bit)", records: records, key: key).value == Array("value-5".utf8))
    }

    /// A bit that lowers `upper` leaves every node above it: readers read on, and a writer's next node goes below it,
    /// where the page is free. One that raises it puts nodes below it, which a reader refuses.
    @Test("a page's upper a bad bit raised is read as where its nodes start, from a copy")
    func upperRaisedByABadBit() throws {
        let (path, bytes) = try tenValues("upper")
        let key = Array("key5".utf8)
        let leaf = try #require(leafNodes(holding: key, in: bytes).first) / 4096
        let sound = Int(bytes[leaf * 4096 + 14]) | Int(bytes[leaf * 4096 + 15]) << 8
        let raising = (1..<13).filter { sound & 1 << $0 == 0 && sound | 1 << $0 <= 4096 }
        try #require(!raising.isEmpty)
        for bit in raising {
            var damaged = bytes
            damaged[leaf * 4096 + 14 + bit / 8] ^= 1 << UInt8(bit % 8)
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            #expect(PageTreeCheck.problem(inDataFile: path) != nil)
            let records = PageTreeCheck.mendableRecords(inDataFile: path)
            let record = try #require(records.first)
            #expect(records.count == 1 && record.damage == .upper(stated: sound | 1 << bit) && record.offsetInPage == sound)
            #expect(record.problem == "starts a page's nodes at byte \(sound | 1 << bit), though they start at byte \(sound) (page \(leaf), in database 'values')")
            #expect(try mendedCopy(of: path, "mended-upper-\(bit)", records: records, key: key).bytes == bytes, "bit \(bit)")
        }
    }

    /// A mending walk noted a leaf's first and last keys before it had checked their nodes' offsets: one a bad bit sent
    /// past the page (its high byte) made every command that reads such a log crash, reading the node's header out of
    /// the page (found by `DamagedFileTests.byteFlipSweep` in CI, 2026-12-06).
    @Test("a leaf node's offset a bad bit sent past its page: refused, mended where one bit off, the root leaf's table rebuilt from its records where more, never read past the page", arguments: [0, 4, 9])
    func nodeOffsetPastThePage(index: Int) throws {
        let (path, bytes) = try tenValues("offset-past-\(index)")
        let key = Array("key5".utf8)
        let leaf = try #require(leafNodes(holding: key, in: bytes).first) / 4096
        for mask: UInt8 in [0x10, 0x20, 0x40, 0x80, 0xF0] {
            var damaged = bytes
            damaged[leaf * 4096 + 16 + 2 * index + 1] ^= mask
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            #expect(PageTreeCheck.problem(inDataFile: path) != nil, "mask \(mask)")
            let records = PageTreeCheck.mendableRecords(inDataFile: path)
            // One bit off, the offset is the one LMDB wrote, and a copy reads whole; more bits, the page (a root leaf, its
            // records lying end to end past its header) gets its table of offsets again from its records (since 2026-12-06).
            let record = try #require(records.first, "mask \(mask)")
            if mask.nonzeroBitCount == 1 {
                #expect(records.count == 1 && record.damage == .offset(stated: Int(damaged[leaf * 4096 + 16 + 2 * index]) | Int(damaged[leaf * 4096 + 17 + 2 * index]) << 8))
                #expect(try mendedCopy(of: path, "mended-offset-\(index)-\(mask)", records: records, key: key).bytes == bytes, "mask \(mask)")
            } else {
                guard case .leafRebuilt(_, records: 10) = record.damage else { Issue.record("mask \(mask): \(records)"); continue }
                #expect(records.count == 1 && record.page == UInt64(leaf))
                #expect(try mendedCopy(of: path, "rebuilt-offset-\(index)-\(mask)", records: records, key: key).value == Array("value-5".utf8), "mask \(mask)")
            }
        }
    }

    /// A data file of "small" and "large" in "values", "large" `size` bytes (on overflow pages) and, with `other`, of
    /// "other" as large, with the big-data flag of "large"'s record cleared; `damage` then changes the bytes at the
    /// file offsets of that record's key and of "other"'s. Returns the offset of "large"'s key and its run's first page.
    private func bigDataFlagCleared(
        _ name: String, size: Int, other: Bool = false, damage: (inout [UInt8], _ large: Int, _ other: Int?) -> Void = { _, _, _ in }
    ) throws -> (path: String, key: Int, first: UInt64) {
        var (path, bytes) = try dataFile(name, writes: [{ txn, db in
            try txn.put(db, key: Array("small".utf8), value: Array("value".utf8))
            try txn.put(db, key: Array("large".utf8), value: [UInt8](repeating: 7, count: size))
            if other { try txn.put(db, key: Array("other".utf8), value: [UInt8](repeating: 8, count: size)) }
        }])
        let at = try #require(leafNodes(holding: Array("large".utf8), in: bytes).last)
        #expect(flags(at: at, in: bytes) == 0x01)
        bytes[at - 4] &= ~0x01
        damage(&bytes, at, other ? leafNodes(holding: Array("other".utf8), in: bytes).last : nil)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, at, (0..<8).reduce(0) { $0 | UInt64(bytes[at + 5 + $1]) << UInt64(8 * $1) })
    }

    /// LMDB reads a big value's record without its flag as the page number and the bytes after it: a value of 10,000
    /// bytes read so lies in the file, which a reader took before (its bytes another's), and one of 1 MiB runs past it.
    @Test("a big value's flag a bad bit cleared is set again where its place holds the first page of a run of its pages that nothing else reaches", arguments: [10_000, 1 << 20])
    func bigDataFlagCleared(size: Int) throws {
        let (path, at, first) = try bigDataFlagCleared("cleared-big-\(size)", size: size)
        let damaged = try Data(contentsOf: URL(fileURLWithPath: path))
        let pages = (15 + size) / 4096 + 1
        let problem = "lacks the big-data flag, though its \(size) bytes lie on the \(pages) overflow pages from page \(first), which nothing else reaches"
        #expect(PageTreeCheck.problem(inDataFile: path).map { "\($0)".contains(problem) } == true, "\(String(describing: PageTreeCheck.problem(inDataFile: path)))")
        let records = PageTreeCheck.mendableRecords(inDataFile: path)
        let record = try #require(records.first)
        #expect(records.count == 1 && record.fileOffset + 8 == at && record.damage == .bigDataFlag(first: first, pages: pages))
        #expect(record.bytes == MendedRecord.header(valueSize: size, flags: 0x01))
        #expect(record.problem == "marks a record as held in its page, though its \(size) bytes lie on the \(pages) overflow pages from page \(first), which nothing else reaches (node \(record.node) of page \(record.page), in database 'values')")
        #expect(try mendedCopy(of: path, "mended-big-\(size)", records: records, key: Array("large".utf8)).value == [UInt8](repeating: 7, count: size))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == damaged)
    }

    @Test("a big value's record without its flag is read as it states where its place names a run another record reaches, or one not of its length")
    func bigDataFlagNeedsItsRun() throws {
        // "other"'s record names the same run: its own, reached first.
        let (shared, _, _) = try bigDataFlagCleared("cleared-big-shared", size: 10_000, other: true) { bytes, large, other in
            let other = other!
            for index in 0..<8 { bytes[large + 5 + index] = bytes[other + 5 + index] }
        }
        // The run's first page counts one page more than the value takes.
        let (longer, _, first) = try bigDataFlagCleared("cleared-big-longer", size: 10_000)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: longer)))
        bytes[Int(first) * 4096 + 12] += 1
        try Data(bytes).write(to: URL(fileURLWithPath: longer))
        for path in [shared, longer] {
            // Read as LMDB reads it: the value's bytes lie in the file, so a reader takes it, and nothing is mended.
            #expect(PageTreeCheck.problem(inDataFile: path) == nil)
            #expect(PageTreeCheck.mendableRecords(inDataFile: path).isEmpty)
        }
    }

    /// A data file with a database of values ("values", over several leaf pages and an overflow run) and an empty one
    /// ("empty"), whose records in the main database have their named database's flag (0x02) cleared by `damage`.
    private func databaseFlagCleared(_ name: String, in database: String, damage: (inout [UInt8], Int) -> Void = { _, _ in }) throws -> String {
        let directory = scratch.file(name)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        do {
            let env = try Environment(path: directory)
            let values = try env.openDatabase("values", flags: .create)
            _ = try env.openDatabase("empty", flags: .create)
            try env.write { txn in
                for index in 0..<300 { try txn.put(values, key: Array(String(format: "key%05d", index).utf8), value: Array("value-\(index)".utf8)) }
                try txn.put(values, key: Array("large".utf8), value: [UInt8](repeating: 7, count: 10_000))
            }
        }
        let path = directory + "/data.mdb"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let key = Array(database.utf8), nodes = leafNodes(holding: key, in: bytes)
        try #require(!nodes.isEmpty)
        for at in nodes {
            #expect(bytes[at - 4] == 0x02)
            bytes[at - 4] = 0
            damage(&bytes, at + key.count)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// LMDB refuses to open a named database whose record in the main database lacks the flag (`MDB_INCOMPATIBLE`), so
    /// the last commit could not be read; the record's 48 bytes, which describe a tree no other record reaches, show
    /// what it is. Before 2026-12-05 a reader read the commit before.
    @Test("a named database's flag a bad bit cleared is set again where its 48 bytes describe its tree, or an empty one", arguments: ["values", "empty"])
    func databaseFlagClearedIsMended(database: String) throws {
        let path = try databaseFlagCleared("database-flag-\(database)", in: database)
        let records = PageTreeCheck.mendableRecords(inDataFile: path)
        let record = try #require(records.first)
        #expect(records.count == 1 && record.damage == .databaseFlag(database: "database '\(database)'") && record.valueSize == 48 && record.tree == "the main database")
        #expect(record.bytes == MendedRecord.header(valueSize: 48, flags: 0x02))
        #expect(record.problem == "marks the main database's record of database '\(database)' as a plain value, though its 48 bytes describe that database's tree (node \(record.node) of page \(record.page), in the main database)")
        let mended = try mendedCopy(of: path, "mended-database-\(database)", records: records, key: Array("key00150".utf8))
        #expect(mended.value == Array("value-150".utf8))
    }

    @Test(
        "a 48-byte value of the main database is not mended into a database's record where it counts other pages or records than its tree holds",
        arguments: [(16, "leaf pages"), (32, "records"), (0, "padding")])
    func databaseFlagNeedsItsTree(field: Int, what: String) throws {
        let path = try databaseFlagCleared("database-flag-\(field)", in: "values") { bytes, value in bytes[value + field] ^= 1 }
        #expect(PageTreeCheck.mendableRecords(inDataFile: path).isEmpty, "\(what)")
    }
}

/// A named database's record renamed by a bad bit (`PageTreeCheck.Walker.checkDatabaseNames`): LMDB does not find the
/// database, and a writer would make a new, empty one in its place.
extension PageTreeCheckTests {
    /// A data file of ten values in "values", the last byte of that name's record in the main database set to `last`.
    private func valuesRenamed(_ name: String, last: UInt8) throws -> String {
        var (path, bytes) = try tenValues(name)
        let nodes = leafNodes(holding: Array("values".utf8), in: bytes)
        try #require(!nodes.isEmpty)
        for at in nodes { bytes[at + 5] = last }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("a named database's name one bit from that of a database no record has: damage to readers and writers that name it, mended in a copy")
    func databaseRenamed() throws {
        // 's' (0x73) with bit 4 cleared: "valuec".
        let path = try valuesRenamed("renamed", last: 0x63)
        let databases: Set<String> = ["values", "other"]
        #expect(PageTreeCheck.problem(inDataFile: path) == nil)
        let named = "the main database names its record of database 'values' 'valuec', one bit from that name, which no record has"
        for forWriting in [false, true] {
            #expect(PageTreeCheck.problem(inDataFile: path, forWriting: forWriting, databases: databases) == .damaged("has a damaged page structure (\(named))"))
        }
        let records = PageTreeCheck.mendableRecords(inDataFile: path, databases: databases)
        let record = try #require(records.first)
        #expect(records.count == 1 && record.damage == .databaseName(stated: "valuec", database: "database 'values'") && record.bytes == Array("values".utf8))
        #expect(record.problem == "names the main database's record of database 'values' 'valuec', one bit from that name, which no record has (node \(record.node) of page \(record.page), in the main database)")
        #expect(try mendedCopy(of: path, "mended-renamed", records: records, key: Array("key5".utf8), databases: databases).value == Array("value-5".utf8))
    }

    @Test("a named database's name one bit from two names no record has, or none, is not taken for either")
    func databaseRenamedAmbiguously() throws {
        // "valuer" is one bit from "values" and from "valuep"; "valuez" from neither.
        for (last, databases) in [(UInt8(0x72), Set(["values", "valuep"])), (0x7A, ["values"])] {
            let path = try valuesRenamed("renamed-\(last)", last: last)
            #expect(PageTreeCheck.problem(inDataFile: path, databases: databases) == nil)
            #expect(PageTreeCheck.mendableRecords(inDataFile: path, databases: databases).isEmpty)
        }
    }

    @Test("a name's bytes that are not printable ASCII are shown as \\xNN")
    func shownKey() {
        #expect(MendedRecord.shown(Array("site".utf8) + [0xF3]) == "site\\xF3")
        #expect(MendedRecord.shown([0x00, 0x7F, 0x20]) == "\\x00\\x7F ")
    }
}

/// A branch node's child page number changed by a bad bit (`PageTreeCheck.Walker.mendChildPages`): LMDB would read
/// another page for the child, and the walk refuses the file; the child's own page, which nothing else reaches, shows it.
extension PageTreeCheckTests {
    /// A data file whose "values" tree is a branch page over several leaves (600 keys "key00000"…), and that branch
    /// page's offset in the file and its nodes' offsets in the page.
    private func branchedValues(_ name: String) throws -> (path: String, bytes: [UInt8], branch: Int, nodes: [Int]) {
        let (path, bytes) = try dataFile(name, writes: [{ txn, db in
            for index in 0..<600 { try txn.put(db, key: Array(String(format: "key%05d", index).utf8), value: Array("value-\(index)".utf8)) }
        }])
        // The branch page: flags 0x01, whose first node's child is a leaf holding "key00000".
        let branch = try #require(stride(from: 8192, to: bytes.count, by: 4096).first { bytes[$0 + 10] == 0x01 })
        let count = (Int(bytes[branch + 12]) | Int(bytes[branch + 13]) << 8 - 16) / 2
        let nodes = (0..<count).map { Int(bytes[branch + 16 + 2 * $0]) | Int(bytes[branch + 17 + 2 * $0]) << 8 }
        try #require(nodes.count >= 3)
        return (path, bytes, branch, nodes)
    }

    @Test("a branch node's child page number a bad bit changed is read as the page one bit from it that heads the child's subtree", arguments: [0, 1, 2, 9, 30, 47])
    func childPageChanged(bit: Int) throws {
        var (path, bytes, branch, nodes) = try branchedValues("child-\(bit)")
        let node = branch + nodes[1]
        let child = (0..<6).reduce(UInt64(0)) { $0 | UInt64(bytes[node + $1]) << UInt64(8 * $1) }
        bytes[node + bit / 8] ^= 1 << UInt8(bit % 8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(PageTreeCheck.problem(inDataFile: path) != nil)
        let records = PageTreeCheck.mendableRecords(inDataFile: path)
        let record = try #require(records.first)
        let stated = child ^ 1 << UInt64(bit)
        #expect(records.count == 1 && record.damage == .childPage(stated: stated, page: child) && record.node == 1 && record.page == UInt64(branch / 4096))
        #expect(record.problem == "gives a branch node's child as page \(stated), though its child is page \(child), one bit from it, which nothing else reaches (node 1 of page \(branch / 4096), in database 'values')")
        #expect(try mendedCopy(of: path, "mended-child-\(bit)", records: records, key: Array("key00300".utf8)).value == Array("value-300".utf8))
    }

    /// Before 2026-12-06 a zeroed sector at the start of any leaf page (its header: flags, bounds) refused the whole file
    /// to readers: 64 of the 640 sectors of an 8,002-entry log, each read nothing.
    @Test(
        "a leaf page damaged beyond mending is left out of a reader's copy: one record under its lowest key, its value empty, the page's other records missing, the rest read through LMDB",
        arguments: [0, 1, 2])
    func damagedLeafLeftOut(index: Int) throws {
        var (path, bytes, branch, nodes) = try branchedValues("leaf-left-out-\(index)")
        let node = branch + nodes[index]
        let page = (0..<6).reduce(0) { $0 | Int(bytes[node + $1]) << (8 * $1) }
        let lowest = index == 0 ? [UInt8](repeating: 0, count: 8) : Array(bytes[node + 8..<node + 16])
        let first = try #require((0..<600).map { Array(String(format: "key%05d", $0).utf8) }.first { bytes[page * 4096..<(page + 1) * 4096].firstRange(of: $0) != nil })
        bytes.replaceSubrange(page * 4096..<page * 4096 + 512, with: repeatElement(0, count: 512))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(PageTreeCheck.problem(inDataFile: path) == .damaged("has a damaged page structure (page \(page) of database 'values' is neither a branch nor a leaf page (flags 0))"))
        // Only where asked: the commit before, which may hold the page whole, loses less.
        #expect(PageTreeCheck.mendableRecords(inDataFile: path).isEmpty)
        let records = PageTreeCheck.mendableRecords(inDataFile: path, leavingOutPages: true)
        let reason = "page \(page) of database 'values' is neither a branch nor a leaf page (flags 0)"
        #expect(records.count == 1 && records.first?.damage == .pageLeftOut(reason: reason) && records.first?.page == UInt64(page) && records.first?.leavesOut == true)
        #expect(records.first?.problem == "has a leaf page damaged beyond mending (\(reason))")
        // The lowest key reads as an empty value; a key the page held is missing; another leaf's key reads as before.
        let other = Array((index == 2 ? "key00000" : "key00599").utf8)
        #expect(try mendedCopy(of: path, "left-out-\(index)-lowest", records: records, key: lowest, leavingOutPages: true).value == [])
        if first != lowest {
            #expect(try mendedCopy(of: path, "left-out-\(index)-first", records: records, key: first, leavingOutPages: true).value == nil)
        }
        let otherValue = Array("value-\(index == 2 ? 0 : 599)".utf8)
        #expect(try mendedCopy(of: path, "left-out-\(index)-other", records: records, key: other, leavingOutPages: true).value == otherValue)
    }

    /// Before 2026-12-06 a zeroed sector at the start of a branch page refused the whole file to readers: every record
    /// under it was lost with it, though its children were whole.
    @Test("a branch page damaged beyond mending is rebuilt in a reader's copy from the pages under it that nothing else reaches, every record read through LMDB")
    func damagedBranchRebuilt() throws {
        var (path, bytes, branch, nodes) = try branchedValues("branch-rebuilt")
        let children = nodes.map { childPage(at: branch + $0, in: bytes) }
        bytes.replaceSubrange(branch..<branch + 512, with: repeatElement(0, count: 512))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let page = branch / 4096, reason = "page \(branch / 4096) of database 'values' is neither a branch nor a leaf page (flags 0)"
        #expect(PageTreeCheck.problem(inDataFile: path) == .damaged("has a damaged page structure (\(reason))"))
        let records = PageTreeCheck.mendableRecords(inDataFile: path)
        let record = try #require(records.first)
        #expect(records.count == 1 && record.damage == .branchRebuilt(reason: reason, children: nodes.count) && record.page == UInt64(page) && !record.leavesOut)
        #expect(record.problem == "has a branch page that cannot be read (\(reason)), rebuilt from the \(nodes.count) pages under it, which nothing else reaches")
        // The rebuilt page points at the same children, in the same order.
        let rebuilt = record.bytes
        let offsets: [Int] = (0..<nodes.count).map { Int(rebuilt[16 + 2 * $0]) | Int(rebuilt[17 + 2 * $0]) << 8 }
        #expect(offsets.map { childPage(at: $0, in: rebuilt) } == children)
        for index in [0, 299, 300, 599] {
            let key = Array(String(format: "key%05d", index).utf8)
            #expect(try mendedCopy(of: path, "branch-rebuilt-\(index)", records: records, key: key).value == Array("value-\(index)".utf8))
        }
    }

    @Test("a damaged branch page is not rebuilt where a page under it is damaged too, or its database's record counts other pages", arguments: ["leaf", "count"])
    func branchRebuildNeedsEveryChild(damage: String) throws {
        var (path, bytes, branch, nodes) = try branchedValues("branch-not-rebuilt-\(damage)")
        bytes.replaceSubrange(branch..<branch + 512, with: repeatElement(0, count: 512))
        if damage == "leaf" {
            let leaf = childPage(at: branch + nodes[1], in: bytes)
            bytes.replaceSubrange(leaf * 4096..<leaf * 4096 + 512, with: repeatElement(0, count: 512))
        } else {
            // The main database's record of "values" (its 48 bytes after the name) counts one leaf page more than its tree
            // holds: in each page that holds it, the one LMDB reads and the one the commit that made the database freed.
            let records = stride(from: 8192, to: bytes.count, by: 4096).compactMap { page in
                bytes[page + 10] == 0x02 ? bytes[page..<page + 4096].firstRange(of: Array("values".utf8))?.upperBound : nil
            }
            try #require(!records.isEmpty)
            for record in records { bytes[record + 16] &+= 1 }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(PageTreeCheck.problem(inDataFile: path) != nil)
        #expect(PageTreeCheck.mendableRecords(inDataFile: path).isEmpty && PageTreeCheck.mendableRecords(inDataFile: path, leavingOutPages: true).isEmpty)
    }

    @Test("a damaged branch page is not rebuilt where the free list cannot be read: an older page it names, whole where the newer one is damaged, would pass for a child")
    func branchRebuildNeedsTheFreeList() throws {
        // A second commit rewrites the branch and its last leaf: the free list names their older pages, which hold "value-599".
        let (path, sound) = try dataFile("branch-free-list", writes: [
            { txn, db in for index in 0..<600 { try txn.put(db, key: Array(String(format: "key%05d", index).utf8), value: Array("value-\(index)".utf8)) } },
            { txn, db in try txn.put(db, key: Array("key00599".utf8), value: Array("value-599!".utf8)) },
        ])
        let branch = try LogDamage.databaseRoot(of: (path as NSString).deletingLastPathComponent, database: "values") * 4096
        let meta = sound[144] > sound[4096 + 144] ? 0 : 4096
        let freeRoot = (0..<8).reduce(0) { $0 | Int(sound[meta + 80 + $1]) << (8 * $1) }
        let nodes = (Int(sound[branch + 12]) | Int(sound[branch + 13]) << 8 - 16) / 2
        let lastLeaf = childPage(at: branch + (Int(sound[branch + 16 + 2 * (nodes - 1)]) | Int(sound[branch + 17 + 2 * (nodes - 1)]) << 8), in: sound)
        try #require(sound[branch + 10] == 0x01 && freeRoot > 1 && freeRoot < sound.count / 4096)
        var bytes = sound
        for page in [branch / 4096, lastLeaf] { bytes.replaceSubrange(page * 4096..<page * 4096 + 512, with: repeatElement(0, count: 512)) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // With the free list read, the older leaf is no child: the branch is not rebuilt without its newer one.
        #expect(PageTreeCheck.mendableRecords(inDataFile: path).isEmpty)
        bytes.replaceSubrange(freeRoot * 4096..<freeRoot * 4096 + 512, with: repeatElement(0, count: 512))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(PageTreeCheck.mendableRecords(inDataFile: path).isEmpty)
    }

    /// The page number a branch node at `offset` of `bytes` points at: its first 6 bytes, little-endian.
    private func childPage(at offset: Int, in bytes: [UInt8]) -> Int {
        (0..<6).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
    }

    /// The root leaf of "values" in a data file of ten values, and its offset in the file.
    private func tenValuesRoot(_ name: String) throws -> (path: String, bytes: [UInt8], page: Int) {
        let (path, bytes) = try tenValues(name)
        let page = try #require(stride(from: 8192, to: bytes.count, by: 4096).first { bytes[$0..<$0 + 4096].firstRange(of: Array("key5".utf8)) != nil && bytes[$0 + 10] == 0x02 })
        return (path, bytes, page)
    }

    /// Before 2026-12-06 a zeroed sector at the start of a root leaf (its header and table of offsets) refused the whole
    /// file to readers, though its records lay whole past it: the demo log's `meta` and `streams`, each one page.
    @Test("a root leaf whose header alone a zeroed sector took is rebuilt from its records, which lie end to end to the page's end, as many as its database counts")
    func rootLeafRebuilt() throws {
        var (path, bytes, page) = try tenValuesRoot("root-leaf-rebuilt")
        bytes.replaceSubrange(page..<page + 512, with: repeatElement(0, count: 512))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reason = "page \(page / 4096) of database 'values' is neither a branch nor a leaf page (flags 0)"
        #expect(PageTreeCheck.problem(inDataFile: path) == .damaged("has a damaged page structure (\(reason))"))
        let records = PageTreeCheck.mendableRecords(inDataFile: path)
        let record = try #require(records.first)
        #expect(records.count == 1 && record.damage == .leafRebuilt(reason: reason, records: 10) && record.page == UInt64(page / 4096) && !record.leavesOut)
        #expect(record.problem == "has a leaf page whose header cannot be read (\(reason)), rebuilt from the 10 records that fill its end")
        for index in [0, 5, 9] {
            #expect(try mendedCopy(of: path, "root-leaf-rebuilt-\(index)", records: records, key: Array("key\(index)".utf8)).value == Array("value-\(index)".utf8))
        }
        // Where the database's record counts a record more, no run of its records fills the page's end: not rebuilt.
        // (Its 48 bytes after the name, in each page that holds it: the one LMDB reads and the one a commit freed.)
        let counts: [Int] = stride(from: 8192, to: bytes.count, by: 4096).compactMap { at in
            guard bytes[at + 10] == 0x02, at != page, let name = bytes[at..<at + 4096].firstRange(of: Array("values".utf8)) else { return nil }
            return name.upperBound + 32
        }
        try #require(!counts.isEmpty)
        for at in counts { bytes[at] &+= 1 }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(PageTreeCheck.mendableRecords(inDataFile: path).isEmpty)
    }

    @Test("a root leaf damaged beyond mending is not left out where no branch gives its keys and its owner gives no key size")
    func rootLeafNotLeftOut() throws {
        var (path, bytes, page) = try tenValuesRoot("root-leaf")
        // The whole page: its records are gone too, so nothing rebuilds it.
        bytes.replaceSubrange(page..<page + 4096, with: repeatElement(0, count: 4096))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(PageTreeCheck.problem(inDataFile: path) != nil && PageTreeCheck.mendableRecords(inDataFile: path, leavingOutPages: true).isEmpty)
        // Where its owner gives the size of its keys, it is: one record under a key of zeros, its value empty.
        let records = PageTreeCheck.mendableRecords(inDataFile: path, leavingOutPages: true, rootLeafKeySizes: ["values": 4])
        #expect(records.count == 1 && records.first?.leavesOut == true && records.first?.page == UInt64(page / 4096))
        let zeros = [UInt8](repeating: 0, count: 4), roots = ["values": 4]
        #expect(try mendedCopy(of: path, "root-leaf-zeros", records: records, key: zeros, leavingOutPages: true, rootLeafKeySizes: roots).value == [])
        #expect(try mendedCopy(of: path, "root-leaf-key5", records: records, key: Array("key5".utf8), leavingOutPages: true, rootLeafKeySizes: roots).value == nil)
    }

    @Test("a branch node's child page number is not mended by two bad bits, nor to a page whose keys lie outside the branch's keys around the child")
    func childPageNeedsItsKeys() throws {
        for damage in ["two bits", "keys"] {
            var (path, bytes, branch, nodes) = try branchedValues("child-\(damage)")
            let node = branch + nodes[1]
            bytes[node] ^= damage == "two bits" ? 0x03 : 0x01
            if damage == "keys" {
                // Node 1's key, "key0NNNN", raised past every key of its child: "key9NNNN".
                #expect(bytes[node + 8..<node + 12].elementsEqual(Array("key0".utf8)))
                bytes[node + 11] = UInt8(ascii: "9")
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(PageTreeCheck.problem(inDataFile: path) != nil)
            #expect(PageTreeCheck.mendableRecords(inDataFile: path).isEmpty, "\(damage)")
        }
    }

    /// Found by a sweep (2026-12-06) of random bytes over the demo log: the inspector trapped (signal 4) where LMDB's main
    /// database describes a database whose page counts add up past 2⁶⁴, as soon as a mending walk read them.
    @Test("a database's page counts damaged to add up past 2⁶⁴ are read as a count no walk reaches, not a trap")
    func pageCountsPastTheLargest() throws {
        let (path, bytes) = try valuesAroundTheLargestNode()
        var damaged = bytes
        let records = leafNodes(holding: Array("values".utf8), in: bytes)
        try #require(!records.isEmpty)
        // LMDB's MDB_db after the key: 4 bytes of padding, flags, depth, then the branch, leaf and overflow page counts.
        for at in records { for offset in (at + 6 + 8)..<(at + 6 + 32) { damaged[offset] = 0xFF } }
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        #expect(PageTreeCheck.mendableRecords(inDataFile: path).isEmpty)
        #expect(PageTreeCheck.mendableRecords(inDataFile: path, leavingOutPages: true).isEmpty)
        var options = EnvironmentOptions()
        options.readOnly = true
        let env = try Environment(path: (path as NSString).deletingLastPathComponent, options: options)
        let db = try env.openDatabase("values")
        #expect(try env.read { txn in try txn.get(db, key: Array("00002018".utf8))?.count } == 2018)
    }
}

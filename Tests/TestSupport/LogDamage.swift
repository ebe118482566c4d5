import Foundation
import LMDB

/// Damage to a closed log made through LMDB, the file's structure untouched: what a bad disk does to one record.
public enum LogDamage {
    /// Flips bits `mask` of the middle byte of one record of database `name` of the closed log at `path`, under the
    /// record's checksum: the record `choose` picks from the database's keys, in order. Returns its key.
    @discardableResult
    public static func flipByte(of path: String, database name: String, mask: UInt8, choose: ([[UInt8]]) -> [UInt8]) throws -> [UInt8] {
        let environment = try Environment(path: path)
        let database = try environment.openDatabase(name)
        return try environment.write { txn in
            let key = choose(try keys(of: database, in: txn))
            guard let record = try txn.get(database, key: key) else { throw CocoaError(.fileReadCorruptFile) }
            var bytes = Array(record)
            bytes[bytes.count / 2] ^= mask
            try txn.put(database, key: key, value: bytes)
            return key
        }
    }

    /// Moves one record of database `name` of the closed log at `path` from key `old` to key `new`, its bytes
    /// untouched: what a bad bit in a key does.
    public static func rekey(of path: String, database name: String, from old: [UInt8], to new: [UInt8]) throws {
        let environment = try Environment(path: path)
        let database = try environment.openDatabase(name)
        try environment.write { txn in
            guard let record = try txn.get(database, key: old) else { throw CocoaError(.fileReadCorruptFile) }
            let bytes = Array(record)
            _ = try txn.delete(database, key: old)
            try txn.put(database, key: new, value: bytes)
        }
    }

    /// Damages, in the closed log at `path`, each stream's stream-index block that lists entry `sequence` or the last
    /// before it (as ``flipByte(of:database:mask:choose:)`` does): the index can no longer say whose entries lie
    /// around it. Returns how many blocks it damaged.
    @discardableResult
    public static func damageIndexBlocks(over sequence: UInt64, in path: String) throws -> Int {
        let environment = try Environment(path: path)
        let index = try environment.openDatabase("stream-index")
        let keys = try environment.read { txn in try Self.keys(of: index, in: txn) }
        let over = Dictionary(grouping: keys.filter { $0.count == 12 && $0.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } <= sequence }) {
            $0.prefix(4)
        }.values.compactMap(\.last)
        for key in over { try flipByte(of: path, database: "stream-index", mask: 0x40) { _ in key } }
        return over.count
    }

    /// The first numbers of the blocks of `database` (`entries`) of the closed log at `path`, in order: each key's last
    /// 8 bytes, big-endian.
    public static func firstNumbers(of path: String, database name: String) throws -> [UInt64] {
        let environment = try Environment(path: path)
        let database = try environment.openDatabase(name)
        return try environment.read { txn in try keys(of: database, in: txn) }.map { $0.suffix(8).reduce(0) { $0 << 8 | UInt64($1) } }
    }

    /// The keys of `database`, in order.
    public static func keys(of database: Database, in txn: Transaction) throws -> [[UInt8]] {
        try txn.withCursor(database) { cursor in
            var keys: [[UInt8]] = []
            var item = try cursor.first()
            while let current = item {
                keys.append(Array(current.key))
                item = try cursor.next()
            }
            return keys
        }
    }

    /// Of the keys of a log's `entries` (each the first number of its block, big-endian in its last 8 bytes), the one
    /// nearest the middle whose block, once damaged, leaves states after it that are rebuilt through it: no snapshot
    /// from the block's fourth-last number to the next block's second. (A snapshot at the block's last mutation holds
    /// the states after it; in the demo's streams a mutation is never more than three entries from the next.)
    public static func blockBeforeUnreadableStates(_ keys: [[UInt8]], snapshots: [UInt64]) -> [UInt8] {
        let firsts = keys.map { $0.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        let middle = keys.count / 2
        let candidates = (0..<max(keys.count - 1, 0)).filter { index in
            let next = firsts[index + 1]
            return next > 4 && !snapshots.contains { $0 >= next - 4 && $0 <= next + 1 }
        }
        let chosen = candidates.min { abs($0 - middle) < abs($1 - middle) } ?? middle
        return keys[chosen]
    }
}

extension LogDamage {
    /// Damages the key of one record of the `entries` database in the closed log at `path` where it lies in the file,
    /// past LMDB: `key`'s bit 22 is set in its leaf node, so that the record sorts far above its neighbours yet stays
    /// where it is in its page, out of the tree's order (a flipped bit in a key, which LMDB does not check). `choose`
    /// picks the record from the database's keys (each the first number of its block, big-endian in its last 8
    /// bytes), one whose bit 22 is clear. Returns the key it damaged.
    @discardableResult
    public static func moveKeyInFile(of path: String, choose: ([[UInt8]]) -> [UInt8]) throws -> [UInt8] {
        // Bit 22 of the big-endian key is in its sixth byte.
        try editLeafNode(of: path, choose: choose) { bytes, offset in bytes[offset + 5] |= 0x40 }
    }

    /// Zeroes the header and the key of one record of `database` (`entries` unless named) in the closed log at `path`
    /// where it lies in the file, past LMDB, as a zeroed sector leaves a node: its sizes, flags and key all 0. `choose`
    /// picks the record from the database's keys. Returns the key it zeroed.
    @discardableResult
    public static func zeroNodeInFile(of path: String, database: String = "entries", choose: ([[UInt8]]) -> [UInt8]) throws -> [UInt8] {
        let key = try editLeafNode(of: path, database: database, choose: choose) { bytes, offset in
            let keySize = Int(bytes[offset - 2]) | Int(bytes[offset - 1]) << 8
            bytes.replaceSubrange((offset - 8)..<(offset + keySize), with: repeatElement(0, count: 8 + keySize))
        }
        return key
    }

    /// Damages the key size of one record of `database` (`entries` unless named) in the closed log at `path` where it lies in the
    /// file, past LMDB: bits `mask` of the low byte of the size in its leaf node are flipped (8 grows to 9 with mask 1,
    /// shrinks to 0 with mask 8), so that the key takes the first bytes of the record's value and the value starts that
    /// much later, or the other way round (a flipped bit in a node's header, which LMDB does not check). `choose` picks
    /// the record from the database's keys. Returns the key it damaged.
    @discardableResult
    public static func damageKeySizeInFile(
        of path: String, database: String = "entries", mask: UInt8 = 1, choose: ([[UInt8]]) -> [UInt8]
    ) throws -> [UInt8] {
        try editLeafNode(of: path, database: database, choose: choose) { bytes, offset in bytes[offset - 2] ^= mask }
    }

    /// Flips bits `mask` of the flags of one record of `database` (`entries` unless named; `nil`: the main database,
    /// whose keys are the named databases' names) in the closed log at `path`, past LMDB: in every leaf node holding the
    /// key `choose` picks, reached or in a page LMDB freed. The flags are the 2 bytes 4 before the key, after the data's
    /// size; `mask` is their value read little-endian. Returns the key.
    @discardableResult
    public static func flipRecordFlagsInFile(
        of path: String, database name: String? = "entries", mask: UInt16, choose: ([[UInt8]]) -> [UInt8]
    ) throws -> [UInt8] {
        try flipNodeHeaderInFile(of: path, database: name, mask: UInt64(mask) << 32, choose: choose)
    }

    /// Flips bits `mask` of the value's size of one record of `database` (`entries` unless named) in the closed log at
    /// `path`, past LMDB, as ``flipRecordFlagsInFile(of:database:mask:choose:)`` flips its flags: the size is the node's
    /// first 4 bytes, its low half first. Returns the key.
    @discardableResult
    public static func flipValueSizeInFile(
        of path: String, database name: String = "entries", mask: UInt32, choose: ([[UInt8]]) -> [UInt8]
    ) throws -> [UInt8] {
        try flipNodeHeaderInFile(of: path, database: name, mask: UInt64(mask), choose: choose)
    }

    /// Flips bits `mask` of the first 6 bytes of the leaf nodes holding the key `choose` picks (the value's size, then the
    /// flags), read as one little-endian number.
    private static func flipNodeHeaderInFile(
        of path: String, database name: String?, mask: UInt64, choose: ([[UInt8]]) -> [UInt8]
    ) throws -> [UInt8] {
        let environment = try Environment(path: path)
        let database = try environment.openDatabase(name)
        let key = choose(try environment.read { txn in try Self.keys(of: database, in: txn) })
        let file = URL(fileURLWithPath: path).appendingPathComponent("data.mdb")
        var bytes = [UInt8](try Data(contentsOf: file))
        let page = 4096
        for offset in 2 * page..<bytes.count - key.count
        where bytes[offset..<offset + key.count].elementsEqual(key) && bytes[offset - 2] == key.count && bytes[offset - 1] == 0
            && bytes[offset - offset % page + 10] & 2 != 0 {
            for byte in 0..<6 { bytes[offset - 8 + byte] ^= UInt8(truncatingIfNeeded: mask >> UInt64(8 * byte)) }
        }
        try Data(bytes).write(to: file)
        return key
    }

    /// Sets bits `flag` in the flags (byte 10) of every leaf page (flags 0x02, reached or left over) of the data file at
    /// `source`, and writes the result to `destination` (the source itself when `nil`); returns the bytes written.
    @discardableResult
    public static func markLeafPages(of source: String, with flag: UInt8, writingTo destination: String? = nil) throws -> Data {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        for page in 2..<bytes.count / 4096 where bytes[page * 4096 + 10] == 0x02 { bytes[page * 4096 + 10] |= flag }
        try bytes.write(to: URL(fileURLWithPath: destination ?? source))
        return bytes
    }

    /// Edits, with `edit` (given the file's bytes and the offset of the key in them), the leaf node of `database` that
    /// holds the key `choose` picks, in the closed log at `path`, and returns that key. A leaf node is its header (the
    /// data's size, flags, then the key's size) and the key: the page's flags (at byte 10 of its 4,096) say leaf (2),
    /// where a branch page holds a copy of some keys. Pages LMDB freed may hold older copies of the node: each match
    /// is tried until the log's keys change.
    private static func editLeafNode(
        of path: String, database name: String = "entries", choose: ([[UInt8]]) -> [UInt8], _ edit: (inout [UInt8], Int) -> Void
    ) throws -> [UInt8] {
        func keys() throws -> [[UInt8]] {
            let environment = try Environment(path: path)
            let database = try environment.openDatabase(name)
            return try environment.read { txn in try Self.keys(of: database, in: txn) }
        }
        let key = choose(try keys())
        let file = URL(fileURLWithPath: path).appendingPathComponent("data.mdb")
        let original = [UInt8](try Data(contentsOf: file))
        let page = 4096
        var offset = 2 * page
        while offset + key.count <= original.count {
            defer { offset += 1 }
            guard original[offset..<offset + key.count].elementsEqual(key), original[offset - 2] == key.count, original[offset - 1] == 0,
                  original[offset - offset % page + 10] & 2 != 0 else { continue }
            var bytes = original
            edit(&bytes, offset)
            try Data(bytes).write(to: file)
            if try !keys().contains(key) { return key }
            try Data(original).write(to: file)
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    /// One of a data file's two meta pages: the one LMDB reads the log from (the higher transaction id, the first on
    /// a tie), or the other, which records the commit before.
    public enum MetaPageChoice: Sendable {
        case current, other
    }

    /// Flips bits `mask` of byte `offset` of a meta page of the closed log at `path` (16: LMDB's magic; 128: the main
    /// database's root page number; 144: the transaction id; the layout is in `MetaPage`'s documentation), past LMDB;
    /// returns the page's index (0 or 1).
    @discardableResult
    public static func flipMetaPage(of path: String, _ choice: MetaPageChoice, at offset: Int, mask: UInt8) throws -> Int {
        let file = URL(fileURLWithPath: path).appendingPathComponent("data.mdb")
        var bytes = [UInt8](try Data(contentsOf: file))
        let transaction = { (page: Int) in bytes[page * 4096 + 144..<page * 4096 + 152].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        let current = transaction(1) > transaction(0) ? 1 : 0
        let page = choice == .current ? current : 1 - current
        bytes[page * 4096 + offset] ^= mask
        try Data(bytes).write(to: file)
        return page
    }

    /// The transaction ids of the two meta pages of the closed log at `path`.
    public static func metaPageTransactions(of path: String) throws -> [UInt64] {
        try metaPageValues(of: path, at: 144)
    }

    /// The little-endian u64 at byte `offset` of each of the two meta pages of the closed log at `path` (128: the main
    /// database's root; 136: the last page; 144: the transaction id).
    public static func metaPageValues(of path: String, at offset: Int) throws -> [UInt64] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path).appendingPathComponent("data.mdb")))
        return [0, 1].map { page in bytes[page * 4096 + offset..<page * 4096 + offset + 8].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
    }

    /// Makes the commit before the last current in the closed log at `path` with ids that keep the pattern commits
    /// leave (page 0 even, page 1 the odd one next to it): the last commit's id lowered by two (`lowerTheLast`), or the
    /// older page's raised by two, as a bad bit in bit 1 does.
    public static func makeCommitBeforeCurrent(of path: String, lowerTheLast: Bool) throws {
        let ids = try metaPageTransactions(of: path)
        let current = ids[1] > ids[0] ? 1 : 0
        let (page, id) = lowerTheLast ? (current, ids[current] - 2) : (1 - current, ids[1 - current] + 2)
        try setMetaPage(of: path, page: page, at: 144, to: id)
    }

    /// The root page of the named database `name` in the closed log at `path`, as the main database's record of it
    /// in the commit LMDB reads gives it (byte 40 of its 48), or in the commit before (`commit`); the main database must
    /// be one leaf page, as in a small log.
    public static func databaseRoot(of path: String, database name: String, in commit: MetaPageChoice = .current) throws -> Int {
        try databaseRoot(in: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path).appendingPathComponent("data.mdb"))), name, commit)
    }

    /// ``databaseRoot(of:database:in:)`` in the bytes of a data file.
    private static func databaseRoot(in bytes: [UInt8], _ name: String, _ commit: MetaPageChoice) throws -> Int {
        func integer(_ at: Int, _ size: Int) -> Int { littleEndian(bytes, at: at, size: size) }
        let ids = [0, 1].map { integer($0 * 4096 + 144, 8) }
        let current = ids[1] > ids[0] ? 1 : 0
        let main = integer((commit == .current ? current : 1 - current) * 4096 + 128, 8) * 4096
        guard integer(main + 10, 2) & 0x02 != 0 else { throw CocoaError(.fileReadCorruptFile) }
        for index in 0..<(integer(main + 12, 2) - 16) / 2 {
            let node = main + integer(main + 16 + 2 * index, 2), keySize = integer(node + 6, 2)
            if bytes[node + 8..<node + 8 + keySize].elementsEqual(name.utf8), integer(node + 4, 2) & 0x02 != 0 {
                return integer(node + 8 + keySize + 40, 8)
            }
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    /// Zeroes the first 512-byte sector of page `page` (its header and first node offsets) of the closed log at `path`, as
    /// storage that loses power, or a sector, leaves it.
    public static func zeroFirstSector(of path: String, page: Int) throws {
        try zero(of: path, page: page, bytes: 512)
    }

    /// Zeroes the whole of page `page` of the closed log at `path`: its header and every record, which no reader can
    /// rebuild (a root leaf whose first sector alone is zeroed is rebuilt from its records since 2026-12-06).
    public static func zeroPage(of path: String, page: Int) throws {
        try zero(of: path, page: page, bytes: 4096)
    }

    /// Zeroes the first `count` bytes of page `page` of the closed log at `path`.
    private static func zero(of path: String, page: Int, bytes count: Int) throws {
        let file = URL(fileURLWithPath: path).appendingPathComponent("data.mdb")
        var bytes = try Data(contentsOf: file)
        bytes.replaceSubrange(page * 4096..<page * 4096 + count, with: Data(count: count))
        try bytes.write(to: file)
    }

    /// The leaf pages of the named database `name` in the closed log at `path`, in key order, walked from its root
    /// (``databaseRoot(of:database:in:)``) in `commit` through its branch pages.
    public static func leafPages(of path: String, database name: String, in commit: MetaPageChoice = .current) throws -> [Int] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path).appendingPathComponent("data.mdb")))
        func integer(_ at: Int, _ size: Int) -> Int { littleEndian(bytes, at: at, size: size) }
        func leaves(under page: Int) -> [Int] {
            let start = page * 4096
            guard integer(start + 10, 2) & 0x01 != 0 else { return [page] }
            // A branch node's first 6 bytes are its child's page number.
            return (0..<(integer(start + 12, 2) - 16) / 2).flatMap { leaves(under: integer(start + integer(start + 16 + 2 * $0, 2), 6)) }
        }
        return leaves(under: try databaseRoot(in: bytes, name, commit))
    }

    /// The little-endian integer of `size` bytes at `offset` of `bytes`.
    private static func littleEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> Int {
        bytes[offset..<offset + size].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// Writes `value` as the little-endian u64 at byte `offset` of meta page `page` (0 or 1) of the closed log at `path`
    /// (128: the main database's root; 136: the last page; 144: the transaction id), past LMDB.
    public static func setMetaPage(of path: String, page: Int, at offset: Int, to value: UInt64) throws {
        let file = URL(fileURLWithPath: path).appendingPathComponent("data.mdb")
        var bytes = [UInt8](try Data(contentsOf: file))
        withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(page * 4096 + offset..<page * 4096 + offset + 8, with: $0) }
        try Data(bytes).write(to: file)
    }
}

/// A record of an LMDB data file that a bad bit damaged where LMDB finds it, as the record's own bytes, its page and its
/// tree show: mended in a copy by ``FallbackCopy/mendRecords(dataFile:databases:leavingOutPages:rootLeafKeySizes:)``. A reader of the file as it is
/// refuses it whole (such a record often lies on a page both meta pages' commits share), since LMDB would follow the
/// damage outside the file: a flag LMDB never gives the record (big data, 0x01, takes the value's first 8 bytes for an
/// overflow page's number; duplicates, 0x04, reads the value as a tree of duplicates the database cannot have), a
/// named database's flag cleared from its record (LMDB refuses to open the database) or its name changed (LMDB does
/// not find it), a big value's flag cleared from its record (LMDB reads the overflow run's page number and the bytes
/// after it as the value), a branch node's child page number (LMDB reads another page in its place), a value's or a key's size
/// that runs past the page, the node's offset in its page's table, or where the page's nodes start. Read mended, the
/// record is what was written, which its own checksum (ReactorLog's entries and metadata carry one) then confirms. Found by ``PageTreeCheck/mendableRecords(inDataFile:databases:leavingOutPages:rootLeafKeySizes:)``.
public struct MendedRecord: Sendable, Equatable {
    /// What the bad bit changed.
    public enum Damage: Sendable, Equatable {
        /// Flags LMDB never gives the record, cleared: big data (0x01), a named database's record (0x02), duplicates
        /// (0x04).
        case flags(cleared: UInt16)
        /// The value's size, which ran past the page: the size stated.
        case size(stated: Int)
        /// The key's size, which ran past the page: the size stated.
        case keySize(stated: Int)
        /// The node's offset in its page's table of offsets: the offset stated.
        case offset(stated: Int)
        /// Where the page's nodes start (`upper`, the u16 at byte 14 of the page), which LMDB's compacting copy copies
        /// the page by: the start stated. ``node`` is then 0, ``offsetInPage`` the start mended.
        case upper(stated: Int)
        /// The flag (0x02) that makes a record of the main database a named database's, which the record's 48 bytes
        /// show it is (they describe a tree no other record reaches): set again. LMDB refuses to open the database
        /// without it. The database as the walk names it: "database 'entries'".
        case databaseFlag(database: String)
        /// The key of a named database's record in the main database, its name, one bit from the name of a database the
        /// file's owner opens and no record has: the name stated, each byte that is not printable ASCII shown as `\xNN`.
        /// LMDB does not find the database without its name. The database as the walk names it, mended.
        case databaseName(stated: String, database: String)
        /// A branch node's child page number (the node's first 6 bytes: 2 + 2 of its size fields, 2 of its flags, as
        /// one 48-bit number), one bit from `page`, the page whose subtree no other page reaches and whose keys lie
        /// where the branch's keys put the child: the number stated.
        case childPage(stated: UInt64, page: UInt64)
        /// The big-data flag (0x01) of a record whose value LMDB keeps on overflow pages, which a bad bit cleared: set
        /// again. Its place in its page holds the page number of the run of `pages` overflow pages from `first`, which
        /// nothing else reaches and which is exactly as long as the value needs. LMDB would read the page number and the
        /// bytes after it as the value.
        case bigDataFlag(first: UInt64, pages: Int)
        /// A leaf page of a named database's tree damaged beyond mending (`reason`, what the walk found), which no other
        /// page reaches: the copy gets in its place a leaf of one record under the lowest key the branches above give
        /// it, with an empty value, which the file's owner reads as damaged. The page's records are left out, not mended:
        /// ``bytes`` is the whole page.
        case pageLeftOut(reason: String)
        /// A branch page of a named database's tree damaged beyond mending (`reason`, what the walk found), which no other
        /// page reaches: the copy gets in its place a branch of its `children`, the pages of the level below that nothing
        /// else reaches and the free list does not name, each heading a sound subtree whose keys lie where the branches
        /// above put the page's, in the order of their keys; the tree so rebuilt holds exactly the pages and records its
        /// database's record counts. Nothing is left out: ``bytes`` is the whole page.
        case branchRebuilt(reason: String, children: Int)
        /// The root leaf of a named database whose header alone is damaged (`reason`, what the walk found): its
        /// `records` plain records lie end to end to the page's end, as many as the database's record counts, past the
        /// damage, from exactly one place in the page. The copy gets the page with its header and its table of offsets
        /// written again, in the order of the keys. Nothing is left out: ``bytes`` is the whole page.
        case leafRebuilt(reason: String, records: Int)
    }

    /// Whether the copy leaves records out (``Damage/pageLeftOut(reason:)``), rather than reading them as written.
    public var leavesOut: Bool {
        if case .pageLeftOut = damage { true } else { false }
    }

    /// What the bad bit changed.
    public let damage: Damage
    /// Where in the data file the copy is given ``bytes``: the node's start (its value's size, 2 + 2 bytes, then its
    /// flags, 2, little-endian), its key's size (2 bytes after those), its entry in the page's table of offsets, or the
    /// page's `upper` (2 bytes each).
    public let fileOffset: Int
    /// What the copy is given at ``fileOffset``.
    public let bytes: [UInt8]
    /// The page that holds the record.
    public let page: UInt64
    /// The node's index on its page.
    public let node: Int
    /// The tree the page belongs to, as the walk names it ("database 'entries'").
    public let tree: String
    /// The size of the record's value, mended where that was damaged.
    public let valueSize: Int
    /// Where the node lies in its page, mended where that was damaged.
    public let offsetInPage: Int
    /// The size of the record's key, mended where that was damaged (0 for a page's `upper`).
    public let keySize: Int

    /// What was wrong with the record, a clause of a sentence about its data file: "flags a record as stored on
    /// overflow pages, though its 6 bytes lie in its page (node 0 of page 2, in database 'meta')".
    public var problem: String {
        let record = "(node \(node) of page \(page), in \(tree))"
        return switch damage {
        case .pageLeftOut(let reason): "has a leaf page damaged beyond mending (\(reason))"
        case .branchRebuilt(let reason, let children):
            "has a branch page that cannot be read (\(reason)), rebuilt from the \(children) page\(children == 1 ? "" : "s") under it, which nothing else reaches"
        case .leafRebuilt(let reason, let records):
            "has a leaf page whose header cannot be read (\(reason)), rebuilt from the \(records == 1 ? "1 record that fills" : "\(records) records that fill") its end"
        case .upper(let stated): "starts a page's nodes at byte \(stated), though they start at byte \(offsetInPage) (page \(page), in \(tree))"
        case .size(let stated): "gives a record's value as \(stated) bytes, though its place in its page holds \(valueSize) \(record)"
        case .keySize(let stated): "gives a record's key as \(stated) bytes, though its place in its page holds \(keySize) \(record)"
        case .offset(let stated): "places a record at byte \(stated) of its page, though its place is byte \(offsetInPage) \(record)"
        case .childPage(let stated, let page):
            "gives a branch node's child as page \(stated), though its child is page \(page), one bit from it, which nothing else reaches \(record)"
        case .databaseName(let stated, let database):
            "names the main database's record of \(database) '\(stated)', one bit from that name, which no record has \(record)"
        case .databaseFlag(let database):
            "marks the main database's record of \(database) as a plain value, though its 48 bytes describe that database's tree \(record)"
        case .bigDataFlag(let first, let pages):
            "marks a record as held in its page, though its \(valueSize) bytes lie on the \(pages) overflow pages from page \(first), which nothing else reaches \(record)"
        case .flags(let cleared) where cleared & 0x01 != 0:
            "flags a record as stored on overflow pages, though its \(valueSize) bytes lie in its page \(record)"
        case .flags(let cleared) where cleared & 0x04 != 0: "flags a record as holding duplicates, in a database that keeps none \(record)"
        case .flags: "flags a record as a named database's, outside the main database \(record)"
        }
    }

    /// The 6 bytes a branch node starts with: its child's page number, 48 bits, little-endian.
    static func header(child page: UInt64) -> [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: page >> UInt64(8 * $0)) }
    }

    /// `key` as a sentence shows it: its bytes of printable ASCII as they are, the others as `\xNN` (hexadecimal).
    package static func shown(_ key: [UInt8]) -> String {
        key.map { byte in
            guard !(0x20..<0x7F).contains(byte) else { return String(UnicodeScalar(byte)) }
            let hex = String(byte, radix: 16, uppercase: true)
            return "\\x" + (hex.count < 2 ? "0" : "") + hex
        }.joined()
    }

    /// The 6 bytes a node starts with: its value's size, low half first, then its flags.
    static func header(valueSize: Int, flags: UInt16) -> [UInt8] {
        var bytes: [UInt8] = []
        for half in [UInt16(truncatingIfNeeded: valueSize), UInt16(truncatingIfNeeded: valueSize >> 16), flags] {
            withUnsafeBytes(of: half.littleEndian) { bytes += $0 }
        }
        return bytes
    }

    /// The flags among `flags` (those LMDB reads a record by) that LMDB never gives a record of a leaf page in the main
    /// database (`inMainDatabase`) or a named one, whose key and value are `keySize` and `valueSize` bytes and whose
    /// value, read in its page, would end at `valueEnd`; 0 where there are none. Duplicates (0x04): no database of a
    /// file the walk reads keeps sorted duplicates. A named database's record (0x02): one lies in the main database only.
    /// Big data (0x01): LMDB puts a value in overflow pages only when its node (8 bytes of header, the key, the value)
    /// would pass the largest node a page takes, and a value that small also lies whole in its page. A bad bit in a
    /// flag leaves both sizes as written.
    static func wrongFlags(_ flags: UInt16, inMainDatabase: Bool, keySize: Int, valueSize: Int, valueEnd: Int, pageSize: Int) -> UInt16 {
        var wrong = flags & 0x04
        if !inMainDatabase { wrong |= flags & 0x02 }
        if flags & 0x01 != 0, 8 + keySize + valueSize <= largestNode(pageSize: pageSize), valueEnd <= pageSize { wrong |= 0x01 }
        return wrong
    }

    /// The size of one part of a node (its value held in its page, or its key) whose other part takes `besides` bytes
    /// (the key; the value, 8 bytes of a page number for big data, or nothing in a branch page), where the node takes
    /// the `room` bytes from its offset to the next node's (or the page's end) and the size it states, `stated`, is one
    /// bad bit from it; `nil` where no such size fills the room. LMDB lays a page's nodes end to end, each 8 bytes of
    /// header, the key and the value, made even: of the two sizes that fill the room, one at most is one bit from the
    /// size stated.
    static func sizeFilling(room: Int, besides: Int, stated: Int) -> Int? {
        let fits = [room - 8 - besides, room - 9 - besides].filter { $0 >= 0 && (8 + besides + $0 + 1) & ~1 == room }
        return fits.first { ($0 ^ stated).nonzeroBitCount == 1 }
    }

    /// Of a page's node offsets (`offsets`, in the order of its table), which one a bad bit changed and what it was, where
    /// exactly one offset, set one bit from what it states, makes the nodes lie end to end from `upper` to `pageSize`, as
    /// LMDB lays them (each node's extent, from its offset, given by `extent`); `nil` where the nodes lie so already, or
    /// no single bit, or more than one, does that.
    static func offsetFilling(_ offsets: [Int], upper: Int, pageSize: Int, extent: (Int) -> Int) -> (index: Int, offset: Int)? {
        func tiles(_ offsets: [Int]) -> Bool { Self.tiles(offsets, from: upper, pageSize: pageSize, extent: extent) }
        guard !tiles(offsets) else { return nil }
        var found: [(index: Int, offset: Int)] = []
        for index in offsets.indices {
            for bit in 0..<16 {
                var candidate = offsets
                candidate[index] ^= 1 << bit
                if candidate[index] >= upper, candidate[index] + 8 <= pageSize, tiles(candidate) { found.append((index, candidate[index])) }
            }
        }
        return found.count == 1 ? found[0] : nil
    }

    /// Where a page's nodes start, where its `upper` (`stated`) is one bad bit from it: the lowest of `offsets`, where
    /// the nodes lie end to end from there to `pageSize`, as LMDB lays them (each node's extent given by `extent`);
    /// `nil` otherwise.
    static func upperFilling(_ offsets: [Int], stated: Int, pageSize: Int, extent: (Int) -> Int) -> Int? {
        guard let start = offsets.min(), (start ^ stated).nonzeroBitCount == 1,
              tiles(offsets, from: start, pageSize: pageSize, extent: extent)
        else { return nil }
        return start
    }

    /// Whether nodes at `offsets` lie end to end from `upper` to `pageSize`, each node's extent, from its offset, given by
    /// `extent`.
    static func tiles(_ offsets: [Int], from upper: Int, pageSize: Int, extent: (Int) -> Int) -> Bool {
        var end = upper
        for offset in offsets.sorted() {
            guard offset == end, offset + 8 <= pageSize else { return false }
            end = offset + extent(offset)
        }
        return end == pageSize
    }

    /// The largest node LMDB 0.9 keeps in a page of `pageSize` bytes (`me_nodemax`): half of what follows the page's
    /// 16-byte header, made even, less the 2 bytes of the node's offset.
    static func largestNode(pageSize: Int) -> Int {
        (((pageSize - 16) / 2) & ~1) - 2
    }
}

/// A record of an LMDB data file with a flag LMDB never gives such a record, as the record's own bytes and its tree
/// show: a bad bit's work, cleared in a copy by ``FallbackCopy/mendRecordFlags(dataFile:)``. A reader of the file as it
/// is refuses it whole (a record with a wrong flag usually lies on a page both meta pages' commits share), since LMDB
/// would follow the flag: big data (0x01) takes the value's first 8 bytes for an overflow page's number, duplicates
/// (0x04) reads the value as a tree of duplicates the database cannot have. Read without the flag, the record is what
/// was written, which its own checksum (ReactorLog's entries and metadata carry one) then confirms. Found by
/// ``PageTreeCheck/mendableRecords(inDataFile:)``.
public struct MendedRecord: Sendable, Equatable {
    /// Where in the data file the node's 2 bytes of flags lie.
    public let flagsOffset: Int
    /// The node's flags with the wrong ones cleared: what the copy is given.
    public let flags: UInt16
    /// The flags cleared: big data (0x01), a named database's record (0x02), duplicates (0x04).
    public let cleared: UInt16
    /// The page that holds the record.
    public let page: UInt64
    /// The node's index on its page.
    public let node: Int
    /// The tree the page belongs to, as the walk names it ("database 'entries'").
    public let tree: String
    /// The size of the record's value, in bytes.
    public let valueSize: Int

    /// What was wrong with the record, a clause of a sentence about its data file: "flags a record as stored on
    /// overflow pages, though its 6 bytes lie in its page (node 0 of page 2, in database 'meta')".
    public var problem: String {
        let wrong = cleared & 0x01 != 0 ? "as stored on overflow pages, though its \(valueSize) bytes lie in its page"
            : cleared & 0x04 != 0 ? "as holding duplicates, in a database that keeps none"
            : "as a named database's, outside the main database"
        return "flags a record \(wrong) (node \(node) of page \(page), in \(tree))"
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

    /// The largest node LMDB 0.9 keeps in a page of `pageSize` bytes (`me_nodemax`): half of what follows the page's
    /// 16-byte header, made even, less the 2 bytes of the node's offset.
    static func largestNode(pageSize: Int) -> Int {
        (((pageSize - 16) / 2) & ~1) - 2
    }
}

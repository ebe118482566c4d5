/// A record of an LMDB data file whose node header a bad bit changed, as the record's own bytes, its page and its tree
/// show: mended in a copy by ``FallbackCopy/mendRecords(dataFile:)``. A reader of the file as it is refuses it whole
/// (such a record usually lies on a page both meta pages' commits share), since LMDB would follow the header outside
/// the file: a flag LMDB never gives the record (big data, 0x01, takes the value's first 8 bytes for an overflow
/// page's number; duplicates, 0x04, reads the value as a tree of duplicates the database cannot have), or a value's
/// size that runs past the page. Read with the header mended, the record is what was written, which its own checksum
/// (ReactorLog's entries and metadata carry one) then confirms. Found by ``PageTreeCheck/mendableRecords(inDataFile:)``.
public struct MendedRecord: Sendable, Equatable {
    /// Where in the data file the node starts: its value's size (2 + 2 bytes, little-endian, low half first), then its
    /// flags (2 bytes), as the copy is given them.
    public let nodeOffset: Int
    /// The node's flags, the wrong ones cleared: what the copy is given.
    public let flags: UInt16
    /// The flags cleared: big data (0x01), a named database's record (0x02), duplicates (0x04); 0 where the size was
    /// mended.
    public let cleared: UInt16
    /// The size of the record's value, as the copy is given it.
    public let valueSize: Int
    /// The size the node stated, where that is what was mended; `nil` where a flag was.
    public let statedSize: Int?
    /// The page that holds the record.
    public let page: UInt64
    /// The node's index on its page.
    public let node: Int
    /// The tree the page belongs to, as the walk names it ("database 'entries'").
    public let tree: String

    /// What was wrong with the record, a clause of a sentence about its data file: "flags a record as stored on
    /// overflow pages, though its 6 bytes lie in its page (node 0 of page 2, in database 'meta')".
    public var problem: String {
        let wrong = if let statedSize {
            "gives a record's value as \(statedSize) bytes, though its place in its page holds \(valueSize)"
        } else if cleared & 0x01 != 0 {
            "flags a record as stored on overflow pages, though its \(valueSize) bytes lie in its page"
        } else if cleared & 0x04 != 0 {
            "flags a record as holding duplicates, in a database that keeps none"
        } else {
            "flags a record as a named database's, outside the main database"
        }
        return "\(wrong) (node \(node) of page \(page), in \(tree))"
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

    /// The size of the value of a record whose node, `keySize` bytes of key and a value held in its page, takes the
    /// `room` bytes from its offset to the next node's (or the page's end), where the size it states, `stated`, is one
    /// bad bit from it; `nil` where no such size fills the room. LMDB lays a page's nodes end to end, each 8 bytes of
    /// header, the key and the value, made even: of the two sizes that fill the room, one at most is one bit from the
    /// size stated.
    static func sizeFilling(room: Int, keySize: Int, stated: Int) -> Int? {
        let fits = [room - 8 - keySize, room - 9 - keySize].filter { $0 >= 0 && (8 + keySize + $0 + 1) & ~1 == room }
        return fits.first { ($0 ^ stated).nonzeroBitCount == 1 }
    }

    /// The largest node LMDB 0.9 keeps in a page of `pageSize` bytes (`me_nodemax`): half of what follows the page's
    /// 16-byte header, made even, less the 2 bytes of the node's offset.
    static func largestNode(pageSize: Int) -> Int {
        (((pageSize - 16) / 2) & ~1) - 2
    }
}

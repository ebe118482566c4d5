/// One of the two meta pages an LMDB data file begins with, as its bytes say (LMDB 0.9, 64-bit), unchecked: read by
/// ``DataFileCheck`` and ``PageTreeCheck`` before LMDB maps the file, one parser and one rule for which page is current.
///
/// After a 16-byte page header a meta page holds the magic `0xBEEFC0DE` (byte 16), version 1 (byte 20), the map's
/// address and size, then two 48-byte database records, the free list's (byte 40, whose first field, `md_pad`, is the
/// page size) and the main database's (byte 88), each with its depth 6 bytes in and its root page 40 bytes in; then
/// the last page used (`mm_last_pg`, byte 136) and the transaction id (`mm_txnid`, byte 144).
struct MetaPage {
    /// The bytes a meta page is read from.
    static let size = 152

    let magic: UInt32
    let version: UInt32
    /// The page size as written (the free list's `md_pad`).
    let pageSizeField: UInt32
    let lastPage: UInt64
    let transaction: UInt64
    let freeRoot: UInt64, freeDepth: UInt16
    let mainRoot: UInt64, mainDepth: UInt16

    /// Whether the page carries LMDB's magic number.
    var isLMDB: Bool { magic == 0xBEEF_C0DE }
    /// Whether LMDB takes the page as a meta page: its magic and version 1. LMDB looks at the page size only after
    /// choosing the current page, and then divides by it and reads pages by it.
    var isValid: Bool { isLMDB && version == 1 }
    /// The page size, when it is one LMDB could have written (a power of two from 512 to 65,536).
    var pageSize: Int? {
        pageSizeField >= 512 && pageSizeField <= 65_536 && pageSizeField.nonzeroBitCount == 1 ? Int(pageSizeField) : nil
    }

    /// Reads a meta page from `bytes`, which hold at least ``size`` bytes.
    init(_ bytes: UnsafeRawBufferPointer) {
        func integer<T: FixedWidthInteger>(_ at: Int) -> T { T(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: T.self)) }
        magic = integer(16)
        version = integer(20)
        pageSizeField = integer(40)
        freeDepth = integer(40 + 6)
        freeRoot = integer(40 + 40)
        mainDepth = integer(88 + 6)
        mainRoot = integer(88 + 40)
        lastPage = integer(136)
        transaction = integer(144)
    }

    /// The file's meta pages, read by `read` (the ``size`` bytes at an offset, or `nil` past the file's end): the first
    /// at offset 0, the second one page later by the first's page size, where LMDB reads it. A first page without a
    /// possible page size leaves no place to look for a second.
    static func pages(_ read: (Int) -> UnsafeRawBufferPointer?) -> [MetaPage] {
        guard let first = read(0).map(MetaPage.init) else { return [] }
        guard let offset = first.pageSize, let second = read(offset).map(MetaPage.init) else { return [first] }
        return [first, second]
    }

    /// Of `pages`, the one LMDB makes current: the valid one with the higher transaction id, the first on a tie, whatever
    /// its page size (which the caller must check: a damaged size in the current page made LMDB divide by zero or
    /// read past its map).
    static func current(of pages: [MetaPage]) -> MetaPage? {
        pages.filter(\.isValid).max { $0.transaction < $1.transaction }
    }

    /// Of `pages` (both meta pages), the one to read a log from when the other cannot be: where both are valid, the
    /// one LMDB does not make current, the commit before the last, whose trees LMDB keeps whole until the next commit;
    /// where only one is (LMDB then opens neither), that one. With the index of the other page, which a copy to be
    /// read this way must overwrite. `nil` unless both pages were found and the fallback's page size is the first's.
    static func fallback(of pages: [MetaPage]) -> (page: MetaPage, replacing: Int)? {
        guard pages.count == 2, let size = pages[0].pageSize else { return nil }
        let valid = pages.indices.filter { pages[$0].isValid && pages[$0].pageSize == size }
        switch valid.count {
        case 1: return (pages[valid[0]], 1 - valid[0])
        case 2:
            // LMDB makes the first current on a tie.
            let current = pages[1].transaction > pages[0].transaction ? 1 : 0
            return (pages[1 - current], current)
        default: return nil
        }
    }
}

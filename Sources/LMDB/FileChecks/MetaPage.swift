#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One of the two meta pages an LMDB data file begins with, as its bytes say (LMDB 0.9, 64-bit), unchecked: read by
/// ``DataFileCheck`` and ``PageTreeCheck`` before LMDB maps the file, one parser and one rule for which pages LMDB reads.
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
        Self.possiblePageSizes.contains(Int(pageSizeField)) ? Int(pageSizeField) : nil
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
    /// at offset 0, the second one page later by the first's page size, where LMDB reads it. Where the first gives no
    /// possible page size (a zeroed first sector, say), the second is the page, at one of the possible sizes, that
    /// carries LMDB's magic and records that size as its own.
    static func pages(_ read: (Int) -> UnsafeRawBufferPointer?) -> [MetaPage] {
        guard let first = read(0).map(MetaPage.init) else { return [] }
        if let offset = first.pageSize {
            guard let second = read(offset).map(MetaPage.init) else { return [first] }
            return [first, second]
        }
        for offset in possiblePageSizes {
            guard let bytes = read(offset) else { break }
            let second = MetaPage(bytes)
            if second.isLMDB && second.pageSize == offset { return [first, second] }
        }
        return [first]
    }

    /// The page sizes LMDB could have written, in order: the powers of two from 512 to 65,536.
    private static let possiblePageSizes = (9...16).map { 1 << $0 }

    /// The meta pages of the open file `descriptor`, read with `pread` (``pages(_:)``).
    static func pages(of descriptor: Int32) -> [MetaPage] {
        var bytes = [UInt8](repeating: 0, count: size)
        return bytes.withUnsafeMutableBytes { buffer in
            pages { offset in
                pread(descriptor, buffer.baseAddress, size, off_t(offset)) == size ? UnsafeRawBufferPointer(buffer) : nil
            }
        }
    }

    /// Of `pages`, those LMDB may read the log from, whatever their page size (which the caller must check: a damaged
    /// size made LMDB divide by zero or read past its map). LMDB takes the highest transaction id of the valid pages (the
    /// first on a tie) for the last commit's, then reads, with its lock file, the page at the index of that id's parity
    /// (`me_metas[txnid & 1]`), and without one (`MDB_NOLOCK`) the page with that id: one page where the ids' parity is
    /// sound (page 0 even, page 1 odd), both where a bad bit broke it. Empty where no page is valid.
    static func readable(of pages: [MetaPage]) -> [MetaPage] {
        guard let highest = Self.highest(of: pages) else { return [] }
        let byParity = Int(pages[highest].transaction & 1)
        guard byParity != highest, byParity < pages.count, pages[byParity].isValid else { return [pages[highest]] }
        return [pages[byParity], pages[highest]]
    }

    /// The index of the valid page of `pages` with the highest transaction id, the first on a tie.
    private static func highest(of pages: [MetaPage]) -> Int? {
        pages.indices.filter { pages[$0].isValid }.max { pages[$0].transaction < pages[$1].transaction }
    }

    /// Why the transaction ids of `pages` (both meta pages, valid) are not what LMDB's commits leave, as a clause; `nil`
    /// where they are, or a page is missing or not valid. A commit writes its meta page at the index of its transaction
    /// id's parity, the id one above the last's, so page 0 holds an even id and page 1 the odd one next to it (a new
    /// file's pages both hold 0). A bad bit in an id that does not break this leaves LMDB reading the page it would
    /// anyway, unless it makes the older page current, which no check of the ids alone tells: the pages' free lists do
    /// (`PageTreeCheck.commitOrderProblem(file:metas:)`).
    static func transactionProblem(of pages: [MetaPage]) -> String? {
        guard pages.count == 2, pages.allSatisfy(\.isValid) else { return nil }
        let (even, odd) = (pages[0].transaction, pages[1].transaction)
        if even == 0 && odd == 0 { return nil }
        guard even % 2 != 0 || odd % 2 != 1 || max(even, odd) - min(even, odd) != 1 else { return nil }
        return "has meta pages whose transaction ids, \(even) and \(odd), no run of commits leaves (page 0 holds an even one, page 1 the odd one next to it): one is damaged, and the page LMDB reads may hold the commit before the last"
    }

    /// Of `pages` (both meta pages), the one to read a log from when the other cannot be: where both are valid, the
    /// one LMDB does not make current, the commit before the last, whose trees LMDB keeps whole until the next commit;
    /// where only one is (LMDB then opens neither), that one. With the index of the other page, which a copy to be
    /// read this way must overwrite. `nil` unless both pages were found and the fallback's page size is the first's (the
    /// second's, where a damaged first gives none).
    static func fallback(of pages: [MetaPage]) -> (page: MetaPage, replacing: Int)? {
        // The first page's size, or the second's where a damaged first gives none (``pages(_:)`` found it by it).
        guard pages.count == 2, let size = pages[0].pageSize ?? pages[1].pageSize else { return nil }
        let valid = pages.indices.filter { pages[$0].isValid && pages[$0].pageSize == size }
        switch valid.count {
        case 1: return (pages[valid[0]], 1 - valid[0])
        case 2:
            // The page LMDB reads with its lock file (``readable(of:)``).
            let current = highest(of: pages).map { Int(pages[$0].transaction & 1) } ?? 0
            return (pages[1 - current], current)
        default: return nil
        }
    }
}

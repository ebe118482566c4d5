#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Walks every B-tree of an LMDB data file before LMDB opens it, reading each page in place from a read-only map
/// only after checking that the file holds it, and checks each page LMDB would reach: LMDB follows page numbers and node offsets without checking them, so one damaged byte in a branch
/// page makes it read outside the map (SIGSEGV, SIGBUS), which no Swift code can catch.
///
/// The layout (LMDB 0.9, 64-bit, no `MDB_DUPSORT`): a page starts with its number (8 bytes), 2 unused bytes, its
/// flags (2: branch 0x01, leaf 0x02, overflow 0x04), then `lower` and `upper` (2 + 2), or an overflow page's page
/// count (4). Node offsets (2 bytes each) run from byte 16 to `lower`; the nodes lie between `upper` and the page's
/// end. A node is 2 + 2 bytes of size (a branch node's child page number, with the flags field as its high bits),
/// 2 of flags (big data 0x01, sub-database 0x02, duplicates 0x04), 2 of key size, the key, then the data: the
/// value, an overflow page number (big data), or a 48-byte database record (sub-database: a named database's
/// tree, whose root is at byte 40 and depth at byte 6).
///
/// Checked: every page number within the pages the meta page declares, each page's stored number (for a reader, one
/// bit from it will do: readers never read it), flags (its type alone), bounds and node extents (for a writer, that no
/// node runs into another), overflow runs, the depth of every leaf against its tree's declared depth, that no page is
/// reached twice (no cycles), that free-list page numbers lie within the file, and that no tree reaches a page the
/// free list of its commit names (a root left as the commit before's, which LMDB would read silently). LMDB's readers
/// never read the free list, so damage to it alone is refused to a writer and passed over for a reader, whose walk goes
/// on as though there were no free list.
public enum PageTreeCheck {
    /// What is wrong with the structure of the data file at `path`, or `nil` when every page LMDB can reach is
    /// sound (or the file cannot be read; ``DataFileCheck`` reports that). `forWriting` asks for what a writer needs
    /// besides: each page's flags its type alone, and each record's flags those LMDB gives records. A reader passes
    /// over the flags LMDB acts on only when it writes, but a writer takes a page marked dirty (0x10) for one of its
    /// own transaction and writes into it in place, through a read-only map; and meta pages whose transaction ids
    /// commits cannot leave, or whose free lists say the page LMDB reads is not the last commit's
    /// (``transactionProblem(inDataFile:readingFreeLists:)``), as its commit would overwrite the page LMDB does not read,
    /// which may be the last commit's. A reader's walk that finds damage after a live writer committed under it walks
    /// the new commit.
    ///
    /// `databases` names the databases the file's owner opens by name: a named database's record in the main database
    /// whose name is none of them but one bit from one of them that no record has is damage (LMDB would not find the
    /// database, and a writer would make a new one in its place), which a reader's copy mends
    /// (``mendableRecords(inDataFile:databases:leavingOutPages:rootLeafKeySizes:)``).
    ///
    /// `passingOver` names databases whose trees the walk does not enter: a reader that never opens them (a log read
    /// without its call sites where their pages are damaged) needs the rest sound. Without `checkingCommits`, a walk
    /// for writing leaves the meta pages' transaction ids alone: for LMDB's compacting copy, which reads the pages a
    /// writer does but writes meta pages of its own.
    public static func problem(
        inDataFile path: String, forWriting: Bool = false, databases: Set<String> = [], passingOver: Set<String> = [],
        checkingCommits: Bool = true
    ) -> DataFileCheck.Problem? {
        problem(
            inDataFile: path, forWriting: forWriting, databases: databases, passingOver: passingOver, checkingCommits: checkingCommits,
            choosing: MetaPage.readable)
    }

    /// What ``problem(inDataFile:forWriting:databases:passingOver:checkingCommits:)`` says to a reader of the trees the fallback meta page records
    /// (``MetaPage/fallback(of:)``); `nil` when they are sound.
    static func fallbackProblem(inDataFile path: String) -> DataFileCheck.Problem? {
        problem(inDataFile: path, forWriting: false) { MetaPage.fallback(of: $0).map { [$0.page] } ?? [] }
    }

    /// The records, in the trees but the free list of the meta page LMDB reads the data file at `path` from (of both,
    /// where a bad bit in a transaction id leaves either), that a bad bit damaged where LMDB finds them
    /// (``MendedRecord``), each once; empty where there are none, or the file cannot be read. A tree whose walk finds
    /// other damage is walked no further than that damage. `databases`: as for ``problem(inDataFile:forWriting:databases:passingOver:checkingCommits:)``.
    /// With `leavingOutPages`, a leaf page damaged beyond mending is left out (``MendedRecord/Damage/pageLeftOut(reason:)``):
    /// the last resort of a reader, whose commit before the last may still hold that page whole; so is the root leaf of
    /// a database `rootLeafKeySizes` gives the key size of, under a key of zeros of that size.
    public static func mendableRecords(
        inDataFile path: String, databases: Set<String> = [], leavingOutPages: Bool = false, rootLeafKeySizes: [String: Int] = [:]
    ) -> [MendedRecord] {
        mapped(path) { file, metas -> [MendedRecord] in
            var found: [MendedRecord] = []
            for meta in MetaPage.readable(of: metas) {
                var walker = Walker(file: file, flagsRead: Walker.readersFlags)
                walker.mending = true
                walker.leavesOutPages = leavingOutPages
                walker.rootLeafKeySizes = Dictionary(uniqueKeysWithValues: rootLeafKeySizes.map { ("database '\($0.key)'", $0.value) })
                walker.databaseNames = Set(databases.map { Array($0.utf8) })
                try? walker.walk(from: [meta])
                found += walker.mended.filter { mend in !found.contains { $0.fileOffset == mend.fileOffset } }
            }
            return found
        } ?? []
    }

    /// Why the transaction ids of the meta pages of the data file at `path` are not what LMDB's commits leave, as a
    /// clause ("has meta pages whose transaction ids, …"); `nil` where they are, or the pages cannot be read or are not
    /// both valid. A bad bit in one may have made LMDB read the page of the commit before the last: the ids break the
    /// pattern commits leave (`MetaPage.transactionProblem(of:)`), or keep it but disagree with the pages' free lists
    /// (`commitOrderProblem(file:metas:)`, with `readingFreeLists`: not beside a live writer, whose commits change the
    /// pages of free lists under a walk).
    public static func transactionProblem(inDataFile path: String, readingFreeLists: Bool = true) -> String? {
        mapped(path) { file, metas in
            MetaPage.transactionProblem(of: metas) ?? (readingFreeLists ? commitOrderProblem(file: file, metas: metas) : nil)
        } ?? nil
    }

    /// The walk behind ``problem(inDataFile:forWriting:databases:passingOver:checkingCommits:)``, of the trees of the meta pages `meta` chooses. A reader's
    /// walk runs beside any live writer, whose commits reuse pages under it: a walk that finds damage after the meta
    /// pages' ids changed is walked again from the new ones, up to `attempts` walks in all (a writer still committing
    /// by then is asked of `writer.lock`, by the caller). `afterReadingMetas` runs once, between the first reading of
    /// the meta pages and the walk: a test's commits there stand for a writer's during a walk.
    static func problem(
        inDataFile path: String, forWriting: Bool, databases: Set<String> = [], passingOver: Set<String> = [], checkingCommits: Bool = true,
        choosing meta: ([MetaPage]) -> [MetaPage], attempts: Int = 3, afterReadingMetas: () -> Void = {}
    ) -> DataFileCheck.Problem? {
        var problem: DataFileCheck.Problem?
        for attempt in 1...max(1, attempts) {
            var committed = false
            problem = mapped(path) { file, metas -> DataFileCheck.Problem? in
                if attempt == 1 { afterReadingMetas() }
                var walker = Walker(file: file, flagsRead: forWriting ? .max : Walker.readersFlags)
                walker.databaseNames = Set(databases.map { Array($0.utf8) })
                walker.passedOver = Set(passingOver.map { Array($0.utf8) })
                do {
                    try walker.walk(from: meta(metas))
                    // A writer would commit over the page LMDB does not read, which may hold the last commit.
                    guard forWriting, checkingCommits else { return nil }
                    return (MetaPage.transactionProblem(of: metas) ?? commitOrderProblem(file: file, metas: metas)).map { .damaged($0) }
                } catch let failure as Failure {
                    committed = metaPages(in: file).map(\.transaction) != metas.map(\.transaction)
                    return .damaged("has a damaged page structure (\(failure.reason))")
                } catch {
                    return nil
                }
            } ?? nil
            guard committed else { break }
        }
        return problem
    }

    /// What `body` returns of the data file at `path`, mapped read-only, and its meta pages, read where the file holds
    /// them; `nil` where the file cannot be opened or mapped, is empty, or is no regular file (a pipe's open does not
    /// wait for a writer).
    private static func mapped<T>(_ path: String, _ body: (UnsafeRawBufferPointer, [MetaPage]) -> T) -> T? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // The pages are read in place from a read-only map of the file, whose size bounds every page read: one
        // `pread` a page spent two thirds of checking a 10.8M-entry log (446 MB) in the kernel, copying.
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 else { return nil }
        let size = Int(status.st_size)
        guard let map = mmap(nil, size, PROT_READ, MAP_SHARED, descriptor, 0), map != MAP_FAILED else { return nil }
        defer { munmap(map, size) }
        let file = UnsafeRawBufferPointer(start: map, count: size)
        return body(file, metaPages(in: file))
    }

    /// The meta pages of `file`, a mapped data file, read where it holds them.
    private static func metaPages(in file: UnsafeRawBufferPointer) -> [MetaPage] {
        MetaPage.pages { offset in
            offset + MetaPage.size <= file.count ? UnsafeRawBufferPointer(rebasing: file[offset..<offset + MetaPage.size]) : nil
        }
    }

    /// Why meta pages whose transaction ids keep the pattern commits leave disagree with their free lists, as a clause;
    /// `nil` where they agree, or cannot be compared (a page not valid, their sizes apart, a free list that cannot be
    /// walked). A bad bit that lowers the last commit's id below the other page's, or raises the other's above it, keeps
    /// that pattern (38 and 37 become 36 and 37, or 38 and 39) and makes LMDB read the commit before the last without a
    /// sign, and a writer commit over the last. The free lists tell: a commit files the pages it frees under its own id,
    /// so no free list names an id above its page's; and a commit never takes a page the commit before it freed (that
    /// commit's readers may still be reading it), so the trees of the page LMDB reads never start at a page the other
    /// page's own record names.
    static func commitOrderProblem(file: UnsafeRawBufferPointer, metas: [MetaPage]) -> String? {
        guard let records = freeRecords(file: file, metas: metas) else { return nil }
        let ids = "\(metas[0].transaction) and \(metas[1].transaction)"
        for index in metas.indices where records[index].highest > metas[index].transaction {
            return "has meta pages whose transaction ids, \(ids), disagree with their free lists: page \(index)'s files pages under transaction \(records[index].highest), above its own id, so that id or the record's key is damaged, and the page LMDB reads may hold the commit before the last"
        }
        let current = Int(max(metas[0].transaction, metas[1].transaction) & 1), other = 1 - current
        for root in [metas[current].mainRoot, metas[current].freeRoot] where records[other].own.contains(root) {
            return "has meta pages whose transaction ids, \(ids), disagree with their free lists: page \(current)'s trees start at page \(root), which the commit of page \(other) freed, so one id is damaged, and the page LMDB reads may hold the commit before the last"
        }
        return nil
    }

    /// Of each of `metas` (both meta pages), the highest transaction id its free list files pages under, and the pages
    /// it files under the page's own id; `nil` where a page is not valid, their sizes are apart, or a free list cannot
    /// be walked.
    private static func freeRecords(file: UnsafeRawBufferPointer, metas: [MetaPage]) -> [(highest: UInt64, own: [UInt64])]? {
        guard metas.count == 2, metas.allSatisfy(\.isValid), let size = metas[0].pageSize, metas[1].pageSize == size
        else { return nil }
        var records: [(highest: UInt64, own: [UInt64])] = []
        for meta in metas {
            var walker = Walker(file: file, flagsRead: Walker.readersFlags)
            walker.ownRecordKey = meta.transaction
            guard (try? walker.walkFreeList(of: meta)) != nil else { return nil }
            records.append((walker.highestFreeKey, walker.ownRecord))
        }
        return records
    }

    /// Whether the free lists of the data file at `path` show the commit of the meta page LMDB does not read
    /// (`MetaPage.fallback(of:)`) later than the one it reads: a commit files the pages it frees under its own id, so
    /// the later commit's free list names the higher id, whatever a bad bit made of the ids on the pages. What tells the
    /// two commits apart where their entries do not (the last commit wrote a snapshot and no entry, say). `false` where
    /// they do not, or cannot be walked.
    public static func fallbackIsLater(inDataFile path: String) -> Bool {
        mapped(path) { file, metas in
            guard let (_, current) = MetaPage.fallback(of: metas), let records = freeRecords(file: file, metas: metas) else { return false }
            return records[1 - current].highest > records[current].highest
        } ?? false
    }

    struct Failure: Error {
        let reason: String
    }

    struct Walker {
        /// The whole file, mapped.
        let file: UnsafeRawBufferPointer
        var pageSize = 4096
        var lastPage: UInt64 = 0
        /// A bit for each page of the file, set once the page is reached.
        var seen: [UInt64] = []
        /// A bit for each page the free list names: no tree of the same commit may reach one.
        var listedFree: [UInt64] = []
        /// The highest transaction id the free list files pages under.
        var highestFreeKey: UInt64 = 0
        /// The id whose record ``ownRecord`` collects, if any: the meta page's own.
        var ownRecordKey: UInt64?
        /// The pages the free list files under ``ownRecordKey``: those its commit freed.
        var ownRecord: [UInt64] = []
        /// The page read last.
        var buffer = UnsafeRawBufferPointer(start: nil, count: 0)
        /// Whether a reader's walk reads a record a bad bit damaged where LMDB finds it (``MendedRecord``) as it was
        /// written, noting it in ``mended`` (`PageTreeCheck+Mending.swift`).
        var mending = false
        /// The records a ``mending`` walk read mended.
        var mended: [MendedRecord] = []
        /// The main database's 48-byte values without a named database's flag that a ``mending`` walk read: each may be
        /// a named database's record whose flag a bad bit cleared (``mendDatabaseFlags()``, once the trees are walked).
        var unflagged: [Unflagged] = []
        /// The names of the databases the file's owner opens by name (``problem(inDataFile:forWriting:databases:passingOver:checkingCommits:)``).
        var databaseNames: Set<[UInt8]> = []
        /// The names of the databases whose trees the walk does not enter (``problem(inDataFile:forWriting:databases:passingOver:checkingCommits:)``).
        var passedOver: Set<[UInt8]> = []
        /// The main database's named databases' records, while ``databaseNames`` are checked (``checkDatabaseNames()``).
        var databaseRecords: [DatabaseRecord] = []
        /// The first and the last key of the leaf pages a ``mending`` walk read, in the order read: a subtree's keys.
        var leafKeys: (first: [UInt8], last: [UInt8])?
        /// The branch nodes whose child a ``mending`` walk could not walk: each may name a page one bad bit from its
        /// child's (``mendChildPages()``, once the trees are walked).
        var unwalkedChildren: [UnwalkedChild] = []
        /// While a ``mending`` walk reads a page as a branch node's child: the lowest key the page's subtree may hold, as
        /// the branches above give it (`nil` on the tree's leftmost path).
        var lowestKey: [UInt8]?
        /// Whether a ``mending`` walk leaves out a leaf page damaged beyond mending (``leaveOut(_:failure:)``).
        var leavesOutPages = false
        /// The key size of the records of the named databases, by the walk's name of their trees ("database 'snapshots'"),
        /// whose root leaf a ``mending`` walk may leave out (``leaveOut(root:of:reachedBefore:failure:)``).
        var rootLeafKeySizes: [String: Int] = [:]
        /// The trees a ``mending`` walk leaves a page of out.
        var treesLeftOut: Set<String> = []
        /// The branch pages a ``mending`` walk found damaged beyond mending, to rebuild once every tree is walked
        /// (``rebuildDamagedBranches()``).
        var damagedBranches: [DamagedBranch] = []
        /// Whether the walk read the free list of its commit whole: a reader's walk goes on without one it finds damaged,
        /// and then cannot tell a page the free list names from one a damaged page alone reaches.
        var freeListRead = false
        /// The pages and records a ``mending`` walk read of each tree, by the tree's name, and those the named
        /// databases' records count (``mendChildPages()``).
        var tallies: [String: Tally] = [:], declared: [String: Tally] = [:]
        /// The branch node each page a ``mending`` walk read as a child was read for, and the keys of its subtree, by
        /// the page's number.
        var claims: [UInt64: (child: UnwalkedChild, keys: (first: [UInt8], last: [UInt8])?)] = [:]
        /// What a ``mending`` walk changed, in order, that a child's walk found wrong takes back (``undo(to:)``).
        var journal: [Change] = []

        /// The page flags checked against a page's type: ``readersFlags`` for a reader, all of them for a writer.
        let flagsRead: UInt16

        /// The flags LMDB reads a page by: branch (0x01), leaf (0x02), overflow (0x04) and keys of a fixed size (0x20).
        /// The others it acts on only when it writes: dirty (0x10, set in memory only, cleared before a page is
        /// written), a sub-page (0x40, of a sorted duplicate), loose and kept (0x4000, 0x8000, in memory only).
        static let readersFlags: UInt16 = 0x01 | 0x02 | 0x04 | 0x20

        /// Whether the walk checks what a reader needs only (``readersFlags``), not a writer.
        var isReader: Bool { flagsRead == Self.readersFlags }

        init(file: UnsafeRawBufferPointer, flagsRead: UInt16) {
            self.file = file
            self.flagsRead = flagsRead
        }

        /// How many whole pages the file holds, whatever its meta pages claim.
        var filePages: UInt64 { UInt64(file.count / pageSize) }

        /// Walks the trees of each of `metas` (those LMDB may read, which ``DataFileCheck`` has vouched for, or the
        /// fallback), each on its own.
        mutating func walk(from metas: [MetaPage]) throws {
            for meta in metas where prepare(for: meta) {
                do {
                    try walk(root: meta.freeRoot, depth: meta.freeDepth, tree: "the free list", named: false, free: true)
                    freeListRead = true
                } catch is Failure where isReader {
                    // LMDB's readers never read the free list: its damage is a writer's alone (whose walk refuses it),
                    // and the main database is walked as though there were none. What was marked is forgotten: pages a
                    // damaged free list led the walk to may be the main database's.
                    _ = prepare(for: meta)
                }
                try walk(root: meta.mainRoot, depth: meta.mainDepth, tree: "the main database", named: true, free: false)
                if mending { mendDatabaseFlags() }
                try checkDatabaseNames()
                if mending { try mendChildPages() }
            }
        }

        /// Walks the free list of `meta` alone (``commitOrderProblem(file:metas:)``).
        mutating func walkFreeList(of meta: MetaPage) throws {
            guard prepare(for: meta) else { throw Failure(reason: "a meta page's page size is \(meta.pageSizeField)") }
            try walk(root: meta.freeRoot, depth: meta.freeDepth, tree: "the free list", named: false, free: true)
        }

        /// Starts the walk of the trees of `meta`: false where its page size is not one LMDB could have written.
        mutating func prepare(for meta: MetaPage) -> Bool {
            guard let pageSize = meta.pageSize else { return false }
            self.pageSize = pageSize
            lastPage = meta.lastPage
            seen = [UInt64](repeating: 0, count: Int(filePages / 64) + 1)
            listedFree = seen
            unflagged = []
            databaseRecords = []
            unwalkedChildren = []
            damagedBranches = []
            freeListRead = false
            (tallies, declared, claims, journal) = ([:], [:], [:], [])
            return true
        }

        static func integer<T: FixedWidthInteger>(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> T {
            T(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: T.self))
        }

        /// Notes that the free list names `pages`, filed under transaction id `key` (`nil` where the key is not one),
        /// after checking that the meta page declares each.
        mutating func listFree(_ pages: [UInt64], key: UInt64?) throws {
            if let key {
                highestFreeKey = max(highestFreeKey, key)
                if key == ownRecordKey { ownRecord += pages }
            }
            for page in pages {
                guard page >= 2, page <= lastPage else {
                    throw Failure(reason: "the free list names page \(page), outside pages 2…\(lastPage)")
                }
                guard page < filePages else { continue }
                let (word, bit) = Self.bit(of: page)
                // A commit frees a page once, and LMDB hands out a page named twice twice: two pages of one number.
                guard listedFree[word] & bit == 0 else { throw Failure(reason: "the free list names page \(page) twice") }
                // The free list is walked first: a page reached by now is one of its own tree's.
                guard seen[word] & bit == 0 else { throw Failure(reason: "the free list names page \(page), a page of its own tree") }
                listedFree[word] |= bit
            }
        }

        /// The word of a map of pages (``seen``, ``listedFree``) that holds page `number`'s bit, and the bit.
        static func bit(of number: UInt64) -> (word: Int, bit: UInt64) {
            (Int(number / 64), UInt64(1) << (number % 64))
        }

        /// Whether a tree walked so far reached page `number`.
        func isReached(_ number: UInt64) -> Bool {
            let (word, bit) = Self.bit(of: number)
            return seen[word] & bit != 0
        }

        /// Whether page `number` lies in the pages the meta page declares and the file holds, and neither a tree walked so
        /// far nor the free list has it: a page a damaged page alone reaches, which a reader's copy may leave out or rebuild.
        func isUnclaimed(_ number: UInt64) -> Bool {
            number >= 2 && number <= lastPage && number < filePages && !isReached(number) && !isListedFree(number)
        }

        /// Whether keys from `first` to `last` lie within `keys`, those a branch puts a subtree between: at or above the
        /// first (none: no bound) and below the second.
        static func keys(_ keys: (low: [UInt8]?, high: [UInt8]?), hold first: [UInt8], _ last: [UInt8]) -> Bool {
            (keys.low.map { !first.lexicographicallyPrecedes($0) } ?? true) && (keys.high.map { last.lexicographicallyPrecedes($0) } ?? true)
        }

        /// Whether the free list names page `number`.
        func isListedFree(_ number: UInt64) -> Bool {
            let (word, bit) = Self.bit(of: number)
            return listedFree[word] & bit != 0
        }

        /// Marks page `number` reached by `tree`, after checking that no tree reached it before and that the free list
        /// does not name it: a commit's trees never reach a page its free list names, so one that does is damaged, as
        /// when a tree's root is that of the commit before, which a bad bit (or a page written back out of order) leaves
        /// it; LMDB would read that tree silently.
        mutating func reach(_ number: UInt64, _ tree: String) throws {
            let (word, bit) = Self.bit(of: number)
            guard seen[word] & bit == 0 else { throw Failure(reason: "\(tree) reaches page \(number) twice") }
            guard listedFree[word] & bit == 0 else {
                throw Failure(reason: "\(tree) reaches page \(number), which the free list names as free")
            }
            seen[word] |= bit
            if mending {
                tallies[tree, default: Tally()].pages += 1
                journal.append(.reached(number, tree))
            }
        }

        /// Points `buffer` at page `number`, after checking that the file declares it and holds it whole.
        mutating func read(_ number: UInt64, _ tree: String) throws {
            guard number >= 2, number <= lastPage else {
                throw Failure(reason: "\(tree) refers to page \(number), outside pages 2…\(lastPage)")
            }
            guard number < filePages else { throw Failure(reason: "page \(number) cannot be read whole") }
            try reach(number, tree)
            buffer = UnsafeRawBufferPointer(rebasing: file[Int(number) * pageSize..<(Int(number) + 1) * pageSize])
            // LMDB's readers find a page by its place in the file and never read the number it stores; a writer frees
            // and copies a page by that number. A bad bit, or a bad byte, in it leaves it differing from the page's
            // place in one byte, where a page number gone astray into other bytes (a value's, an overflow page's)
            // reads as another number altogether: a reader passes over the first, and a writer is refused it.
            let stored: UInt64 = Self.integer(buffer, 0)
            guard stored == number || isReader && Self.differInOneByte(stored, number) else {
                throw Failure(reason: "page \(number) says it is page \(stored)")
            }
        }

        /// Whether `a` and `b` differ in exactly one of their 8 bytes.
        static func differInOneByte(_ a: UInt64, _ b: UInt64) -> Bool {
            let difference = a ^ b
            return difference != 0 && (0..<8).filter { difference >> UInt64(8 * $0) & 0xFF != 0 }.count == 1
        }

        /// Walks the tree of `depth` from `root`. With `defersDamagedRoot`, a ``mending`` walk notes a root branch page of a
        /// named database damaged beyond mending in ``damagedBranches``, to rebuild once every tree is walked, and rebuilds
        /// a root leaf whose header alone is damaged (``rebuildLeaf(_:tree:failure:)``).
        mutating func walk(root: UInt64, depth: UInt16, tree: String, named: Bool, free: Bool, defersDamagedRoot: Bool = false) throws {
            if root == UInt64.max { return }   // an empty tree
            guard depth >= 1, depth <= 32 else { throw Failure(reason: "\(tree) declares an impossible depth \(depth)") }
            lowestKey = nil
            let reachedBefore = root < filePages && (isReached(root) || isListedFree(root))
            let mark = mark()
            do {
                try walkPage(root, level: 1, depth: Int(depth), tree: tree, named: named, free: free)
            } catch let failure as Failure {
                if defersDamagedRoot, depth > 1, !named, !free, !reachedBefore {
                    // A branch's failure is its page's own: its children are walked apart. What the walk marked goes.
                    undo(to: mark)
                    damagedBranches.append(DamagedBranch(page: root, tree: tree, level: 1, depth: Int(depth), keys: (nil, nil), failure: failure))
                    return
                }
                if defersDamagedRoot, depth == 1, !named, !free, !reachedBefore {
                    undo(to: mark)
                    if rebuildLeaf(root, tree: tree, failure: failure) { return }
                }
                guard mending, leavesOutPages, depth == 1, !named, !free, leaveOut(root: root, of: tree, reachedBefore: reachedBefore, failure: failure)
                else { throw failure }
            }
        }

        mutating func walkPage(_ number: UInt64, level: Int, depth: Int, tree: String, named: Bool, free: Bool) throws {
            let ownLowestKey = lowestKey
            try read(number, tree)
            let flags: UInt16 = Self.integer(buffer, 10)
            let lower = Int(Self.integer(buffer, 12) as UInt16)
            var upper = Int(Self.integer(buffer, 14) as UInt16)
            // Its type alone: another flag changes how LMDB reads the page (keys of a fixed size) or, for a writer,
            // whether it copies the page before changing it (``readersFlags``).
            let type = flags & flagsRead
            let isBranch = type == 0x01, isLeaf = type == 0x02
            guard isBranch || isLeaf else {
                let kind = flags & Self.readersFlags
                if kind == 0x01 || kind == 0x02 {
                    throw Failure(reason: "page \(number) of \(tree) is marked with flags no page on disk has (\(flags)), which a writer would act on")
                }
                throw Failure(reason: "page \(number) of \(tree) is neither a branch nor a leaf page (flags \(flags))")
            }
            guard isLeaf == (level == depth) else {
                throw Failure(reason: "page \(number) of \(tree) is a \(isLeaf ? "leaf" : "branch") page at level \(level) of \(depth)")
            }
            let place = Place(page: number, tree: tree, isBranch: isBranch)
            let mends = mending && isReader && !free
            if mends { upper = mendUpper(upper, lower: lower, place) }
            guard lower >= 16, lower <= upper, upper <= pageSize, (lower - 16) % 2 == 0 else {
                throw Failure(reason: "page \(number) of \(tree) has impossible bounds (\(lower), \(upper))")
            }
            let count = (lower - 16) / 2
            // LMDB frees a root that loses its last node (the tree's root becomes none), so a page it reaches holds one at
            // least: an empty leaf, a bad bit in `lower`, had LMDB's cursor read its last node at index 65535, past the
            // map (SIGBUS).
            guard count >= 1 else {
                throw Failure(reason: "page \(number) of \(tree) holds no node")
            }
            if mending, isLeaf {
                tallies[tree, default: Tally()].records += UInt64(count)
                journal.append(.records(tree, count))
            }
            // Copy what the page says before descending: `buffer` moves on to the children.
            var children: [UInt64] = []
            var branchNodes: [(node: Node, key: [UInt8])] = []
            var subtrees: [(UInt64, UInt16, String)] = []
            var overflows: [(first: UInt64, size: Int, key: UInt64?)] = []
            var clearedBigData: [ClearedBigData] = []
            var freeRecords: [(key: UInt64?, pages: [UInt64])] = []
            // A reader takes a record of a database's own tree whose key or value runs past its page while both stay in
            // the file: a bad bit in the key's size (LMDB does not check it) does that to a page's first record, which
            // ends the page, and LMDB then reads only bytes of the file, which the reader finds damaged (its checksum,
            // its key's size). A writer is refused it: its copy or split of the page would write past the page. A value
            // whose stated size is one bit from the size that fills its place is refused to readers too, and mended.
            let pageStart = Int(number) * pageSize
            let lenient = isLeaf && !named && !free && isReader
            func inFile(_ end: Int) -> Bool { lenient && pageStart + end <= file.count }
            // A writer moves a page's nodes by the sizes they state (to delete one, insert one, copy or split the page):
            // a node that runs into the next, a key size grown by a bad bit, would have it write over that node, then past
            // its page. LMDB lays nodes end to end (each of an even size) from the page's end down to `upper`, so in a
            // sound page they fill that space at most; only where they state more are they read again to name the one.
            let checksExtents = !isReader
            var stated = 0
            let mendedOffset = mends ? mendOffset(count: count, upper: upper, place) : nil
            func offset(of index: Int) -> Int { index == mendedOffset?.index ? mendedOffset?.offset ?? 0 : nodeOffset(index) }
            if mends, isLeaf { noteLeafKeys(first: offset(of: 0), last: offset(of: count - 1)) }
            /// Where the node at `offset` may end: at the next node's offset, or the page's end.
            func room(from offset: Int) -> Int { ((0..<count).map(offset(of:)).filter { $0 > offset }.min() ?? pageSize) - offset }
            for index in 0..<count {
                let offset = offset(of: index)
                guard offset >= upper, offset + 8 <= pageSize else {
                    throw Failure(reason: "node \(index) of page \(number) (\(tree)) lies outside its page")
                }
                var node = Node(buffer, at: offset)
                if mends, node.dataStart > pageSize { mendKeySize(of: &node, index: index, room: room(from: offset), place) }
                let dataStart = node.dataStart
                var dataSize = node.dataSize
                guard dataStart <= pageSize || inFile(dataStart) else {
                    throw Failure(reason: "the key of node \(index) of page \(number) (\(tree)) runs past its page")
                }
                if checksExtents { stated += node.evenSize(isBranch: isBranch) }
                if isBranch {
                    children.append(node.child)
                    if mends { branchNodes.append((node, key(of: node))) }
                    continue
                }
                // LMDB reads a record by three of its flags only: big data (0x01), a sub-database (0x02) and duplicates
                // (0x04), also a named database's record as it opens the database. A reader passes over the others,
                // which a bad bit may set; a writer, which copies them with the record, is refused them.
                var nodeFlags = isReader ? node.flags & 0x07 : node.flags
                if mends { nodeFlags = mendFlags(of: &node, read: nodeFlags, index: index, inMainDatabase: named, place) }
                // A value's size that runs past the page, where one bad bit from it the value fills the node's place: a
                // reader takes the value as that size from a mended copy (``FallbackCopy``), not as bytes past the page.
                var sizeFits: Int?
                if nodeFlags & 0x01 == 0, dataStart + dataSize > pageSize, isReader, !free {
                    sizeFits = MendedRecord.sizeFilling(room: room(from: offset), besides: node.keySize, stated: dataSize)
                }
                if isReader, !named, !free, nodeFlags == 0, sizeFits == nil,
                   let record = self.clearedBigData(
                    node, index: index, room: { room(from: offset) }, readsInFile: inFile(dataStart + dataSize), place) {
                    clearedBigData.append(record)
                    continue
                }
                if mends, let size = sizeFits {
                    mendSize(of: node, to: size, index: index, place)
                    dataSize = size
                    sizeFits = nil
                }
                guard nodeFlags & ~0x03 == 0, nodeFlags & 0x03 != 0x03 else {
                    throw Failure(reason: "node \(index) of page \(number) (\(tree)) has flags no record has (\(node.flags))")
                }
                if mends, named, nodeFlags == 0, dataSize == 48, dataStart + 48 <= pageSize { noteUnflagged(node, index: index, place) }
                if nodeFlags & 0x01 != 0 {
                    guard dataStart + 8 <= pageSize else {
                        throw Failure(reason: "node \(index) of page \(number) (\(tree)) runs past its page")
                    }
                    overflows.append((Self.integer(buffer, dataStart), dataSize, freeKey(node)))
                    continue
                }
                guard dataStart + dataSize <= pageSize || (nodeFlags == 0 && sizeFits == nil && inFile(dataStart + dataSize)) else {
                    throw Failure(reason: "the value of node \(index) of page \(number) (\(tree)) runs past its page")
                }
                if nodeFlags & 0x02 != 0 {
                    guard named, dataSize == 48 else {
                        throw Failure(reason: "node \(index) of page \(number) (\(tree)) describes a database where none can be")
                    }
                    let name = databaseName(node)
                    if !passedOver.contains(key(of: node)) {
                        subtrees.append((Self.integer(buffer, dataStart + 40), Self.integer(buffer, dataStart + 6), name))
                    }
                    if mending {
                        journal.append(.declared(name, declared[name]))
                        declared[name] = Tally(described: buffer, at: dataStart)
                    }
                    if !databaseNames.isEmpty { databaseRecords.append(DatabaseRecord(place: place, node: node, index: index, key: key(of: node))) }
                } else if free {
                    freeRecords.append((freeKey(node), try Self.freeList(buffer, dataStart, dataSize, page: number)))
                }
            }
            if checksExtents, stated > pageSize - upper { throw overlap(count: count, isBranch: isBranch, page: number, tree: tree) }
            for record in freeRecords { try listFree(record.pages, key: record.key) }
            for run in overflows { try checkOverflow(run.first, size: run.size, tree: tree, free: free, key: run.key) }
            for record in clearedBigData { try checkClearedBigData(record) }
            for (index, child) in children.enumerated() {
                guard mends else {
                    try walkPage(child, level: level + 1, depth: depth, tree: tree, named: named, free: free)
                    continue
                }
                // A child walked apart, so that a page number a bad bit changed is mended once every tree is walked.
                var unwalked = UnwalkedChild(
                    place: place, node: branchNodes[index].node, index: index, level: level + 1, depth: depth, named: named,
                    keys: (index > 0 ? branchNodes[index].key : nil, index + 1 < count ? branchNodes[index + 1].key : nil),
                    lowestKey: index > 0 ? branchNodes[index].key : ownLowestKey)
                if let failure = walkChild(child, unwalked) {
                    unwalked.failure = failure
                    unwalkedChildren.append(unwalked)
                }
            }
            for (root, depth, name) in subtrees { try walk(root: root, depth: depth, tree: name, named: false, free: false, defersDamagedRoot: mends) }
        }

        /// What is wrong with the page read last, whose `count` nodes state more bytes than it holds: the node that runs
        /// into another, in the order of their offsets.
        func overlap(count: Int, isBranch: Bool, page number: UInt64, tree: String) -> Failure {
            let nodes = (0..<count).map { index in (node: Node(buffer, at: nodeOffset(index)), index: index) }.sorted { $0.node.offset < $1.node.offset }
            for (lower, next) in zip(nodes, nodes.dropFirst()) where lower.node.end(isBranch: isBranch) > next.node.offset {
                return Failure(reason: "node \(lower.index) of page \(number) (\(tree)) runs into node \(next.index), which a writer would write over")
            }
            return Failure(reason: "the nodes of page \(number) (\(tree)) state more bytes than it holds, which a writer would write past")
        }

        /// The named database whose record in the main database `node` of the page read last is, as the walk names it:
        /// "database 'entries'". A damaged key size makes the name run into other bytes: then it is not shown.
        func databaseName(_ node: Node) -> String {
            let key = key(of: node)
            return key.count <= 64 && key.allSatisfy({ (0x20..<0x7F).contains($0) })
                ? "database '\(String(decoding: key, as: UTF8.self))'" : "a database whose name is damaged"
        }

        /// The key of `node` of the page read last, up to the page's end.
        func key(of node: Node) -> [UInt8] {
            node.offset + 8 <= pageSize ? Array(buffer[(node.offset + 8)..<min(node.dataStart, pageSize)]) : []
        }

        /// The transaction id a free-list record of the page read last is filed under: its key, 8 bytes (`nil` where it
        /// is not 8 bytes long, or the node is not a free-list record).
        func freeKey(_ node: Node) -> UInt64? {
            node.keySize == 8 ? Self.integer(buffer, node.offset + 8) : nil
        }

        /// Where node `index` of the page read last lies: its offset, from the table after the page's header.
        func nodeOffset(_ index: Int) -> Int {
            Int(Self.integer(buffer, 16 + 2 * index) as UInt16)
        }

        /// A node's header as it states it, read from the page at `offset`: 2 + 2 bytes of size (a branch node's
        /// child page number, with the flags as its high bits), 2 of flags, 2 of key size; the key, then the data.
        struct Node {
            let offset: Int
            let low: UInt64
            let high: UInt64
            var flags: UInt16
            var keySize: Int

            init(_ page: UnsafeRawBufferPointer, at offset: Int) {
                self.offset = offset
                low = UInt64(Walker.integer(page, offset) as UInt16)
                high = UInt64(Walker.integer(page, offset + 2) as UInt16)
                flags = Walker.integer(page, offset + 4)
                keySize = Int(Walker.integer(page, offset + 6) as UInt16)
            }

            var dataStart: Int { offset + 8 + keySize }
            var dataSize: Int { Int(low | high << 16) }
            /// A branch node's child page number.
            var child: UInt64 { low | high << 16 | UInt64(flags) << 32 }

            /// Where the node ends as it states: after its key in a branch page, after an overflow run's page number
            /// (big data, flag 0x01), or after its value.
            func end(isBranch: Bool) -> Int {
                isBranch ? dataStart : flags & 0x01 != 0 ? dataStart + 8 : dataStart + dataSize
            }

            /// The bytes the node states it takes, made even as LMDB lays it: what a writer moves it by.
            func evenSize(isBranch: Bool) -> Int {
                (end(isBranch: isBranch) - offset + 1) & ~1
            }
        }

        /// A free-list record: a count, then that many page numbers.
        static func freeList(_ buffer: UnsafeRawBufferPointer, _ start: Int, _ size: Int, page: UInt64) throws -> [UInt64] {
            guard size >= 8, size % 8 == 0 else { throw Failure(reason: "a free-list record of page \(page) has \(size) bytes") }
            let count: UInt64 = integer(buffer, start)
            guard count == UInt64(size / 8 - 1) else {
                throw Failure(reason: "a free-list record of page \(page) counts \(count) pages in \(size) bytes")
            }
            return (0..<Int(count)).map { integer(buffer, start + 8 + 8 * $0) }
        }

        /// A value stored in a run of overflow pages starting at `first`: in the free list (`free`), a record of free
        /// pages filed under `key` (``listFree(_:key:)``).
        mutating func checkOverflow(_ first: UInt64, size: Int, tree: String, free: Bool, key: UInt64?) throws {
            try read(first, tree)
            let flags: UInt16 = Self.integer(buffer, 10)
            let pages = UInt64(Self.integer(buffer, 12) as UInt32)
            guard flags & flagsRead == 0x04, pages >= 1, first + pages - 1 <= lastPage else {
                throw Failure(reason: "overflow page \(first) of \(tree) is damaged")
            }
            guard UInt64(size) <= pages * UInt64(pageSize) - 16 else {
                throw Failure(reason: "a value of \(size) bytes in \(tree) does not fit its \(pages) overflow pages")
            }
            guard first + pages <= filePages else {
                throw Failure(reason: "overflow page \(first) of \(tree) runs past the file's end")
            }
            for page in first..<(first + pages) where page != first { try reach(page, tree) }
            if free {
                let start = Int(first) * pageSize + 16
                try listFree(Self.freeList(UnsafeRawBufferPointer(rebasing: file[start..<start + size]), 0, size, page: first), key: key)
            }
        }
    }
}

/// A reader's walk that mends (``PageTreeCheck/mendableRecords(inDataFile:databases:leavingOutPages:rootLeafKeySizes:)``) of a branch node's child page
/// number that a bad bit changed: LMDB would read another page in the child's place. Such a walk walks each child of a
/// branch apart and takes back a child whose pages are damaged, or whose keys lie outside the branch's keys around it
/// (``walkChild(_:_:)``, ``undo(to:)``); once every tree is walked, the page one bit from the number stated that heads
/// the child's subtree is the child (``mendChildPages()``).
extension PageTreeCheck.Walker {
    /// Notes the keys of the nodes at `first` and `last`, the first and last of the page read last (a leaf), in
    /// ``leafKeys``. A node whose offset a bad bit sent past its page has no key here (the walk then refuses the page).
    mutating func noteLeafKeys(first: Int, last: Int) {
        func key(at offset: Int) -> [UInt8] { offset + 8 <= pageSize ? self.key(of: Node(buffer, at: offset)) : [] }
        leafKeys = (leafKeys?.first ?? key(at: first), key(at: last))
    }

    /// A branch node whose child a ``mending`` walk could not walk, as the branch page holds it.
    struct UnwalkedChild {
        let place: Place
        let node: Node
        let index: Int
        /// The child's level in its tree, and the tree's depth.
        let level: Int, depth: Int
        let named: Bool
        /// The branch's keys around the child: its node's (none for the first node, whose key LMDB leaves empty) and the
        /// next node's (none for the last): the child's keys lie from the first up to the second.
        let keys: (low: [UInt8]?, high: [UInt8]?)
        /// The lowest key the child's subtree may hold: the branch node's, or for the first node the one the branches
        /// above give (`nil` on the tree's leftmost path).
        let lowestKey: [UInt8]?
        /// What the walk of the child found; `nil` where it found the child's keys outside the branch's keys around it,
        /// its pages sound.
        var failure: PageTreeCheck.Failure?

        /// Whether keys from `first` to `last` lie where the branch's keys put the child.
        func holds(_ first: [UInt8], _ last: [UInt8]) -> Bool {
            PageTreeCheck.Walker.keys(keys, hold: first, last)
        }
    }

    /// Walks page `number` as `child`'s (a ``mending`` walk walks each child apart), keeping what the walk found where the
    /// child's pages are sound and its keys lie where the branch's keys put it; else leaves the walk as it was and
    /// returns what was wrong: the failure, or `.some(nil)` for keys outside the branch's.
    mutating func walkChild(_ number: UInt64, _ child: UnwalkedChild) -> PageTreeCheck.Failure?? {
        let mark = mark()
        leafKeys = nil
        lowestKey = child.lowestKey
        do {
            try walkPage(number, level: child.level, depth: child.depth, tree: child.place.tree, named: child.named, free: false)
        } catch {
            undo(to: mark)
            return .some(error as? PageTreeCheck.Failure)
        }
        let keys = leafKeys
        if let keys {
            guard child.holds(keys.first, keys.last) else {
                undo(to: mark)
                return .some(nil)
            }
            leafKeys = (mark.leafKeys?.first ?? keys.first, keys.last)
        } else {
            leafKeys = mark.leafKeys
        }
        journal.append(.claim(number))
        claims[number] = (child, keys)
        return nil
    }

    /// A change a ``mending`` walk made, in ``journal``.
    enum Change {
        /// A page reached by a tree: its bit in ``seen``, a page of its tally.
        case reached(UInt64, String)
        /// Records of a tree's leaf page, in its tally.
        case records(String, Int)
        /// A page read as a branch node's child (``claims``).
        case claim(UInt64)
        /// A named database's record read, and what ``declared`` held for its name before.
        case declared(String, Tally?)
    }

    /// Where a ``mending`` walk stands, for ``undo(to:)``: its journal's length and what it keeps besides.
    struct Mark {
        let journal: Int, mended: Int, unwalked: Int, unflagged: Int, databaseRecords: Int, damagedBranches: Int
        let leafKeys: (first: [UInt8], last: [UInt8])?
    }

    func mark() -> Mark {
        Mark(journal: journal.count, mended: mended.count, unwalked: unwalkedChildren.count, unflagged: unflagged.count,
             databaseRecords: databaseRecords.count, damagedBranches: damagedBranches.count, leafKeys: leafKeys)
    }

    /// Takes back what the walk did since `mark`: the pages it reached, what it tallied, claimed, noted and mended.
    mutating func undo(to mark: Mark) {
        for change in journal[mark.journal...].reversed() {
            switch change {
            case .reached(let page, let tree):
                let (word, bit) = Self.bit(of: page)
                seen[word] &= ~bit
                tallies[tree]?.pages -= 1
            case .records(let tree, let count): tallies[tree]?.records -= UInt64(count)
            case .claim(let page): claims[page] = nil
            case .declared(let name, let before): declared[name] = before
            }
        }
        journal.removeSubrange(mark.journal...)
        mended.removeSubrange(mark.mended...)
        unwalkedChildren.removeSubrange(mark.unwalked...)
        unflagged.removeSubrange(mark.unflagged...)
        databaseRecords.removeSubrange(mark.databaseRecords...)
        damagedBranches.removeSubrange(mark.damagedBranches...)
        leafKeys = mark.leafKeys
    }

    /// Mends the child page number of each branch node noted in ``unwalkedChildren`` that a bad bit changed, as the
    /// pages show once every tree is walked: of the pages one bit from the number stated, exactly one heads a sound
    /// subtree of the child's level that no other page reaches, whose keys lie between the branch's keys around the
    /// child and not between those around another branch node that the page stated was read for; and every named
    /// database, its children mended, holds the pages and records its record counts. Throws the walk's failure for a
    /// child that is not so; a child whose pages were sound but whose keys lie elsewhere is walked as it is (the walk does
    /// not check the order of keys, which LMDB reads past).
    mutating func mendChildPages() throws {
        var mendedChild = false
        while let child = unwalkedChildren.first {
            unwalkedChildren.removeFirst()
            let stated = child.node.child, pending = unwalkedChildren.count
            var found: [UInt64] = []
            for bit in 0..<48 {
                let page = stated ^ 1 << UInt64(bit)
                guard page >= 2, page <= lastPage, page < filePages, !isReached(page) else { continue }
                let mark = mark()
                leafKeys = nil
                var sound = walkChild(page, child) == nil && unwalkedChildren.count == pending
                // The page stated may be another branch node's child, read for it, where that node's number may be the one
                // a bad bit changed (nodes of two trees whose keys overlap): where its keys would hold this page, and this
                // node's the page stated, either node may be the damaged one.
                if sound, let claim = claims[stated], let keys = leafKeys, claim.child.holds(keys.first, keys.last),
                   claim.keys.map({ child.holds($0.first, $0.last) }) ?? true { sound = false }
                undo(to: mark)
                if sound { found.append(page) }
            }
            guard found.count == 1, let page = found.first else {
                if let failure = child.failure {
                    if child.level < child.depth, !child.named {
                        damagedBranches.append(DamagedBranch(
                            page: stated, tree: child.place.tree, level: child.level, depth: child.depth, keys: child.keys, failure: failure))
                        continue
                    }
                    guard leavesOutPages, leaveOut(child, failure: failure) else { throw failure }
                    continue
                }
                try walkPage(stated, level: child.level, depth: child.depth, tree: child.place.tree, named: child.named, free: false)
                continue
            }
            _ = walkChild(page, child)
            mendedChild = true
            let node = child.node
            note(.childPage(stated: stated, page: page), at: node.offset, bytes: MendedRecord.header(child: page), node: child.index, child.place,
                 valueSize: 0, nodeOffset: node.offset, keySize: node.keySize)
        }
        // Once the pages every other tree reaches are known: a damaged branch's children are among those none reaches.
        if !damagedBranches.isEmpty {
            try rebuildDamagedBranches()
            mendedChild = true
        }
        // The page one bit from a number stated may be another tree's, taken for the child where that tree's keys lie
        // where the branch's keys put it: a named database is then read with other pages and records than it counts.
        guard mendedChild, let (tree, counted) = declared.sorted(by: { $0.key < $1.key })
            .first(where: { !treesLeftOut.contains($0.key) && (tallies[$0.key] ?? Tally()) != $0.value })
        else { return }
        let read = tallies[tree] ?? Tally()
        throw PageTreeCheck.Failure(
            reason: "\(tree) counts \(counted.pages) pages and \(counted.records) records, but its pages as mended hold \(read.pages) and \(read.records)")
    }

    /// Leaves out, where it can, the leaf page `child` of a named database's tree, which the walk of the child found
    /// damaged (`failure`) and which no bad bit in its number explains: the copy gets in its place a leaf of one record
    /// with an empty value under the lowest key the branches above give it (or, on the tree's leftmost path, a key of
    /// zeros as long as the next one), so that LMDB reads the tree in order past it and the file's owner finds that record
    /// damaged (ReactorLog's records all carry a checksum) and the page's records missing. Only a leaf that no other page
    /// reaches and the free list does not name, so that no other tree loses a page; a branch page's subtree is not left
    /// out. Whether it did (``MendedRecord/Damage/pageLeftOut(reason:)``).
    mutating func leaveOut(_ child: UnwalkedChild, failure: PageTreeCheck.Failure) -> Bool {
        let page = child.node.child
        guard !child.named, child.level == child.depth, isUnclaimed(page),
              let key = child.lowestKey ?? child.keys.high.map({ [UInt8](repeating: 0, count: $0.count) })
        else { return false }
        return leaveOut(page: page, of: child.place.tree, key: key, failure: failure)
    }

    /// Leaves out the root leaf `root` of the named database `tree` (its walk's name, "database 'snapshots'"), which the
    /// walk found damaged (`failure`), where its owner gave a key size for it (``rootLeafKeySizes``): no branch gives a
    /// root leaf's keys, so the record in its place has a key of zeros of that size. `reachedBefore`: whether another tree
    /// reached the page, or the free list names it, before this walk did. Whether it did.
    mutating func leaveOut(root: UInt64, of tree: String, reachedBefore: Bool, failure: PageTreeCheck.Failure) -> Bool {
        guard !reachedBefore, root >= 2, root <= lastPage, root < filePages, let size = rootLeafKeySizes[tree] else { return false }
        // What the failed walk noted of the page goes with it.
        mended.removeAll { $0.page == root }
        return leaveOut(page: root, of: tree, key: [UInt8](repeating: 0, count: size), failure: failure)
    }

    /// Writes, for the copy, in place of leaf `page` of `tree` a leaf of one record under `key` with an empty value.
    private mutating func leaveOut(page: UInt64, of tree: String, key: [UInt8], failure: PageTreeCheck.Failure) -> Bool {
        guard !key.isEmpty, key.count <= 511 else { return false }
        let nodeSize = (8 + key.count + 1) & ~1
        var bytes = [UInt8](repeating: 0, count: pageSize)
        bytes.storePageHeader(number: page, flags: 0x02, lower: 18, upper: pageSize - nodeSize)
        bytes.storeLittleEndian(UInt16(pageSize - nodeSize), at: 16)
        bytes.storeLittleEndian(UInt16(key.count), at: pageSize - nodeSize + 6)
        bytes.replaceSubrange(pageSize - nodeSize + 8..<pageSize - nodeSize + 8 + key.count, with: key)
        let (word, bit) = Self.bit(of: page)
        seen[word] |= bit
        treesLeftOut.insert(tree)
        mended.append(MendedRecord(
            damage: .pageLeftOut(reason: failure.reason), fileOffset: Int(page) * pageSize, bytes: bytes, page: page, node: 0,
            tree: tree, valueSize: 0, offsetInPage: pageSize - nodeSize, keySize: key.count))
        return true
    }

    /// The pages and records of a tree: as a ``mending`` walk reads them, or as a named database's record counts them.
    struct Tally: Equatable {
        var pages: UInt64 = 0, records: UInt64 = 0

        init() {}

        /// What was tallied since `before`, a tally of the same tree.
        func since(_ before: Tally) -> Tally {
            var added = self
            (added.pages, added.records) = (pages - before.pages, records - before.records)
            return added
        }

        /// What the named database's record at `offset` of `page` (LMDB's `MDB_db`) counts: its branch, leaf and overflow
        /// pages, and its records. Damaged counts that add up past 2⁶⁴ make the most there is, which no walk tallies.
        init(described page: UnsafeRawBufferPointer, at offset: Int) {
            pages = (1...3).reduce(0) { sum, field in
                let (total, overflow) = sum.addingReportingOverflow(PageTreeCheck.Walker.integer(page, offset + 8 * field))
                return overflow ? .max : total
            }
            records = PageTreeCheck.Walker.integer(page, offset + 32)
        }
    }
}

/// A reader's walk that mends (``PageTreeCheck/mendableRecords(inDataFile:databases:leavingOutPages:rootLeafKeySizes:)``)
/// of a branch page of a named database's tree damaged beyond mending (its header zeroed by a bad sector, say): LMDB
/// would follow its damage outside the file, and every record under it would be lost with it. Its children are still in
/// the file, whole: pages that no tree reaches and the free list does not name, as LMDB never leaves a page of its last
/// commit otherwise. Once every tree is walked, such pages of the child's level, each the head of a sound subtree whose
/// keys lie between the branch's keys around the damaged page, are the damaged page's children in the order of their
/// keys; the copy gets in the page's place a branch that holds them (``rebuild(_:)``). The tree's own record vouches
/// for the result: its pages and records, as rebuilt, must be exactly those it counts.
extension PageTreeCheck.Walker {
    /// A branch page a ``mending`` walk found damaged beyond mending (a root, or a branch node's child no bad bit in its
    /// number explains), rebuilt once every tree is walked.
    struct DamagedBranch {
        let page: UInt64
        let tree: String
        /// The page's level in its tree (1: the root), and the tree's depth.
        let level: Int, depth: Int
        /// The keys the branches above put the page's subtree between (none for a root): from the first up to the second.
        let keys: (low: [UInt8]?, high: [UInt8]?)
        /// What the walk found wrong with the page.
        let failure: PageTreeCheck.Failure

        /// Whether keys from `first` to `last` lie where the branches above put the page's subtree.
        func holds(_ first: [UInt8], _ last: [UInt8]) -> Bool {
            PageTreeCheck.Walker.keys(keys, hold: first, last)
        }
    }

    /// Rebuilds each branch noted in ``damagedBranches`` (``rebuild(_:)``); throws the walk's failure for one it cannot.
    mutating func rebuildDamagedBranches() throws {
        while let branch = damagedBranches.first {
            damagedBranches.removeFirst()
            guard rebuild(branch) else { throw branch.failure }
        }
    }

    /// Rebuilds `branch` for the copy from the pages of its children's level that nothing reaches and the free list does
    /// not name, each walked as the head of a subtree of the branch's tree: those whose subtrees are sound, no damage
    /// left in them, with keys where the branches above put the branch's, are its children, in the order of their keys,
    /// which must not overlap. Whether it did: only where the branch's page itself is reached by nothing else, the free
    /// list was read, the children fit one page, and the tree as rebuilt holds exactly the pages and records its named
    /// database's record counts (a page of another tree, or of an older commit the free list forgot, would be more).
    /// Otherwise the walk is left as it was.
    mutating func rebuild(_ branch: DamagedBranch) -> Bool {
        let page = branch.page, childLevel = branch.level + 1
        guard freeListRead, isUnclaimed(page), lastPage >= 2, filePages >= 3,
              let counted = declared[branch.tree], !treesLeftOut.contains(branch.tree)
        else { return false }
        let mark = mark(), before = (leafKeys, lowestKey)
        defer { (leafKeys, lowestKey) = before }
        var children: [(page: UInt64, first: [UInt8], last: [UInt8])] = []
        let type: UInt16 = childLevel == branch.depth ? 0x02 : 0x01
        for candidate in 2...min(lastPage, filePages - 1) where candidate != page && !isReached(candidate) && !isListedFree(candidate) {
            let header = Int(candidate) * pageSize
            let stated: UInt64 = Self.integer(file, header), flags: UInt16 = Self.integer(file, header + 10)
            guard stated == candidate, flags & flagsRead == type else { continue }
            let start = self.mark(), pending = unwalkedChildren.count
            (leafKeys, lowestKey) = (nil, branch.keys.low)
            let sound = (try? walkPage(candidate, level: childLevel, depth: branch.depth, tree: branch.tree, named: false, free: false)) != nil
            guard sound, unwalkedChildren.count == pending, let keys = leafKeys, branch.holds(keys.first, keys.last) else {
                undo(to: start)
                continue
            }
            children.append((candidate, keys.first, keys.last))
        }
        children.sort { $0.first.lexicographicallyPrecedes($1.first) }
        let ordered = zip(children, children.dropFirst()).allSatisfy { $0.last.lexicographicallyPrecedes($1.first) }
        guard !children.isEmpty, ordered, let (bytes, upper) = branchPage(page, children: children.enumerated().map { ($1.page, $0 == 0 ? [] : $1.first) }),
              (try? reach(page, branch.tree)) != nil, tallies[branch.tree] ?? Tally() == counted
        else {
            undo(to: mark)
            return false
        }
        mended.append(MendedRecord(
            damage: .branchRebuilt(reason: branch.failure.reason, children: children.count), fileOffset: Int(page) * pageSize,
            bytes: bytes, page: page, node: 0, tree: branch.tree, valueSize: 0, offsetInPage: upper, keySize: 0))
        return true
    }

    /// A branch page numbered `number` whose nodes point at `children` (each a page and the key LMDB searches by: none for
    /// the first), laid as LMDB lays them: the table of offsets after the 16-byte header, the nodes from the page's end
    /// down, each 8 bytes of header (the child's number, 48 bits, in the sizes and flags) and the key, made even; and
    /// where its nodes start (`upper`). `nil` where they do not fit.
    private func branchPage(_ number: UInt64, children: [(page: UInt64, key: [UInt8])]) -> (bytes: [UInt8], upper: Int)? {
        var bytes = [UInt8](repeating: 0, count: pageSize)
        let lower = 16 + 2 * children.count
        var upper = pageSize
        for (index, child) in children.enumerated() {
            upper -= (8 + child.key.count + 1) & ~1
            guard upper >= lower, child.key.count <= 511 else { return nil }
            bytes.replaceSubrange(upper..<upper + 6, with: MendedRecord.header(child: child.page))
            bytes.storeLittleEndian(UInt16(child.key.count), at: upper + 6)
            bytes.replaceSubrange(upper + 8..<upper + 8 + child.key.count, with: child.key)
            bytes.storeLittleEndian(UInt16(upper), at: 16 + 2 * index)
        }
        bytes.storePageHeader(number: number, flags: 0x01, lower: lower, upper: upper)
        return (bytes, upper)
    }
}

/// A reader's walk that mends of a root leaf of a named database whose header alone is damaged (the first sector of
/// the page zeroed, say): LMDB lays a leaf's nodes from the page's end down, so in a page of small records they lie past
/// the damage, whole. The one place in the page from which they lie end to end to its end, as many as the tree's named
/// database's record counts, is where they start; the copy gets the page with its header and its table of offsets
/// written again, in the order of the keys (``rebuildLeaf(_:tree:failure:)``).
extension PageTreeCheck.Walker {
    /// Rebuilds, for the copy, root leaf `page` of the named database `tree`, which the walk found damaged (`failure`):
    /// where exactly one place in the page starts a run of nodes that lie end to end to the page's end, as many as the
    /// database's record counts, each a plain record (a value in the page, not on overflow pages) under a key of its own.
    /// Whether it did; the walk then goes on as though it had read the page so.
    mutating func rebuildLeaf(_ page: UInt64, tree: String, failure: PageTreeCheck.Failure) -> Bool {
        guard isUnclaimed(page), let counted = declared[tree], counted.pages == 1, counted.records >= 1, counted.records <= UInt64(pageSize / 10)
        else { return false }
        let count = Int(counted.records), start = Int(page) * pageSize
        let old = UnsafeRawBufferPointer(rebasing: file[start..<start + pageSize])
        var runs: [(upper: Int, nodes: [(offset: Int, key: [UInt8])])] = []
        for upper in stride(from: 16 + 2 * count, to: pageSize - 8, by: 2) {
            var offset = upper, nodes: [(offset: Int, key: [UInt8])] = []
            while offset + 8 <= pageSize, nodes.count < count {
                let node = Node(old, at: offset)
                let end = offset + node.evenSize(isBranch: false)
                guard node.flags == 0, (1...511).contains(node.keySize), end <= pageSize else { break }
                nodes.append((offset, Array(old[node.offset + 8..<node.dataStart])))
                offset = end
            }
            if offset == pageSize, nodes.count == count { runs.append((upper, nodes)) }
        }
        guard runs.count == 1, let run = runs.first else { return false }
        let nodes = run.nodes.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        guard zip(nodes, nodes.dropFirst()).allSatisfy({ $0.key.lexicographicallyPrecedes($1.key) }), (try? reach(page, tree)) != nil
        else { return false }
        var bytes = [UInt8](old)
        bytes.replaceSubrange(0..<run.upper, with: repeatElement(0, count: run.upper))
        bytes.storePageHeader(number: page, flags: 0x02, lower: 16 + 2 * count, upper: run.upper)
        for (index, node) in nodes.enumerated() { bytes.storeLittleEndian(UInt16(node.offset), at: 16 + 2 * index) }
        tallies[tree, default: Tally()].records += UInt64(count)
        journal.append(.records(tree, count))
        mended.append(MendedRecord(
            damage: .leafRebuilt(reason: failure.reason, records: count), fileOffset: start, bytes: bytes, page: page, node: 0, tree: tree,
            valueSize: 0, offsetInPage: run.upper, keySize: 0))
        return true
    }
}

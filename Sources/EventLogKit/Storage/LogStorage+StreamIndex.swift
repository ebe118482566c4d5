import LMDB

/// Reading a stream's index in chunks, each in a short read transaction of its own.
extension LogStorage {
    /// Calls `body` with each chunk of stream `id`'s index items in order, from `from` through `through`. Each chunk
    /// (at most 65,536 items) is read in its own short read transaction,
    /// and `body` runs outside it, so a walk over millions of entries never pins a snapshot of a live log.
    /// Without `damaged`, the entry at each block's key after a stretch is checked, and the stretches the index leaves
    /// out against the entries there (``EntryCursor/requireUnlisted(stream:in:)``): a block whose key was moved is
    /// refused, not listed as other numbers. With it (`verify`, which checks every item), they are not.
    func forEachIndexChunk(
        stream id: UInt32, from: UInt64 = 1, through: UInt64 = .max, damaged: ((EventLogError) -> Void)? = nil,
        _ body: ([StreamIndex.Item]) throws(EventLogError) -> Void
    ) throws(EventLogError) {
        var position = from
        while position <= through {
            let chunk: [StreamIndex.Item] = try read { txn in
                var chunk: [StreamIndex.Item] = []
                try txn.withCursor(entries) { cursor in
                    var entries = EntryCursor(cursor)
                    let checked = damaged == nil
                    try index.forEach(
                        txn, stream: id, from: position, through: through, damaged: damaged,
                        gaps: checked ? { try entries.requireUnlisted(stream: id, in: $0) } : nil,
                        blockStarts: checked ? { try entries.requireEntry(ofStream: id, at: $0) } : nil
                    ) { item in
                        chunk.append(item)
                        return chunk.count < 65_536
                    }
                }
                return chunk
            }
            guard let last = chunk.last?.sequence else { return }
            try body(chunk)
            guard chunk.count == 65_536, last < .max else { return }
            position = last + 1
        }
    }

    /// Calls `body` with stream `id`'s items from `from` through `through`, walked with every check against the
    /// entries (``forEachIndexChunk(stream:from:through:damaged:_:)``) from the block before the one holding `around`,
    /// however far before `from` it begins: a block whose key was moved, shifting the items found around `around`, is
    /// refused, since the stretch before it is checked. Without `around` (a quick lookup that found nothing), from
    /// `from`. `lastSequence`, `firstOfLatest` and ``callSite(stream:sequence:)`` take their answers from it.
    func forEachCheckedItem(
        stream id: UInt32, around: UInt64?, from: UInt64, through: UInt64, _ body: (StreamIndex.Item) -> Void
    ) throws(EventLogError) {
        let blockBefore = try around.flatMap { (around) throws(EventLogError) in
            try read { txn in try index.startOfBlockBefore(txn, stream: id, holding: around) }
        }
        try forEachIndexChunk(stream: id, from: blockBefore ?? from, through: through) { chunk in
            for item in chunk where item.sequence >= from { body(item) }
        }
    }
}

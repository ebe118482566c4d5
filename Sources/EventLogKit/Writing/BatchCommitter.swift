import LMDB

/// The write transactions of a log's writer thread, which alone uses it: a batch of queued items encoded and written
/// in one commit, with a step of maintenance when one is due, and a step of maintenance alone.
struct BatchCommitter: ~Copyable {
    /// What a commit wrote: its last sequence number, whether maintenance remains (`nil` when no step ran), and how
    /// many streams' index it wrote to.
    struct Committed {
        var last: UInt64?
        var more: Bool?
        var streams: Int
    }

    /// The items of a commit that failed, its entries and bytes: they go back to the front of the queue, to be
    /// written when writing resumes.
    typealias Unwritten = (items: [WriteItem], entries: Int, bytes: Int)

    private let storage: LogStorage
    private let durability: Durability
    /// Each stream's last block written to the stream index.
    private var indexTips = StreamIndex.Tips()
    private var callSites: CallSiteTable
    /// The buffer a batch's payloads are encoded into, kept from batch to batch.
    private var spareBytes: ByteBuffer
    private var unwritten: Unwritten?

    /// A committer that appends to `storage`.
    init(storage: LogStorage, durability: Durability) throws(EventLogError) {
        // What can throw first: a noncopyable property is set once nothing after it can.
        callSites = try CallSiteTable(storage: storage)
        self.storage = storage
        self.durability = durability
        spareBytes = ByteBuffer(capacity: EncodedBatch.initialBuffer)
    }

    /// Encodes and writes `batch`, which holds `entryCount` entries, in one transaction (growing the map and redoing it
    /// when full), then, when `step` is given, a maintenance step in the same transaction; a step that fails is undone
    /// and the batch written without it. The batch's items are moved out as they are encoded. Where the commit fails,
    /// its items are kept for ``takeUnwritten()``. `queueCapacity` bounds the payload buffer kept for the next batch.
    mutating func commit(
        _ batch: inout [WriteItem], entryCount: Int, encoders: NumberTable<DeferredEncoding>,
        maintaining step: (LogWriter.Maintenance, Int)?, queueCapacity: Int
    ) throws(EventLogError) -> Committed {
        // Encoding happens here, on the writer thread, before the write transaction: senders only queued values.
        // The buffer comes back after a commit; one that throws leaves an empty one, which allocates when used.
        var buffer = ByteBuffer(capacity: 0)
        swap(&buffer, &spareBytes)
        var encoded = EncodedBatch(&batch, entryCount: entryCount, encoders: encoders, into: buffer)
        let lastSequence = encoded.entries.last?.sequence
        var more: Bool?
        var streamsWritten = 0
        var stepFailed = false
        // The batch is passed, not captured: a local function's capture could not be consumed after (by `takePayloads`).
        func writeBatch(_ encoded: inout EncodedBatch, maintaining step: (LogWriter.Maintenance, Int)?) throws(EventLogError) -> StreamIndex.Tips {
            try storage.write { txn in
                // Sites met in a run of the body before this one (the map had to grow) were not committed.
                callSites.discardNew()
                for info in encoded.streams {
                    try txn.put(storage.streams, key: KeyCoding.stream(info.id), value: StreamRecord.encode(info), flags: .noOverwrite)
                }
                var tips = indexTips
                var indexed = IndexItems(capacity: encoded.entries.count)
                // In place: each entry is lent to `write` where it lies, not copied out of the array. One cursor
                // appends them all, in blocks.
                try txn.withCursor(storage.entries) { cursor in
                    var appender = try EntryAppender(cursor)
                    try encoded.withEntries { entries, payloads in
                        for index in entries.indices {
                            try write(&entries[index], payloads, &appender, txn, &indexed)
                        }
                    }
                    try appender.finish()
                }
                for index in encoded.snapshots.indices {
                    try write(encoded.snapshots[index], txn)
                }
                // The index takes each stream's entries at once: its last block is rewritten once a commit.
                let byStream = indexed.byStream()
                try storage.index.append(txn, byStream.items, streams: byStream.streams, tips: &tips)
                streamsWritten = byStream.streams.count
                if let (maintain, allowance) = step {
                    do {
                        more = try maintain(txn, allowance)
                    } catch let error as LMDBError where error.isMapFull || error.isMapResized {
                        throw error
                    } catch {
                        stepFailed = true
                        throw error
                    }
                }
                return tips
            }
        }
        let tips: StreamIndex.Tips
        do throws(EventLogError) {
            do {
                tips = try writeBatch(&encoded, maintaining: step)
            } catch {
                // A failed step undid the whole transaction: write the batch again, without it.
                guard stepFailed else { throw error }
                maintenanceUndone()
                more = nil
                tips = try writeBatch(&encoded, maintaining: nil)
            }
        } catch {
            // Nothing of it was committed: it is kept, to be written when writing resumes.
            unwritten = encoded.requeued()
            throw error
        }
        indexTips = tips
        callSites.keepNew()
        if !encoded.streams.isEmpty { storage.committedStreams(encoded.streams.map(\.id)) }
        let needsSync = encoded.needsSync
        spareBytes = encoded.takePayloads(keepingAtMost: EncodedBatch.largestKeptBuffer(entries: queueCapacity))
        if needsSync && durability == .noSync {
            try storage.storage { () throws in try storage.environment.sync(force: true) }
        }
        return Committed(last: lastSequence, more: more, streams: streamsWritten)
    }

    /// The items of the last commit that failed, once.
    mutating func takeUnwritten() -> Unwritten? {
        defer { unwritten = nil }
        return unwritten
    }

    /// One maintenance step in a transaction of its own; whether more remains. A step that fails is undone.
    func maintain(_ step: LogWriter.Maintenance, allowance: Int) -> Bool {
        do {
            return try storage.write { txn in try step(txn, allowance) }
        } catch {
            maintenanceUndone()
            return false
        }
    }

    /// After a maintenance step's transaction was undone: stream descriptors it cached were never committed.
    private func maintenanceUndone() {
        _ = try? storage.reloadStreams()
    }

    private func write(_ snapshot: Snapshot, _ txn: Transaction) throws {
        let key = KeyCoding.streamSequence(snapshot.streamID, snapshot.sequence)
        try key.withUnsafeBytes { key in
            try txn.reserve(storage.snapshots, key: key, size: SnapshotRecord.size(stateBytes: snapshot.state.count)) {
                SnapshotRecord.write(snapshot, into: $0)
            }
        }
    }

    /// Appends `entry` to its block and its index item to `indexed`. The entry is `inout` though it is only read: so
    /// it is read where it lies in the batch; passed by value out of the batch's buffer it was copied first.
    private mutating func write(
        _ entry: inout EntryRecord.Encoded, _ payloads: UnsafeRawBufferPointer, _ entries: inout EntryAppender, _ txn: Transaction,
        _ indexed: inout IndexItems
    ) throws {
        try entries.append(entry, payload: UnsafeRawBufferPointer(rebasing: payloads[entry.payload]))
        // An action's call site goes into the index as the number of an interned text in `sites`.
        var item = StreamIndex.Item(sequence: entry.sequence, kind: entry.kind.rawValue)
        if let site = entry.callSite, let id = try callSites.id(of: site, txn) { item.site = id }
        indexed.append(item, stream: entry.streamID)
    }
}

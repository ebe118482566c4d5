/// A batch taken from the queue, encoded and sorted for its write transaction: its entries in sequence order (as
/// they were queued), their payloads back to back in one buffer, its snapshots, new streams' descriptors, and whether a
/// flush asked for a sync.
/// One transaction holds them all, so snapshots may go after the entries they follow.
struct EncodedBatch: ~Copyable {
    private(set) var entries: [EntryRecord.Encoded] = []
    /// The entries' payloads, each where its entry's range says: encoders write into it one entry after another, so
    /// an entry allocates and frees no array of its own, and the buffer serves batch after batch (``takePayloads()``).
    private(set) var payloads: ByteBuffer
    private(set) var snapshots: [Snapshot] = []
    /// The descriptors of new streams, in the order they were made.
    private(set) var streams: [StreamInfo] = []
    private(set) var needsSync = false

    /// What a writer's payload buffer starts with.
    static let initialBuffer = 16 << 10

    /// The largest payload buffer kept for the next batch while `entries` may wait: room for that many payloads of 64
    /// bytes twice over (the buffer grows by doubling), and 1 MiB at least. A batch of large values gives its memory
    /// back; one of a server's many sessions, whose queue grew (``LogWriter/entryCapacity(base:streamsWritten:)``),
    /// keeps its buffer rather than grow a new one, doubling and copying, every commit.
    static func largestKeptBuffer(entries: Int) -> Int { max(1 << 20, 2 * 64 * entries) }

    /// Encodes the deferred entries (with the encoders registered when the batch was taken) and snapshots of
    /// `items`, which hold `entryCount` entries, taking each item out of the array rather than copying it, which leaves
    /// the array empty with its capacity (the queue's next buffer); the payloads go into `buffer`, emptied.
    init(_ items: inout [WriteItem], entryCount: Int, encoders: NumberTable<DeferredEncoding>, into buffer: consuming ByteBuffer) {
        var payloads = buffer
        payloads.truncate(to: 0)
        var snapshots: [Snapshot] = []
        var streams: [StreamInfo] = []
        var needsSync = false
        // Entries beyond the count, which the writer's tally should never leave: kept, not lost, if it did.
        var uncounted: [EntryRecord.Encoded] = []
        // The entries are written into an array made for their count: an append checked the array's uniqueness and
        // room for every entry.
        var entries = [EntryRecord.Encoded](unsafeUninitializedCapacity: entryCount) { entries, made in
            func add(_ entry: consuming EntryRecord.Encoded) {
                guard made < entries.count else { return uncounted.append(entry) }
                (entries.baseAddress! + made).initialize(to: entry)
                made += 1
            }
            // Each item is moved out and `.sync` left in its place, which holds nothing to release: an item holds a
            // sender's value in an existential, and reversing or reading the array would copy it. Consecutive entries
            // mostly name the same encoder: it is looked up when the number changes.
            items.withUnsafeMutableBufferPointer { items in
                // Locals of the closure, not captured ones: a captured variable might change during a call, so passing
                // the encoding along counted a reference to it for every entry.
                var encoderID: EncoderID?, encoding: DeferredEncoding?
                // The run's mutation bytes, added to its encoding's tally when the encoder changes and at the end.
                var tallied = 0
                for index in items.indices {
                    let item = (items.baseAddress! + index).move()
                    (items.baseAddress! + index).initialize(to: .sync)
                    switch consume item {
                    case .entry(let entry): add(Self.encoded(entry, into: &payloads))
                    case .batch(let batch): for entry in batch { add(Self.encoded(entry, into: &payloads)) }
                    case .deferred(let entry):
                        if encoderID != entry.encoder {
                            if tallied > 0 { encoding?.tally.add(tallied) }
                            tallied = 0
                            (encoderID, encoding) = (entry.encoder, encoders[entry.encoder.number])
                        }
                        add(entry.encoded(encoding, into: &payloads, tallying: &tallied))
                    case .snapshot(let snapshot): snapshots.append(snapshot)
                    case .deferredSnapshot(let snapshot): if let made = snapshot.snapshot() { snapshots.append(made) }
                    case .sync: needsSync = true
                    case .stream(let info, let opened):
                        streams.append(info)
                        if let opened { add(Self.encoded(opened, into: &payloads)) }
                    }
                }
                if tallied > 0 { encoding?.tally.add(tallied) }
            }
        }
        assert(uncounted.isEmpty && entries.count == entryCount, "the batch held \(entries.count + uncounted.count) entries, counted \(entryCount)")
        entries += uncounted
        // What is left is `.sync` in every slot: nothing to release, though the removal still runs the enum's destroy
        // for each slot (about 20 instructions, 1.3% of the writer thread by callgrind; an array cannot drop its count
        // without it).
        items.removeAll(keepingCapacity: true)
        self.entries = entries
        self.payloads = payloads
        self.snapshots = snapshots
        self.streams = streams
        self.needsSync = needsSync
    }

    /// An entry queued with its payload, its payload copied to the end of `payloads`.
    private static func encoded(_ entry: borrowing EntryRecord.Pending, into payloads: inout ByteBuffer) -> EntryRecord.Encoded {
        let start = payloads.count
        payloads.append(contentsOf: entry.payload)
        return EntryRecord.Encoded(
            sequence: entry.sequence, streamID: entry.streamID, kind: entry.kind, codec: entry.codec,
            timestamp: entry.timestamp, cause: entry.cause, caseName: entry.caseName, payload: start..<payloads.count,
            callSite: entry.callSite)
    }

    /// Lends the entries, in place, with the bytes their ranges index: a write loop reads each where it lies. An
    /// element read out of the borrowed array was copied, a count on its case name, for every entry.
    mutating func withEntries<Result>(
        _ body: (UnsafeMutableBufferPointer<EntryRecord.Encoded>, UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try payloads.withUnsafeBytes { payloads in
            try entries.withUnsafeMutableBufferPointer { entries in try body(entries, payloads) }
        }
    }

    /// The batch as queue items again, after a commit of it failed: its new streams' descriptors, its entries as one
    /// batch (their payloads copied out of the buffer), its snapshots and a sync if one was asked for; with how many
    /// entries and bytes they count for in the queue.
    func requeued() -> (items: [WriteItem], entries: Int, bytes: Int) {
        var items: [WriteItem] = streams.map { .stream($0, opened: nil) }
        let pending = payloads.withUnsafeBytes { bytes in
            entries.map { entry in
                EntryRecord.Pending(
                    sequence: entry.sequence, streamID: entry.streamID, kind: entry.kind, codec: entry.codec,
                    timestamp: entry.timestamp, cause: entry.cause, caseName: entry.caseName,
                    payload: Array(bytes[entry.payload]), callSite: entry.callSite)
            }
        }
        if !pending.isEmpty { items.append(.batch(pending)) }
        items += snapshots.map { .snapshot($0) }
        if needsSync { items.append(.sync) }
        return (items, pending.count, items.reduce(0) { $0 + $1.byteCount })
    }

    /// The payload buffer, for the next batch (an empty one when it grew past `limit` bytes).
    consuming func takePayloads(keepingAtMost limit: Int) -> ByteBuffer {
        guard payloads.capacity <= limit else { return ByteBuffer(capacity: 0) }
        return payloads
    }
}

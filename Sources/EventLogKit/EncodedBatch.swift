/// A batch taken from the queue, encoded and sorted for its write transaction: its entries in sequence order (as
/// they were queued), its snapshots, and whether a flush asked for a sync. One transaction holds them all, so
/// snapshots may go after the entries they follow.
struct EncodedBatch {
    private(set) var entries: [EntryRecord.Pending] = []
    private(set) var snapshots: [Snapshot] = []
    private(set) var needsSync = false

    /// Encodes the deferred entries (with the encoders registered when the batch was taken) and snapshots of
    /// `items`, taking each item out of the array rather than copying it.
    init(_ items: consuming [WriteItem], encoders: [EncoderID: DeferredEncoding]) {
        var items = items
        entries.reserveCapacity(items.count)
        // Each item is moved out and `.sync` left in its place, which costs nothing to destroy: an item holds a
        // sender's value in an existential, and reversing or reading the array would copy it. Consecutive entries
        // mostly name the same encoder: it is looked up when the number changes.
        items.withUnsafeMutableBufferPointer { items in
            // Locals of the closure, not captured ones: a captured variable might change during a call, so passing
            // the encoding along counted a reference to it for every entry.
            var encoderID: EncoderID?, encoding: DeferredEncoding?
            for index in items.indices {
                let item = (items.baseAddress! + index).move()
                (items.baseAddress! + index).initialize(to: .sync)
                switch consume item {
                case .entry(let entry): entries.append(entry)
                case .batch(let batch): entries.append(contentsOf: batch)
                case .deferred(let entry):
                    if encoderID != entry.encoder { (encoderID, encoding) = (entry.encoder, encoders[entry.encoder]) }
                    entries.append(entry.pending(encoding))
                case .snapshot(let snapshot): snapshots.append(snapshot)
                case .deferredSnapshot(let snapshot): if let made = snapshot.snapshot() { snapshots.append(made) }
                case .sync: needsSync = true
                }
            }
        }
    }
}

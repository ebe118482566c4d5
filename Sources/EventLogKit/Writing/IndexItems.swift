/// A commit's index items, gathered by stream. Items are appended as they come, and each run of one stream's items
/// is noted where it starts; at the end the runs are moved together by stream (a counting sort of runs), the
/// streams in the order they first appear. A commit to one stream is one run, handed on as it is. Where an array
/// for each stream took its items, a batch that alternates between a server's many sessions swapped arrays in
/// and out every few entries.
struct IndexItems {
    private var items: [StreamIndex.Item] = []
    /// Where each run starts in `items`, and its stream's number in `streams`.
    private var runs: [(start: Int, group: Int32)] = []
    /// Each stream, in the order they first appear.
    private var streams: [UInt32] = []
    /// Each stream's number in `streams`, looked up when a run starts.
    private var groups = NumberTable<Int32>()
    private var current: UInt32?

    /// Room for `capacity` items.
    init(capacity: Int) { items.reserveCapacity(capacity) }

    mutating func append(_ item: StreamIndex.Item, stream: UInt32) {
        if current != stream { startRun(stream) }
        items.append(item)
    }

    private mutating func startRun(_ stream: UInt32) {
        current = stream
        let group: Int32
        if let known = groups[stream] {
            group = known
        } else {
            group = Int32(streams.count)
            groups[stream] = group
            streams.append(stream)
        }
        runs.append((items.count, group))
    }

    /// Each stream's items, in the order streams first appear: all of them in `items`, each stream's in its range.
    consuming func byStream() -> (items: [StreamIndex.Item], streams: [(stream: UInt32, range: Range<Int>)]) {
        guard runs.count > 1 else { return (items, streams.map { ($0, items.indices) }) }
        func end(ofRun index: Int) -> Int { index + 1 < runs.count ? runs[index + 1].start : items.count }
        // Each stream's item count, then where its items start.
        var starts = [Int](repeating: 0, count: streams.count)
        for index in runs.indices { starts[Int(runs[index].group)] += end(ofRun: index) - runs[index].start }
        var ranges: [(stream: UInt32, range: Range<Int>)] = []
        ranges.reserveCapacity(streams.count)
        var start = 0
        for (group, stream) in streams.enumerated() {
            let count = starts[group]
            starts[group] = start
            ranges.append((stream, start..<start + count))
            start += count
        }
        let sorted = [StreamIndex.Item](unsafeUninitializedCapacity: items.count) { sorted, initialized in
            items.withUnsafeBufferPointer { items in
                for index in runs.indices {
                    let run = runs[index].start..<end(ofRun: index), group = Int(runs[index].group)
                    (sorted.baseAddress! + starts[group]).initialize(from: items.baseAddress! + run.lowerBound, count: run.count)
                    starts[group] += run.count
                }
            }
            initialized = items.count
        }
        return (sorted, ranges)
    }
}

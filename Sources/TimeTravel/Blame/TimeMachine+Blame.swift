import Dispatch
import EventLogKit
import Foundation
import Synchronization

extension TimeMachine {
    /// The mutations that changed the value at `path` between `from` and `through`, in order; none that did not.
    /// Without a reducer (``RecordedStates``) it compares consecutive recorded states: a change with one mutation
    /// between them names it; one with several names the range (``BlameEntry/range``).
    ///
    /// A long range is replayed in stretches that start at snapshots, on every core at once. Where one stretch
    /// ends, the state it reached must equal the next one's starting state (compared as JSON); where they differ,
    /// as when the replayer reduces otherwise than the recording did, the rest is replayed on from the state
    /// reached. So the answer is always that of one replay from `from`.
    ///
    /// Without a reducer a recorded state whose snapshot cannot be read is passed over, the change across it placed
    /// between the states around it; ``blameReport(_:from:through:latest:)`` names such states.
    public func blame(_ path: StatePath, from: UInt64 = 1, through: UInt64 = .max) throws -> [BlameEntry] {
        try blame(path, from: from, through: through, noting: nil)
    }

    /// ``blame(_:from:through:)``, noting in `unreadable` the recorded states it passes over.
    func blame(_ path: StatePath, from: UInt64, through: UInt64, noting unreadable: UnreadableStates?) throws -> [BlameEntry] {
        try replaying {
            try blame(path, from: from, through: through, workers: ProcessInfo.processInfo.activeProcessorCount, noting: unreadable)
        }
    }

    /// ``blame(_:from:through:)`` in about `workers` × 4 stretches (one when `workers` is 1), none shorter than
    /// `minimumSpan` steps.
    func blame(
        _ path: StatePath, from: UInt64, through: UInt64, workers: Int, minimumSpan: UInt64 = 16_384, noting unreadable: UnreadableStates? = nil
    ) throws -> [BlameEntry] {
        guard replayer.canReduce else { return try recordedBlame(path, from: from, through: through, noting: unreadable) }
        let stretches = try blameStretches(first: from == 0 ? 0 : from - 1, through: through, workers: workers, minimumSpan: minimumSpan)
        // Where a stretch continues the one before, both make the JSON form of the state at the cut on their own thread.
        let checks = stretches.indices.map { index in
            (start: stretches[index].continues, end: index + 1 < stretches.count && stretches[index + 1].continues)
        }
        let replayed = Mutex<[Int: Result<Replayed, any Error>]>([:])
        DispatchQueue.concurrentPerform(iterations: stretches.count) { index in
            let result = Result { try replay(stretches[index], watching: path, from: state(at: stretches[index].start), json: checks[index]) }
            replayed.withLock { $0[index] = result }
        }
        // The changes are gathered into one list made large enough at once, and each stretch's own list is let go
        // once copied: a blame over millions of steps can find hundreds of thousands of changes.
        var found: [BlameEntry] = []
        found.reserveCapacity(replayed.withLock { $0.values.reduce(0) { $0 + ((try? $1.get())?.changes.count ?? 0) } })
        var reached: (end: P.State, endJSON: JSONValue?)?
        for (index, stretch) in stretches.enumerated() {
            var result = replayed.withLock { $0.removeValue(forKey: index)! }
            // A stretch that continues the one before must start where that one ended, or is replayed on from there.
            if stretch.continues, let reached, (try? result.get())?.startJSON != reached.endJSON {
                result = Result { try replay(stretch, watching: path, from: reached.end, json: (false, checks[index].end)) }
            }
            let stretchReplayed = try result.get()
            found += stretchReplayed.changes
            reached = (stretchReplayed.end, stretchReplayed.endJSON)
        }
        return found
    }

    /// What replaying one stretch found: its changes, the state it reached, and the JSON forms of the states it
    /// started from and reached where a cut is checked against them.
    struct Replayed: Sendable {
        let changes: [BlameEntry]
        let end: P.State
        let startJSON: JSONValue?
        let endJSON: JSONValue?
    }

    /// A stretch of steps blame replays: from the state at `start` through the mutations up to `end`. One that
    /// `continues` the stretch before starts where that one ends; one that does not starts after a gap, from the
    /// snapshot that ends it, a jump no mutation made (or is the first).
    typealias Stretch = (start: UInt64, end: UInt64, continues: Bool)

    /// The stretches blame replays from `first` through `through`: one between each two gaps, each cut at
    /// snapshots for `workers` threads into about `workers` × 4 in all, none shorter than `minimumSpan` steps, so
    /// that rebuilding a starting state stays small next to the replay after it.
    private func blameStretches(first: UInt64, through: UInt64, workers: Int, minimumSpan: UInt64) throws -> [Stretch] {
        let gaps = try gaps().filter { $0.lowerBound > first && $0.upperBound < through }
        let runs = zip([first] + gaps.map(\.upperBound), gaps.map { $0.lowerBound - 1 } + [through])
        guard workers > 1 else { return runs.map { ($0, $1, false) } }
        let end = min(through, try lastStep())
        let length = end > first ? end - first : 0
        let span = max(minimumSpan, length / UInt64(workers * 4))
        // A range no longer than the span has no cut to make (`lastChanges` blames a few snapshot intervals at a time):
        // it reads no list of snapshots.
        guard length > span else { return runs.map { ($0, $1, false) } }
        let snapshots = try log.snapshotSequences(stream: stream.name)
        var stretches: [Stretch] = []
        for (start, end) in runs {
            var cut = start
            for snapshot in snapshots where snapshot > cut && snapshot < end && snapshot - cut >= span {
                stretches.append((cut, snapshot, cut != start))
                cut = snapshot
            }
            stretches.append((cut, end, cut != start))
        }
        return stretches
    }

    /// Replays `stretch` from `start`, the state at its first step, noting each mutation that changed the value
    /// at `path`, with the action that caused it, and making the JSON forms of the first and last states that
    /// `json` asks for. The mutations are read in place; only those that changed the path are copied, into one
    /// ``EntryArena`` with their actions, which are looked up together at the end.
    private func replay(_ stretch: Stretch, watching path: StatePath, from start: P.State, json: (start: Bool, end: Bool)) throws -> Replayed {
        let startJSON = json.start ? try replayer.json(start) : nil
        var state = start
        let watch = try PathWatch(path, of: state, replayer: replayer)
        // Each change is kept as it is made, its payloads and its action filled in at the end: copying a list of
        // tuples of entries and values into the list of changes retained and released every string, payload and value.
        var changes: [BlameEntry] = []
        var payloads: [Range<Int>] = []
        var arena = EntryArena()
        if stretch.start < stretch.end {
            // The loop reads locals, not the machine's properties: in this generic code, each of those would look up
            // the machine's type metadata once a mutation.
            let (replayer, history, log) = (replayer, schemaHistory, log)
            try log.forEachEntry(EntryQuery(from: stretch.start + 1, through: stretch.end, stream: stream.name, kinds: [.mutation])) { mutation in
                try replayer.replay(mutation, into: &state, recordedWith: history.fingerprint(at: mutation.sequence), log: log)
                let old = watch.value
                if try watch.changed(in: state) {
                    let copy = arena.copy(mutation)
                    changes.append(BlameEntry(mutation: copy.entry, action: nil, old: old, new: watch.value))
                    payloads.append(copy.payload)
                }
            }
        }
        // The actions, a chunk at a time, so that the log's own copies of them never all live at once.
        let caused = changes.indices.compactMap { index in changes[index].mutation.cause.map { (change: index, action: $0) } }
        var actionPayloads: [(change: Int, payload: Range<Int>)] = []
        for start in stride(from: 0, to: caused.count, by: 1_024) {
            let chunk = caused[start..<min(start + 1_024, caused.count)]
            for ((index, _), action) in zip(chunk, try readableEntries(at: chunk.map(\.action))) {
                guard let action else { continue }
                let copy = arena.copy(action)
                changes[index].action = copy.entry
                actionPayloads.append((index, copy.payload))
            }
        }
        let buffer = arena.buffer()
        for index in changes.indices {
            changes[index].mutation = changes[index].mutation.withPayload(buffer[payloads[index]])
        }
        for (index, payload) in actionPayloads {
            changes[index].action = changes[index].action?.withPayload(buffer[payload])
        }
        return Replayed(changes: changes, end: state, startJSON: startJSON, endJSON: json.end ? try replayer.json(state) : nil)
    }

    /// Blame over the recorded states only: a change lies between two states that read, which may have a damaged
    /// snapshot between them, noted in `unreadable`.
    private func recordedBlame(_ path: StatePath, from: UInt64, through: UInt64, noting unreadable: UnreadableStates?) throws -> [BlameEntry] {
        let end = min(through, try lastStep())
        let start = try log.recoveryPoint(stream: stream.name, atOrBefore: from == 0 ? 0 : from - 1)
        var previousStep = start.sequence
        var previous = try replayer.json(try decodeState(start.state, codec: start.codec, at: start.sequence))[path]
        var changes: [BlameEntry] = []
        let gaps = try gaps()
        for point in try log.snapshotSequences(stream: stream.name) where point > previousStep && point <= end {
            // A snapshot that cannot be read is passed over: the change is placed between the states around it.
            let value: JSONValue?
            do {
                value = try json(at: point)[path]
            } catch TimeTravelError.snapshotUnreadable(_, _, let damage, _) {
                unreadable?.note(point, damage)
                continue
            }
            defer { (previous, previousStep) = (value, point) }
            guard value != previous, !gaps.contains(where: { $0.lowerBound > previousStep && $0.lowerBound <= point }) else { continue }
            let between = try log.sequences(stream: stream.name, kinds: [.mutation], from: previousStep + 1, through: point)
            guard let last = between.last, let mutation = try log.entry(at: last) else { continue }
            let exact = between.count == 1
            changes.append(BlameEntry(
                mutation: mutation, action: exact ? try mutation.cause.flatMap(readableEntry) : nil,
                old: previous, new: value, range: exact ? nil : between[0]...last, mutationsInRange: between.count))
        }
        return changes
    }

    /// The last mutation at or before `step` that changed the value at `path` (rr's reverse-continue to a
    /// watchpoint), or `nil` when it never changed.
    ///
    /// It walks back from `step` as ``lastChanges(of:count:from:atOrBefore:)`` does, so its cost is about the
    /// distance to the change, not the stream's length.
    public func lastChange(of path: StatePath, atOrBefore step: UInt64) throws -> BlameEntry? {
        try lastChanges(of: path, count: 1, atOrBefore: step).last
    }

    /// The last `count` mutations from `from` through `step` that changed the value at `path`, in order: the end
    /// of ``blame(_:from:through:)``, found walking back from `step`.
    ///
    /// It blames one snapshot interval before `step`, then two before that, then four, until it has `count`
    /// changes or reaches `from`, so its cost is about the distance back to the `count`th change, not the
    /// stream's length: the latest change of a path in a 10M-entry log takes milliseconds. Without a reducer the
    /// windows compare recorded states only, as blame does.
    public func lastChanges(of path: StatePath, count: Int, from: UInt64 = 1, atOrBefore step: UInt64 = .max) throws -> [BlameEntry] {
        try lastChanges(of: path, count: count, from: from, atOrBefore: step, noting: nil)
    }

    /// ``lastChanges(of:count:from:atOrBefore:)``, noting in `unreadable` the recorded states it passes over.
    func lastChanges(of path: StatePath, count: Int, from: UInt64, atOrBefore step: UInt64, noting unreadable: UnreadableStates?) throws -> [BlameEntry] {
        guard count > 0 else { return [] }
        let floor = max(try earliestReplayableStep(), from == 0 ? 0 : from - 1)
        let end = min(step, try lastStep())
        var boundaries = try log.snapshotSequences(stream: stream.name).filter { $0 > floor && $0 < end }
        var found: [BlameEntry] = []
        var upper = end
        var intervals = 1
        while upper > floor {
            let lower = boundaries.count >= intervals ? boundaries[boundaries.count - intervals] : floor
            boundaries.removeLast(min(intervals, boundaries.count))
            found = try blame(path, from: lower + 1, through: upper, noting: unreadable) + found
            if found.count >= count { break }
            upper = lower
            intervals *= 2
        }
        return Array(found.suffix(count))
    }
}

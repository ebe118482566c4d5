import EventLogKit
import Foundation
import Synchronization

/// Time travel over one stream of a log: the state at any step, states over a range, diffs, blame,
/// bisect, divergence, what-if replays and causal trees.
///
/// A *step* is a sequence number of the log; the state at step `s` is the stream's state right after
/// entry `s` (step 0 is the initial state). It is rebuilt from the latest snapshot at or before `s` plus
/// `reduce` over the stream's mutations after it, so its cost is bounded by the snapshot interval, not
/// by the log's length. Without a reducer (``RecordedStates``), states exist exactly where the log
/// recorded them, and asking for another throws ``TimeTravelError/needsReducer(step:stream:nearest:)``.
public struct TimeMachine<P: Replayer>: Sendable {
    /// The log.
    public let log: EventLog
    /// The stream travelled.
    public let stream: StreamInfo
    /// How states are decoded and reduced.
    public let replayer: P
    /// Which types wrote which numbers of the stream, as it was when the machine was made: each payload is
    /// handed to the replayer with the fingerprint of the types that wrote it.
    public let schemaHistory: SchemaHistory
    private let counter = ReconstructionCounter()

    /// A time machine over stream `name` of `log`.
    ///
    /// On a log this process writes, the machine first waits until everything appended through `log` before it is
    /// committed (no sync is forced), so that it sees every step sent before it was made; ``lastStep()`` waits so too.
    /// A reactor sent to and then replayed in a test needs no `flush()`.
    public init(log: EventLog, stream name: String, replayer: P) throws {
        log.awaitAppends()
        guard let info = try log.stream(named: name) else { throw EventLogError.unknownStream(name: name) }
        self.log = log
        self.stream = info
        self.replayer = replayer
        self.schemaHistory = try log.schemaHistory(stream: name)
    }

    /// How many states were rebuilt from a snapshot or the initial state so far.
    public var reconstructions: Int { counter.value }

    /// The highest step: the log's highest sequence number, once what was appended through the log before the call is
    /// committed (on a log this process writes).
    public func lastStep() throws -> UInt64 {
        log.awaitAppends()
        return try log.highestSequence()
    }

    /// The earliest step whose state can be rebuilt: 0 (the initial state), or, in a trimmed stream, its
    /// oldest remaining snapshot. Divergence, bisect and the replay assertion start here by default.
    public func earliestReplayableStep() throws -> UInt64 {
        guard try isTrimmed() else { return 0 }
        return try log.firstSnapshot(ofTrimmed: stream.name) ?? lastStep()
    }

    /// Whether a trim removed the stream's first steps, so that its initial state no longer leads to the states after.
    func isTrimmed() throws -> Bool {
        try (log.stream(named: stream.name)?.sequenceFloor ?? 0) > 0
    }

    /// The state right after step `step`.
    public func state(at step: UInt64) throws -> P.State {
        let last = try lastStep()
        guard step <= last else { throw TimeTravelError.stepOutOfRange(step: step, stream: stream.name, highest: last) }
        counter.increment()
        let point: RecoveryPoint
        do {
            point = try log.recoveryPoint(stream: stream.name, atOrBefore: step)
        } catch {
            // Only a trimmed stream's base snapshot, which nothing before it can stand in for, stops the recovery:
            // the states up to the next snapshot that reads are unknown, and every state from it is rebuilt again.
            guard case .corruptSnapshot(_, let base, _) = error else { throw error }
            let snapshots = try log.snapshotSequences(stream: stream.name, passingOverDamage: true)
            let after = log.firstReadableSnapshot(stream: stream.name, atOrAfter: step + 1, in: snapshots)
            throw TimeTravelError.stepUnreadable(step: step, stream: stream.name, damage: error, statesUnknown: [base..<(after ?? .max)])
        }
        if point.isInitialState, try isTrimmed() {
            let earliest = try earliestReplayableStep()
            throw TimeTravelError.stepTrimmed(step: step, stream: stream.name, earliest: earliest)
        }
        if let gap = try gap(after: point.sequence, through: step) {
            throw TimeTravelError.stepRemoved(step: step, stream: stream.name, removed: gap)
        }
        var state = try decodeState(point.state, codec: point.codec, at: point.sequence)
        // The mutations are read in place: replay decodes each where it lies in the log's map. The loop reads locals:
        // in this generic code, each read of the machine's properties would look up its type metadata.
        let (replayer, history, log) = (replayer, schemaHistory, log)
        let canReduce = replayer.canReduce
        do {
            try replaying(towards: step) {
                try log.forEachEntry(EntryQuery(from: point.sequence + 1, through: step, stream: stream.name, kinds: [.mutation])) { mutation in
                    guard canReduce else { throw try needsReducer(step) }
                    try replayer.replay(mutation, into: &state, recordedWith: history.fingerprint(at: mutation.sequence), log: log)
                }
            }
        } catch let error as TimeTravelError {
            guard case .stepUnreadable = error, let held = try stateHeldAhead(of: step) else { throw error }
            return held
        }
        return state
    }

    /// The state at `step` as the stream's next snapshot that can be read holds it, when the stream index lists no
    /// mutation between them; `nil` otherwise. Past damage that replay cannot read through this is how such a state is
    /// still known: the final state a stream's `closed` entry holds after a damaged last block, above all. It matches
    /// the spans ``EventLog/unreadablePart(of:in:)`` leaves out of `statesUnknown`.
    private func stateHeldAhead(of step: UInt64) throws -> P.State? {
        let snapshots = try log.snapshotSequences(stream: stream.name)
        guard let snapshot = log.firstReadableSnapshot(stream: stream.name, atOrAfter: step + 1, in: snapshots) else { return nil }
        // Where the stream's mutations there cannot be listed (its index and the entries it would be read around both
        // damaged), any might lie between: not `try?`, whose failure would read as none.
        do {
            guard try log.lastSequence(stream: stream.name, kinds: [.mutation], atOrBefore: snapshot, after: step) == nil else { return nil }
        } catch {
            return nil
        }
        let point = try log.recoveryPoint(stream: stream.name, atOrBefore: snapshot)
        guard point.sequence == snapshot else { return nil }
        return try decodeState(point.state, codec: point.codec, at: point.sequence)
    }

    /// Runs `body`, a replay towards `step` (by default, towards each step it reaches), saying of a block that cannot
    /// be read which steps can still be rebuilt: ``TimeTravelError/stepUnreadable(step:stream:damage:statesUnknown:)``,
    /// at `step` or at the first step whose state the damage leaves unknown; and the same of a mutation held without
    /// its value (``TimeTravelError/valueNotRecorded(step:stream:mutation:missing:readableFrom:)``). `state(at:)`,
    /// bisect, blame, divergence and what-if go through it.
    func replaying<T>(towards step: UInt64? = nil, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch TimeTravelError.valueNotRecorded(_, _, let mutation, let missing, _) {
            // A mutation held without its value: every state from it is rebuilt again from the next snapshot.
            let snapshots = try log.snapshotSequences(stream: stream.name)
            let after = log.firstReadableSnapshot(stream: stream.name, atOrAfter: mutation + 1, in: snapshots)
            throw TimeTravelError.valueNotRecorded(step: step ?? mutation, stream: stream.name, mutation: mutation, missing: missing, readableFrom: after)
        } catch let damage as EventLogError {
            guard case .corruptEntry(let sequence, _) = damage else { throw damage }
            // Without a step asked for, the first whose state the damage leaves unknown.
            let unknown = try statesUnknown(for: damage)
            throw TimeTravelError.stepUnreadable(step: step ?? unknown.first?.lowerBound ?? sequence, stream: stream.name, damage: damage, statesUnknown: unknown)
        }
    }

    /// The steps of the stream whose states `damage`, an entry that cannot be read, leaves unknown, in order: the spans
    /// `VerifyReport.unreadable` names for the stretch the damage starts (``EventLog/unreadablePart(of:in:)``); where
    /// the stream index cannot say, from the damage to the first snapshot that can be read at or after the stretch's
    /// end (`UInt64.max` without one). Empty for any other error.
    func statesUnknown(for damage: EventLogError) throws -> [Range<UInt64>] {
        guard case .corruptEntry(let sequence, _) = damage else { return [] }
        var entries = log.entries(EntryQuery(from: sequence, stream: stream.name))
        let stretch = try entries.skip(past: damage) ?? sequence...sequence
        if let part = log.unreadablePart(of: stream.name, in: stretch), !part.statesUnknown.isEmpty {
            return part.statesUnknown
        }
        // A damaged snapshot holds no state: the first that can be read, as `unreadablePart` finds it, at or after the
        // stream's last entry in the stretch where its index lists them (every state is then known, but not the
        // changes: a blame reads the mutations), else after the stretch.
        let snapshots = try log.snapshotSequences(stream: stream.name)
        let listed = (try? log.sequences(stream: stream.name, kinds: Set(EntryKind.allCases), from: stretch.lowerBound, through: stretch.upperBound))?.last
        let snapshot = log.firstReadableSnapshot(stream: stream.name, atOrAfter: listed ?? stretch.upperBound, in: snapshots)
        // From where the damage starts: a block whose key a bad bit raised is named by that key, but its entries start
        // at the number it records.
        return [min(sequence, stretch.lowerBound)..<(snapshot ?? .max)]
    }

    /// The entry at `sequence`, or `nil` where there is none or it lies in a block that cannot be read: what bisect,
    /// blame and divergence give for a mutation's action (its number is still the mutation's `cause`), so that a
    /// damaged action does not hide the change it caused.
    func readableEntry(at sequence: UInt64) throws -> LogEntry? {
        do { return try log.entry(at: sequence) } catch EventLogError.corruptEntry { return nil }
    }

    /// The entries at `sequences`, read together as ``readableEntry(at:)`` reads one.
    func readableEntries(at sequences: [UInt64]) throws -> [LogEntry?] {
        do { return try log.entries(at: sequences) } catch EventLogError.corruptEntry { return try sequences.map(readableEntry) }
    }

    /// The stretches retention removed from the middle of the stream, in order (`StreamGap`).
    func gaps() throws -> [ClosedRange<UInt64>] {
        try log.gaps(stream: stream.name).map(\.removed)
    }

    /// The first gap that starts after `after` and at or before `step`: replay from `after` cannot reach `step`.
    func gap(after: UInt64, through step: UInt64) throws -> ClosedRange<UInt64>? {
        try gaps().first { $0.lowerBound > after && $0.lowerBound <= step }
    }

    /// The JSON form of the state right after `step`.
    public func json(at step: UInt64) throws -> JSONValue {
        try replayer.json(state(at: step))
    }

    /// Every entry of the stream from `from` through `through`, each with the state right after it,
    /// streamed: the log is never read whole.
    public func states(from: UInt64, through: UInt64 = .max) throws -> StateIterator<P> {
        let start = try state(at: from == 0 ? 0 : from - 1)
        return StateIterator(
            machine: self, state: start, position: from == 0 ? 0 : from - 1, gaps: try gaps(),
            entries: log.entries(EntryQuery(from: max(from, 1), through: through, stream: stream.name)))
    }

    /// What changed in the state from step `a` to step `b`.
    public func diff(from a: UInt64, to b: UInt64) throws -> StateDiff {
        StateDiff(from: try json(at: a), to: try json(at: b))
    }

    /// The state at `through` had the mutations in `skipped` never happened (Redux DevTools' toggle), and
    /// the differences from what was recorded. The log is not changed. Needs the reducer.
    public func whatIf(skipping skipped: Set<UInt64>, through: UInt64? = nil) throws -> WhatIf<P.State> {
        try replaying { try replay(skipping: skipped, through: through) }
    }

    private func replay(skipping skipped: Set<UInt64>, through: UInt64?) throws -> WhatIf<P.State> {
        let end = try through ?? lastStep()
        guard replayer.canReduce else { throw try needsReducer(skipped.min() ?? end) }
        let start = (skipped.min() ?? end + 1) - 1
        var state = try state(at: min(start, end))
        if let gap = try gap(after: min(start, end), through: end) {
            throw TimeTravelError.stepRemoved(step: gap.lowerBound, stream: stream.name, removed: gap)
        }
        var mutations = log.entries(EntryQuery(from: min(start, end) + 1, through: end, stream: stream.name, kinds: [.mutation]))
        while let mutation = try mutations.next() {
            guard !skipped.contains(mutation.sequence) else { continue }
            state = try reduce(state, mutation)
        }
        let actual = try self.state(at: end)
        return WhatIf(state: state, diff: StateDiff(from: try replayer.json(actual), to: try replayer.json(state)))
    }

    /// An action and every mutation and error its effects produced, in order, with their delays.
    public func causalTree(of action: UInt64) throws -> CausalTree {
        guard let root = try log.entry(at: action), root.stream == stream.name, root.kind == .action else {
            throw TimeTravelError.notAnAction(step: action, stream: stream.name)
        }
        let caused = try log.entries(causedBy: action, stream: stream.name).map {
            CausalTree.Node(entry: $0, delay: .nanoseconds($0.timestamp - root.timestamp))
        }
        return CausalTree(action: root, caused: caused)
    }

    /// Why the state at `step` cannot be had without the reducer: it was not recorded, or its snapshot cannot be read.
    /// The recorded states offered instead are those around it that can be read.
    func needsReducer(_ step: UInt64) throws -> TimeTravelError {
        let snapshots = try log.snapshotSequences(stream: stream.name)
        // Before the stream's first snapshot, the initial state it recorded (#0), unless a trim removed the steps after it.
        let before = try snapshots.last { $0 <= step && log.firstReadableSnapshot(stream: stream.name, atOrAfter: $0, in: [$0]) != nil }
            ?? (isTrimmed() ? nil : 0)
        let after = log.firstReadableSnapshot(stream: stream.name, atOrAfter: step + 1, in: snapshots)
        let nearest = [before, after].compactMap { $0 }
        if before != step, snapshots.contains(step) {
            do {
                _ = try log.latestSnapshot(stream: stream.name, atOrBefore: step)
            } catch {
                return .snapshotUnreadable(step: step, stream: stream.name, damage: error, nearest: nearest)
            }
        }
        return .needsReducer(step: step, stream: stream.name, nearest: nearest)
    }

    /// The state right after `entry`, from the state before it.
    func advance(_ state: P.State, over entry: LogEntry) throws -> P.State {
        guard entry.kind == .mutation else { return state }
        if replayer.canReduce { return try reduce(state, entry) }
        guard let recorded = try recordedState(at: entry.sequence) else { throw try needsReducer(entry.sequence) }
        return recorded
    }

    /// The state the log recorded right after `step` (a snapshot, or the initial state at 0), or `nil` where it
    /// recorded none: what a machine without a reducer knows at a step, found with one seek and nothing rebuilt.
    public func recordedState(at step: UInt64) throws -> P.State? {
        if step == 0 { return try decodeState(stream.initialState, codec: stream.initialStateCodec, at: 0) }
        guard let snapshot = try log.latestSnapshot(stream: stream.name, atOrBefore: step), snapshot.sequence == step else {
            return nil
        }
        return try decodeState(snapshot.state, codec: snapshot.codec, at: snapshot.sequence)
    }

    /// A recorded state at `sequence` (0: the initial state), decoded by the replayer as the types that wrote it say.
    func decodeState(_ data: Data, codec: CodecID, at sequence: UInt64) throws -> P.State {
        try replayer.decodeState(data, codec: codec, recordedWith: schemaHistory.fingerprint(at: sequence), log: log)
    }

    /// `state` after mutation entry `mutation`, decoded by the replayer as the types that wrote it say.
    func reduce(_ state: P.State, _ mutation: LogEntry) throws -> P.State {
        try replayer.reduce(state, mutation, recordedWith: schemaHistory.fingerprint(at: mutation.sequence), log: log)
    }
}

/// Counts state reconstructions; shared by copies of a ``TimeMachine``.
final class ReconstructionCounter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

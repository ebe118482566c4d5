import EventLogKit

/// A verdict on one state during a bisect, as `git bisect run` reads exit codes.
public enum BisectVerdict: String, Sendable, Hashable, Codable {
    /// The bug is not there yet.
    case good
    /// The bug is there.
    case bad
    /// This state cannot be judged (git bisect's exit code 125); bisect tries a neighbour.
    case skip
}

/// One state judged during a bisect.
public struct BisectProbe: Sendable, Hashable, Codable {
    /// The step judged.
    public let step: UInt64
    /// The verdict.
    public let verdict: BisectVerdict
}

/// What a bisect found.
public struct BisectResult: Sendable, Hashable {
    /// The first bad step, when bisect narrowed it to one.
    public let firstBad: UInt64?
    /// When skipped steps prevented narrowing: the steps one of which is the first bad (as git reports).
    public let candidates: [UInt64]
    /// The mutation at the first bad step.
    public let mutation: LogEntry?
    /// The action that caused it.
    public let action: LogEntry?
    /// How the state changed across the first bad step.
    public let diff: StateDiff?
    /// Every probe, in order: the session, to record and replay (``TimeMachine/bisect(from:through:replaying:)``).
    public let probes: [BisectProbe]
    /// How many states were rebuilt.
    public let reconstructions: Int
}

extension TimeMachine {
    /// Finds the first step whose state is bad, in O(log n) state reconstructions over the stream's
    /// mutations in `from...through` (the state at `from` must be good and the state at `through` bad;
    /// bisect assumes one transition between them, and the step it reports is confirmed by its good
    /// neighbour). `judge` may skip a state it cannot evaluate; skipped steps next to the culprit leave a
    /// range that cannot be narrowed, reported in ``BisectResult/candidates``.
    public func bisect(
        from: UInt64 = 0, through: UInt64? = nil, judge: (P.State, UInt64) throws -> BisectVerdict
    ) throws -> BisectResult {
        let start = reconstructions
        let end = try through ?? lastStep()
        var probes: [BisectProbe] = []
        func probe(_ step: UInt64) throws -> BisectVerdict {
            let verdict = try judge(try state(at: step), step)
            probes.append(BisectProbe(step: step, verdict: verdict))
            return verdict
        }
        guard from < end else {
            throw TimeTravelError.bisectPrecondition("The good step #\(from) is not before the bad step #\(end): give --from a step before --to.")
        }
        // The steps come from the stream index: listing them reads no entry.
        let steps = try log.sequences(stream: stream.name, kinds: [.mutation], from: from + 1, through: end)
        guard let lastMutation = steps.last else {
            throw TimeTravelError.bisectPrecondition("Stream '\(stream.name)' has no mutation between #\(from) and #\(end): nothing to bisect.")
        }
        switch try probe(from) {
        case .good: break
        case .bad: throw TimeTravelError.bisectPrecondition("The state at #\(from) is already bad, so the bug came earlier. Start the bisect from an earlier step (--from).")
        case .skip: throw TimeTravelError.bisectPrecondition("The state at #\(from) was skipped, but bisect needs it judged good. Start from a step the test can judge (--from).")
        }
        switch try probe(lastMutation) {
        case .bad: break
        case .good: throw TimeTravelError.bisectPrecondition("The state at #\(lastMutation), the last mutation up to #\(end), is good: there is no bad state to find. Check the test, or bisect a longer range.")
        case .skip: throw TimeTravelError.bisectPrecondition("The state at #\(lastMutation), the last mutation up to #\(end), was skipped, but bisect needs it judged bad. End the bisect at a step the test can judge (--to).")
        }
        // Invariant: the state before steps[low + 1] is good (low == -1: the state at `from`), steps[high] is bad.
        var low = -1, high = steps.count - 1
        var skipped = Set<Int>()
        while high - low > 1 {
            let middle = (low + high) / 2
            let order = (0..<(high - low - 1)).map { offset in middle + (offset % 2 == 0 ? offset / 2 : -(offset / 2 + 1)) }
            guard let index = order.first(where: { $0 > low && $0 < high && !skipped.contains($0) }) else { break }
            switch try probe(steps[index]) {
            case .good: low = index
            case .bad: high = index
            case .skip: skipped.insert(index)
            }
        }
        guard high - low == 1 else {
            return BisectResult(
                firstBad: nil, candidates: Array(steps[(low + 1)...high]), mutation: nil, action: nil, diff: nil,
                probes: probes, reconstructions: reconstructions - start)
        }
        let firstBad = steps[high]
        let mutation = try log.entry(at: firstBad)
        let before = low >= 0 ? steps[low] : from
        return BisectResult(
            firstBad: firstBad, candidates: [firstBad], mutation: mutation,
            action: try mutation?.cause.flatMap { try log.entry(at: $0) },
            diff: StateDiff(from: try json(at: before), to: try json(at: firstBad)),
            probes: probes, reconstructions: reconstructions - start)
    }

    /// Replays a recorded bisect session: the same probes get the same verdicts, so the same result.
    public func bisect(from: UInt64 = 0, through: UInt64? = nil, replaying session: [BisectProbe]) throws -> BisectResult {
        let verdicts = Dictionary(session.map { ($0.step, $0.verdict) }, uniquingKeysWith: { first, _ in first })
        return try bisect(from: from, through: through) { _, step in
            guard let verdict = verdicts[step] else { throw TimeTravelError.bisectLogIncomplete(step: step) }
            return verdict
        }
    }
}

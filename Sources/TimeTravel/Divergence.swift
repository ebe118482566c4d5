import EventLogKit

/// Where replaying a stream with the current reducer first disagrees with a state the log recorded.
public struct Divergence: Sendable, Hashable, CustomStringConvertible {
    /// The step of the recorded state that replay does not reproduce.
    public let step: UInt64
    /// The steps between the previous recorded state and this one: the culprit is a mutation among them.
    public let range: ClosedRange<UInt64>
    /// The mutation that diverges, when the range holds exactly one (the log recorded every state there).
    public let mutation: LogEntry?
    /// The action that caused ``mutation``; `nil` for none, or where its entry cannot be read (the mutation's `cause`
    /// still names it).
    public let action: LogEntry?
    /// From the recorded state to the replayed one.
    public let diff: StateDiff

    /// ``summary``, then the diff, indented, a line for each change.
    public var description: String {
        "\(summary) Recorded → replayed:\n" + diff.rendered().map { "  " + $0 }.joined(separator: "\n")
    }

    /// One sentence: where replay first disagrees, and the mutation (and its action) or the range to look in.
    public var summary: String {
        let culprit: String
        if let mutation {
            let cause = action.map { ", caused by #\($0.sequence) \($0.caseName)" } ?? ""
            culprit = "at #\(mutation.sequence) (mutation \(mutation.caseName)\(cause))"
        } else {
            culprit = "between #\(range.lowerBound) and #\(range.upperBound) (snapshots are that far apart; record every state to narrow it to one mutation)"
        }
        return "Replay diverges from the recording \(culprit)."
    }
}

extension TimeMachine {
    /// Replays the stream with the current reducer and compares each recorded state (snapshot) with the
    /// replayed one; returns the first that differs, or `nil` when replay reproduces every recorded state.
    /// Each stretch is replayed from the previous recorded state, so one bad step is found even when later
    /// ones also differ; a stretch retention removed entries of, or holding a mutation the log has without its value,
    /// is passed over. Needs the reducer. `from` defaults to ``TimeMachine/earliestReplayableStep()``, so a
    /// trimmed stream is checked from its oldest remaining snapshot.
    public func divergence(from: UInt64? = nil, through: UInt64 = .max) throws -> Divergence? {
        try replaying { try firstDivergence(from: from, through: through) }
    }

    private func firstDivergence(from: UInt64?, through: UInt64) throws -> Divergence? {
        let from = try from ?? earliestReplayableStep()
        guard replayer.canReduce else { throw try needsReducer(from) }
        let snapshots = try log.snapshotSequences(stream: stream.name).filter { $0 > from && $0 <= through }
        var baseStep = from
        var base = try state(at: from)
        let gaps = try gaps()
        for step in snapshots {
            if gaps.contains(where: { $0.lowerBound > baseStep && $0.lowerBound <= step }) {
                // Retention removed entries of this stretch: replay restarts from the recorded state after them.
                baseStep = step
                base = try state(at: step)
                continue
            }
            var replayed = base
            var mutations = log.entries(EntryQuery(from: baseStep + 1, through: step, stream: stream.name, kinds: [.mutation]))
            var last: LogEntry?
            var count = 0
            do {
                while let mutation = try mutations.next() {
                    replayed = try reduce(replayed, mutation)
                    last = mutation
                    count += 1
                }
            } catch TimeTravelError.valueNotRecorded {
                // A mutation the log holds without its value: this stretch cannot be replayed, and replay restarts
                // from the recorded state after it.
                baseStep = step
                base = try state(at: step)
                continue
            }
            guard let snapshot = try log.latestSnapshot(stream: stream.name, atOrBefore: step) else { continue }
            let recorded = try decodeState(snapshot.state, codec: snapshot.codec, at: snapshot.sequence)
            let diff = StateDiff(from: try replayer.json(recorded), to: try replayer.json(replayed))
            if !diff.isEmpty {
                let exact = count == 1 ? last : nil
                return Divergence(
                    step: step, range: (baseStep + 1)...step, mutation: exact,
                    action: try exact?.cause.flatMap(readableEntry), diff: diff)
            }
            baseStep = step
            base = recorded
        }
        return nil
    }

    /// For tests: replays the recorded stream with the current reducer and throws
    /// ``TimeTravelError/replayDiverges(_:)``, whose description shows the diff, at the first step where the
    /// replayed state differs from the recorded one, within `from...through` (by default the whole stream, or
    /// what a trim left of it).
    ///
    /// ```swift
    /// @Test func oldSessionsStillReplay() throws {
    ///     let log = try EventLog.openReadOnly(at: "Fixtures/bug-1234.reactorlog")
    ///     try TimeMachine(log: log, stream: "search", replayer: ReactorReplayer { GitHubSearchReactor() })
    ///         .assertReplayMatchesRecording()
    /// }
    /// ```
    public func assertReplayMatchesRecording(from: UInt64? = nil, through: UInt64 = .max) throws {
        if let divergence = try divergence(from: from, through: through) { throw TimeTravelError.replayDiverges(divergence) }
    }
}

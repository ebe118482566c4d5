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
    /// trimmed stream is checked from its oldest remaining snapshot. Damage throws
    /// (``TimeTravelError/stepUnreadable(step:stream:damage:statesUnknown:)``, or the log's `corruptSnapshot`);
    /// ``divergenceReport(from:through:)`` goes round it.
    public func divergence(from: UInt64? = nil, through: UInt64 = .max) throws -> Divergence? {
        try replaying { try firstDivergence(from: from, through: through, passingOverDamage: false).divergence }
    }

    /// ``divergence(from:through:)`` in a damaged log: the first divergence among the recorded states that can be
    /// checked, and the stretches that cannot (``DivergenceReport/unchecked``). A stretch whose entries cannot be read
    /// is not replayed, and replay restarts from the next recorded state that reads; a recorded state whose snapshot
    /// cannot be read is not compared, and replay goes on through it, so the next comparison's range spans it; so too a
    /// snapshot whose key damage hides, the steps between the snapshots that read on either side of it named. A stretch
    /// holding a mutation the log has without its value, which ``divergence(from:through:)`` passes over in silence, is
    /// listed too (``DivergenceReport/Unchecked/Reason/valueNotRecorded(_:)``).
    public func divergenceReport(from: UInt64? = nil, through: UInt64 = .max) throws -> DivergenceReport {
        try replaying { try firstDivergence(from: from, through: through, passingOverDamage: true) }
    }

    private func firstDivergence(from: UInt64?, through: UInt64, passingOverDamage: Bool) throws -> DivergenceReport {
        let from = try from ?? earliestReplayableStep()
        guard replayer.canReduce else { throw try needsReducer(from) }
        // Past damage among the snapshots' keys, the recorded states that can be found, and where those hidden may lie.
        let listing = passingOverDamage
            ? try log.snapshotListing(stream: stream.name)
            : SnapshotListing(try log.snapshotSequences(stream: stream.name))
        let snapshots = listing.sequences.filter { $0 > from && $0 <= through }
        var hidden = listing.hidden[...]
        var unchecked: [DivergenceReport.Unchecked] = []
        /// Notes that `steps` could not be checked, joined to the stretch before when it continues it; rethrows damage
        /// where damage is not passed over. A new stretch starts at the stream's first entry in it where the stream
        /// index can tell: the steps before it hold the state compared before them (a stream that begins at #34 is not
        /// unchecked from #1).
        func note(_ steps: ClosedRange<UInt64>, _ reason: DivergenceReport.Unchecked.Reason) throws {
            if case .damage(let damage) = reason, !passingOverDamage { throw damage }
            if let last = unchecked.last, last.steps.upperBound + 1 >= steps.lowerBound {
                unchecked[unchecked.count - 1] = .init(steps: last.steps.lowerBound...max(last.steps.upperBound, steps.upperBound), reason: last.reason)
            } else {
                let own = try? log.sequences(stream: stream.name, kinds: Set(EntryKind.allCases), from: steps.lowerBound, through: steps.upperBound).first
                unchecked.append(.init(steps: (own ?? steps.lowerBound)...steps.upperBound, reason: reason))
            }
        }
        // The step replay goes on from, and its state; `nil` where damage left it unknown, until a recorded state that
        // reads. The range a divergence is placed in starts after the last state compared: past a recorded state that
        // cannot be read, replay goes on and the range spans it, its mutations counted since.
        var baseStep = from
        var base: P.State?
        var compared = from
        var last: LogEntry?
        var count = 0
        // The recorded states compared with replay.
        var states = 0
        do {
            base = try state(at: from)
        } catch TimeTravelError.stepUnreadable(_, _, let damage, _) where passingOverDamage {
            try note(from...from, .damage(damage))
        }
        /// Restarts replay from `recorded`, the recorded state at `step`, where it reads; else leaves the state unknown.
        func restart(at step: UInt64, from recorded: Result<Snapshot?, EventLogError>) throws {
            if case .success(let snapshot?) = recorded, snapshot.sequence == step {
                (baseStep, base) = (step, try decodeState(snapshot.state, codec: snapshot.codec, at: step))
            } else {
                base = nil
            }
            (compared, last, count) = (step, nil, 0)
        }
        /// Notes the steps up to `step` where a recorded state whose key cannot be read may lie: not compared, replay
        /// goes on through them, and a divergence's range spans them.
        func noteHidden(through step: UInt64) throws {
            while let range = hidden.first, range.lowerBound <= step, let damage = listing.damage {
                hidden.removeFirst()
                let (first, last) = (max(range.lowerBound, from + 1), min(range.upperBound, step))
                if first <= last { try note(first...last, .damage(damage)) }
            }
        }
        let gaps = try gaps()
        for step in snapshots {
            try noteHidden(through: step)
            // The recorded state at `step`, or the damage reading it met.
            let recorded = Result { () throws(EventLogError) in try log.snapshot(stream: stream.name, at: step) }
            if gaps.contains(where: { $0.lowerBound > baseStep && $0.lowerBound <= step }) || base == nil {
                // Retention removed entries of this stretch, or damage left its start unknown: replay restarts from
                // the recorded state after them.
                if case .failure(let damage) = recorded { try note(compared + 1...step, .damage(damage)) }
                try restart(at: step, from: recorded)
                continue
            }
            var replayed = base!
            var mutations = log.entries(EntryQuery(from: baseStep + 1, through: step, stream: stream.name, kinds: [.mutation]))
            do {
                while let mutation = try mutations.next() {
                    replayed = try reduce(replayed, mutation)
                    last = mutation
                    count += 1
                }
            } catch let error as TimeTravelError {
                // A mutation the log holds without its value: this stretch cannot be replayed, and replay restarts
                // from the recorded state after it.
                guard case .valueNotRecorded = error else { throw error }
                try note(compared + 1...step, .valueNotRecorded(error))
                (baseStep, base, compared, last, count) = (step, try state(at: step), step, nil, 0)
                continue
            } catch let damage as EventLogError {
                // Entries that cannot be read: the stretch is not replayed, and replay restarts from the recorded state
                // after it, where that reads.
                guard case .corruptEntry = damage else { throw damage }
                try note(compared + 1...step, .damage(damage))
                try restart(at: step, from: recorded)
                continue
            }
            let snapshot: Snapshot?
            switch recorded {
            case .success(let found): snapshot = found
            case .failure(let damage):
                // The recorded state cannot be read: not compared; replay goes on through it.
                try note(step...step, .damage(damage))
                (baseStep, base) = (step, replayed)
                continue
            }
            guard let snapshot else { continue }
            let recordedState = try decodeState(snapshot.state, codec: snapshot.codec, at: snapshot.sequence)
            let diff = StateDiff(from: try replayer.json(recordedState), to: try replayer.json(replayed))
            if !diff.isEmpty {
                let exact = count == 1 ? last : nil
                let divergence = Divergence(
                    step: step, range: (compared + 1)...step, mutation: exact,
                    action: try exact?.cause.flatMap(readableEntry), diff: diff)
                return DivergenceReport(divergence: divergence, unchecked: unchecked, compared: states + 1, uncompared: nil)
            }
            states += 1
            (baseStep, base, compared, last, count) = (step, recordedState, step, nil, 0)
        }
        if !hidden.isEmpty {
            // The stream's last entry, where its index reads so far; else the log's.
            let end = try (try? log.highestSequence(stream: stream.name)) ?? log.highestSequence()
            try noteHidden(through: min(through, end))
        }
        return DivergenceReport(
            divergence: nil, unchecked: unchecked, compared: states,
            uncompared: snapshots.isEmpty && listing.hidden.isEmpty ? try uncomparedEnd(from: from, through: through, passingOverDamage).map { from...$0 } : nil)
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
    ///
    /// A range in which the stream has mutations but recorded no state after its start throws
    /// ``TimeTravelError/nothingToCompare(stream:from:through:)``: such a check would pass whatever `reduce` does.
    public func assertReplayMatchesRecording(from: UInt64? = nil, through: UInt64 = .max) throws {
        let report = try replaying { try firstDivergence(from: from, through: through, passingOverDamage: false) }
        if let divergence = report.divergence { throw TimeTravelError.replayDiverges(divergence) }
        if let uncompared = report.uncompared {
            throw TimeTravelError.nothingToCompare(stream: stream.name, from: uncompared.lowerBound, through: uncompared.upperBound)
        }
    }

    /// The stream's last step in `from...through` when it has a mutation after `from` there; `nil` when it has none,
    /// and replay had nothing to do. Damage to the stream's index that stops the look is thrown, or `passingOverDamage`,
    /// taken for none: the damage is the report's to name.
    private func uncomparedEnd(from: UInt64, through: UInt64, _ passingOverDamage: Bool) throws -> UInt64? {
        do {
            guard try log.lastSequence(stream: stream.name, kinds: [.mutation], atOrBefore: through, after: from) != nil else { return nil }
            return try log.lastSequence(stream: stream.name, atOrBefore: through)
        } catch where passingOverDamage {
            return nil
        }
    }
}

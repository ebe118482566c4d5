import EventLogKit

extension TimeMachine {
    /// Why a bisect cannot start from `step`, whose state was judged bad: a step given can move earlier; the earliest
    /// step the log rebuilds cannot, so the bug lies before what the log holds, or in the test.
    private static func alreadyBad(at step: UInt64, given: Bool) -> String {
        if given { return "The state at #\(step) is already bad, so the bug came earlier. Start the bisect from an earlier step." }
        if step == 0 { return "The initial state (#0) is already bad, so no recorded step made it bad. Check that the test passes on a good state." }
        return "The state at #\(step), the earliest the log still rebuilds, is already bad: it went bad in steps retention removed, or the test fails on good states. Check the test on a good state."
    }

    /// Finds the first step whose state is bad, in O(log n) state reconstructions. The state at `from` must be good
    /// and the state at `through` bad (by default the log's last step); bisect assumes one transition between them,
    /// and the step it reports is confirmed by its good neighbour. With a reducer, only the stream's mutations change
    /// its state, so each step judged is one of them, about log2 of their number however many entries of other
    /// streams lie between them: bisect halves a long sequence range, judging each half at the stream's last
    /// mutation before its end (a half without one is known good unjudged), and once the range is 4,096 steps or
    /// fewer, halves the mutations in it, which the index lists. `judge` may skip a state it cannot evaluate;
    /// skipped steps next to the culprit leave a range that cannot be narrowed, reported in
    /// ``BisectResult/candidates``.
    public func bisect(
        from: UInt64? = nil, through: UInt64? = nil, judge: (P.State, UInt64) throws -> BisectVerdict
    ) throws -> BisectResult {
        var unreadable: EventLogError?, notRecorded: TimeTravelError?
        // A probe whose state cannot be rebuilt for damage is skipped; damage met otherwise (listing the stream's
        // mutations through an index block that points into it) ends the bisect, naming the steps that can be rebuilt.
        var result = try replaying {
            try bisect(from: from, through: through, judge: judge, unreadable: &unreadable, notRecorded: &notRecorded)
        }
        (result.unreadable, result.valueNotRecorded) = (unreadable, notRecorded)
        return result
    }

    private func bisect(
        from: UInt64?, through: UInt64?, judge: (P.State, UInt64) throws -> BisectVerdict, unreadable: inout EventLogError?,
        notRecorded: inout TimeTravelError?
    ) throws -> BisectResult {
        let given = from
        let from = try from ?? earliestReplayableStep()
        let start = reconstructions
        let end = try through ?? lastStep()
        var probes: [BisectProbe] = []
        /// The steps whose states the damage met so far leaves unknown, as verify names them: a state a snapshot
        /// inside a damaged block holds is judged.
        var unreadableSteps: [(steps: Range<UInt64>, damage: EventLogError)] = []
        /// Notes the states `damage` leaves unknown, for the probes to skip (``BisectResult/unreadable`` names it once
        /// one is).
        func noteUnreadable(_ damage: EventLogError) throws {
            unreadableSteps += try statesUnknown(for: damage).map { ($0, damage) }
        }
        /// The verdict on `step`'s state; one that cannot be rebuilt for damage is skipped, except at an end.
        func probe(_ step: UInt64, end: Bool = false) throws -> BisectVerdict {
            if !end, let known = unreadableSteps.first(where: { $0.steps.contains(step) }) {
                unreadable = unreadable ?? known.damage
                probes.append(BisectProbe(step: step, verdict: .skip))
                return .skip
            }
            let state: P.State
            do {
                state = try self.state(at: step)
            } catch let error as TimeTravelError where !end {
                switch error {
                case .stepUnreadable(_, _, let damage, let statesUnknown):
                    unreadableSteps += statesUnknown.map { ($0, damage) }
                    unreadable = unreadable ?? damage
                case .snapshotUnreadable(_, _, let damage, _):
                    // Without a reducer, a recorded state whose snapshot cannot be read.
                    unreadable = unreadable ?? damage
                case .valueNotRecorded:
                    // A mutation held without its value leaves the states up to the next snapshot unknown.
                    notRecorded = notRecorded ?? error
                default:
                    throw error
                }
                probes.append(BisectProbe(step: step, verdict: .skip))
                return .skip
            }
            let verdict = try judge(state, step)
            probes.append(BisectProbe(step: step, verdict: verdict))
            return verdict
        }
        /// The stream's mutations from `first` through `last`, as the index lists them; where damage to the index and
        /// to the entries it would be read around stops that listing, those that can be read, and each stretch that
        /// cannot, which may hold some (its states noted as unknown).
        func mutations(from first: UInt64, through last: UInt64) throws -> (listed: [UInt64], unreadable: [ClosedRange<UInt64>]) {
            do throws(EventLogError) {
                return (try log.sequences(stream: stream.name, kinds: [.mutation], from: first, through: last), [])
            } catch {
                guard case .corruptEntry = error else { throw error }
            }
            var listed: [UInt64] = [], stretches: [ClosedRange<UInt64>] = [], damages: [EventLogError] = []
            var entries = log.entries(EntryQuery(from: first, through: last, stream: stream.name, kinds: [.mutation]))
            while let entry = try entries.nextReadable(skipped: { stretch, damage in
                stretches.append(max(stretch.lowerBound, first)...min(stretch.upperBound, last))
                damages.append(damage)
            }) {
                listed.append(entry.sequence)
            }
            for damage in damages { try noteUnreadable(damage) }
            return (listed, stretches)
        }
        guard from < end else {
            throw TimeTravelError.bisectPrecondition("The good step #\(from) is not before the bad step #\(end): start the bisect before the step it ends at.")
        }
        switch try probe(from, end: true) {
        case .good: break
        case .bad: throw TimeTravelError.bisectPrecondition(Self.alreadyBad(at: from, given: given != nil))
        case .skip: throw TimeTravelError.bisectPrecondition("The state at #\(from) was skipped, but bisect needs it judged good. Start from a step the test can judge.")
        }
        func mustBeBad(_ step: UInt64, _ what: String, good: String? = nil) throws {
            switch try probe(step, end: true) {
            case .bad: break
            case .good: throw TimeTravelError.bisectPrecondition(good ?? "The state at #\(step), \(what) up to #\(end), is good: there is no bad state to find. Check the test, or bisect a longer range.")
            case .skip: throw TimeTravelError.bisectPrecondition("The state at #\(step), \(what) up to #\(end), was skipped, but bisect needs it judged bad. End the bisect at a step the test can judge.")
            }
        }
        /// A step whose state is good, below the points still to judge.
        var lower = from
        /// The steps still to judge, in order; the state at the last is bad.
        let points: [UInt64]
        if replayer.canReduce {
            // Every step's state can be rebuilt. It changes only at the stream's mutations (and across a stretch
            // retention removed, at the snapshot after it), so each point is judged at the last such change at or
            // before it, and a stretch without one is known good unjudged: no state is judged twice.
            let gaps = try gaps()
            /// The steps ``change(atOrBefore:after:)`` gave as they were, the stream's mutations there not listed.
            var unlisted = Set<UInt64>()
            func change(atOrBefore step: UInt64, after floor: UInt64) throws -> UInt64? {
                let mutation: UInt64?
                do throws(EventLogError) {
                    mutation = try log.lastSequence(stream: stream.name, kinds: [.mutation], atOrBefore: step, after: floor)
                } catch {
                    // Entries that cannot be read after the last mutation found (its index damaged there too) may
                    // hold a later one: the state at `step` itself is judged, or skipped when it cannot be rebuilt.
                    guard case .corruptEntry = error else { throw error }
                    try noteUnreadable(error)
                    unlisted.insert(step)
                    return step
                }
                let gapEnd = gaps.map(\.upperBound).filter { $0 > floor && $0 <= step }.max()
                return [mutation, gapEnd].compactMap { $0 }.max()
            }
            guard var last = try change(atOrBefore: end, after: from) else {
                throw TimeTravelError.bisectPrecondition("Stream '\(stream.name)' has no mutation between #\(from) and #\(end): nothing to bisect.")
            }
            // Without an end given, damage that leaves the last state unknown (a crash after a damaged last block) moves
            // the end to the last mutation before the states it leaves unknown; the state at the end was skipped. Where
            // the stream's mutations at the log's end cannot be listed but a snapshot there holds the state, that state
            // is the last that can be rebuilt, and a good one says so.
            let endDamage = through == nil && unlisted.contains(last) ? unreadableSteps.last?.damage : nil
            do {
                try mustBeBad(last, "the last mutation", good: endDamage.map { damage in
                    "The state at #\(last), the last that can be rebuilt before the damage, is good: if it went bad, a mutation after it did it, and their states cannot be rebuilt. \(damage.problem)"
                })
            } catch let error as TimeTravelError where through == nil {
                guard case .stepUnreadable(_, _, let damage, let statesUnknown) = error,
                      let span = statesUnknown.first(where: { $0.contains(last) }),
                      let before = try change(atOrBefore: span.lowerBound - 1, after: from)
                else { throw error }
                unreadable = unreadable ?? damage
                probes.append(BisectProbe(step: last, verdict: .skip))
                // Where the stream's mutations there cannot be listed, how far they run is not known either.
                let mutations = unlisted.contains(last) ? "from #\(span.lowerBound) on" : "in #\(span.lowerBound)…#\(last)"
                try mustBeBad(before, "the last mutation", good: "The state at #\(before), the last that can be rebuilt before the damage, is good: if it went bad, a mutation \(mutations) did it, and their states cannot be rebuilt. \(damage.problem)")
                last = before
            }
            var upper = last
            var skipped = false
            // Halve the sequence range down to a stretch whose mutations the index lists cheaply, then bisect
            // those: halving steps that interleave other streams' would cost up to one probe more.
            func halving() -> Bool {
                upper - lower > Self.listedStretch || gaps.contains { $0.lowerBound > lower && $0.lowerBound <= upper }
            }
            while upper - lower > 1 && !skipped && halving() {
                var middle = lower + (upper - lower) / 2
                // A step whose state retention removed cannot be judged: judge the edge of its gap instead.
                if let gap = gaps.first(where: { $0.lowerBound <= middle && middle < $0.upperBound }) {
                    if gap.upperBound < upper {
                        middle = gap.upperBound
                    } else if gap.lowerBound - 1 > lower {
                        middle = gap.lowerBound - 1
                    } else {
                        return BisectResult(
                            firstBad: nil, candidates: [], mutation: nil, action: nil,
                            diff: StateDiff(from: try json(at: lower), to: try json(at: upper)),
                            probes: probes, reconstructions: reconstructions - start, recordedBounds: nil, removed: gap)
                    }
                }
                guard let point = try change(atOrBefore: middle, after: lower) else {
                    lower = middle
                    continue
                }
                switch try probe(point) {
                case .good: lower = middle
                case .bad: upper = point
                case .skip: skipped = true
                }
            }
            if upper - lower == 1 {
                return try found(upper, after: lower, probes: probes, start: start)
            }
            // Bisect the mutation steps left, which the stream index lists without reading an entry (also after a
            // skipped state). A stretch that cannot be read is one step, always skipped: the first bad step may be in
            // it; a snapshot inside it that can be read holds its own step's state, judged. The last point is `upper`,
            // bad, also where it lies in such a stretch (a snapshot there, or the last step of a listing that failed).
            let listed = try mutations(from: lower + 1, through: upper)
            let heldInside = listed.unreadable.isEmpty ? [] : try log.snapshotSequences(stream: stream.name).filter { step in
                step < upper && listed.unreadable.contains { $0.contains(step) }
                    && log.firstReadableSnapshot(stream: stream.name, atOrAfter: step, in: [step]) != nil
            }
            points = Set(listed.listed + listed.unreadable.map(\.lowerBound) + heldInside + [upper]).sorted()
        } else {
            // Without a reducer only the recorded states (snapshots) can be judged, and the answer may be the
            // range between two of them.
            points = try log.snapshotSequences(stream: stream.name).filter { $0 > from && $0 <= end }
            guard let last = points.last else {
                throw TimeTravelError.noRecordedStates(stream: stream.name, from: from, through: end)
            }
            try mustBeBad(last, "the last recorded state")
        }
        guard !points.isEmpty else {
            throw TimeTravelError.bisectPrecondition("Stream '\(stream.name)' has no mutation between #\(lower) and #\(end): nothing to bisect.")
        }
        // Invariant: the state before points[low + 1] is good (low == -1: the state at `lower`), points[high] is bad.
        var low = -1, high = points.count - 1
        var skipped = Set<Int>()
        while high - low > 1 {
            // The point nearest the middle not yet skipped (of two as near, the earlier): past a skipped state, its
            // neighbours are tried outwards, up to the points next to `low` and `high`.
            let middle = (low + high) / 2
            let unskipped = ((low + 1)..<high).lazy.filter { !skipped.contains($0) }
            guard let index = unskipped.min(by: { (abs($0 - middle), $0) < (abs($1 - middle), $1) }) else { break }
            switch try probe(points[index]) {
            case .good: low = index
            case .bad: high = index
            case .skip: skipped.insert(index)
            }
        }
        let before = low >= 0 ? points[low] : lower
        // Every step of a stretch that cannot be read is a candidate: which of them were mutations is not known.
        let listed = try mutations(from: before + 1, through: points[high])
        let between = (listed.listed + listed.unreadable.flatMap { Array($0) }).sorted()
        guard high - low == 1 else {
            return BisectResult(
                firstBad: nil, candidates: between, mutation: nil, action: nil, diff: nil,
                probes: probes, reconstructions: reconstructions - start, recordedBounds: nil)
        }
        guard between.count == 1, let firstBad = between.first else {
            // Recorded states only: the culprit is one of the mutations between two recorded steps.
            return BisectResult(
                firstBad: nil, candidates: between, mutation: nil, action: nil,
                diff: StateDiff(from: try json(at: before), to: try json(at: points[high])),
                probes: probes, reconstructions: reconstructions - start, recordedBounds: before...points[high])
        }
        return try found(firstBad, after: before, probes: probes, start: start)
    }

    /// The most steps bisect lists the stream's mutations over rather than halve. Listing reads the index alone, but
    /// 65,536 steps took as long as the rest of a bisect over 1M entries (`reactorlog-bench bisect`).
    private static var listedStretch: UInt64 { 1 << 12 }

    /// The result naming `firstBad`, whose state differs from the good one at `before`.
    private func found(_ firstBad: UInt64, after before: UInt64, probes: [BisectProbe], start: Int) throws -> BisectResult {
        // The mutation may lie in a block that cannot be read: a state a snapshot holds there is judged.
        let mutation = try readableEntry(at: firstBad)
        return BisectResult(
            firstBad: firstBad, candidates: [firstBad], mutation: mutation,
            action: try mutation?.cause.flatMap(readableEntry),
            diff: StateDiff(from: try json(at: before), to: try json(at: firstBad)),
            probes: probes, reconstructions: reconstructions - start, recordedBounds: nil)
    }

    /// Replays a recorded bisect session: the same probes get the same verdicts, so the same result.
    public func bisect(from: UInt64? = nil, through: UInt64? = nil, replaying session: [BisectProbe]) throws -> BisectResult {
        let verdicts = Dictionary(session.map { ($0.step, $0.verdict) }, uniquingKeysWith: { first, _ in first })
        return try bisect(from: from, through: through) { _, step in
            guard let verdict = verdicts[step] else { throw TimeTravelError.bisectLogIncomplete(step: step) }
            return verdict
        }
    }
}

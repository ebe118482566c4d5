import EventLogKit

/// Blame over a range that damage, or a mutation the log holds without its value, may cross: the changes that can be
/// known, in order, and between them each stretch of steps whose changes cannot be, with the value at the path on
/// either side of it. ``TimeMachine/blame(_:from:through:)`` throws at the first such stretch;
/// ``TimeMachine/blameReport(_:from:through:latest:)`` goes round each one it meets.
public struct BlameReport: Sendable, Hashable {
    /// The value at the path at one end of a stretch whose changes cannot be known.
    public enum End: Sendable, Hashable {
        /// The value (`nil`: absent).
        case known(JSONValue?)
        /// Not known: the state there cannot be rebuilt either.
        case unknown
    }

    /// A stretch of steps whose changes cannot be known, why, and the value at the path on either side of it.
    public struct UnknownStretch: Sendable, Hashable {
        /// The steps, from the first whose state cannot be rebuilt through the first rebuilt again (a snapshot's), or
        /// through the range's end.
        public let steps: ClosedRange<UInt64>
        /// Why: ``TimeTravelError/stepUnreadable(step:stream:damage:statesUnknown:)`` where entries cannot be read,
        /// ``TimeTravelError/valueNotRecorded(step:stream:mutation:missing:readableFrom:)`` where a mutation is held
        /// without its value.
        public let reason: TimeTravelError
        /// The value at the path right before the stretch.
        public let old: End
        /// The value at the path at the stretch's last step.
        public let new: End

        /// The damage that made the stretch, the log's `EventLogError.corruptEntry`; `nil` for a value the log does not
        /// hold, which is no damage.
        public var damage: EventLogError? {
            if case .stepUnreadable(_, _, let damage, _) = reason { damage } else { nil }
        }
    }

    /// A recorded state that blame without a reducer passed over because its snapshot cannot be read: a change
    /// across it is placed between the recorded states on either side, in a range of mutations the wider for it.
    public struct UnreadableState: Sendable, Hashable {
        /// The step whose state the snapshot holds.
        public let step: UInt64
        /// What reading the snapshot met, the log's `EventLogError.corruptSnapshot`.
        public let damage: EventLogError
    }

    /// One line of the report.
    public enum Row: Sendable, Hashable {
        /// A mutation that changed the value at the path.
        case change(BlameEntry)
        /// Steps whose changes cannot be known.
        case unknown(UnknownStretch)
    }

    /// The changes and the stretches between them, in the order of their steps.
    public let rows: [Row]

    /// Without a reducer, the recorded states compared that could not be read, in order; empty with a reducer, which
    /// rebuilds a state from the snapshot before a damaged one.
    public let unreadableStates: [UnreadableState]

    /// The changes that can be known, in order.
    public var changes: [BlameEntry] {
        rows.compactMap { if case .change(let change) = $0 { change } else { nil } }
    }

    /// The stretches whose changes cannot be known, in order; empty when the whole range could be replayed.
    public var unknownStretches: [UnknownStretch] {
        rows.compactMap { if case .unknown(let stretch) = $0 { stretch } else { nil } }
    }
}

extension TimeMachine {
    /// The mutations that changed the value at `path` from `from` through `through`, as ``blame(_:from:through:)``
    /// finds them, and, where damage or a mutation held without its value leaves states that cannot be rebuilt, the
    /// stretch of steps whose changes cannot be known, with the value at the path before and after it: the changes
    /// before it are listed, and those from the first state after it that a snapshot rebuilds. A damaged block that
    /// holds snapshots of the stream makes a stretch up to each state they hold (the spans `verify` names). Without a reducer, the
    /// steps from the first mutation after the last recorded state to the range's end are such a stretch too
    /// (``TimeTravelError/needsReducer(step:stream:nearest:)``). With `latest`, only
    /// the latest `latest` changes up to `through` (and the stretches among them), found walking back from it as
    /// ``lastChanges(of:count:from:atOrBefore:)`` does. Other errors are thrown as blame throws them.
    public func blameReport(_ path: StatePath, from: UInt64 = 1, through: UInt64 = .max, latest: Int? = nil) throws -> BlameReport {
        let unreadable = UnreadableStates()
        let rows = try blameRows(path, from: from, through: through, latest: latest, noting: unreadable)
        return BlameReport(rows: rows, unreadableStates: unreadable.states)
    }

    private func blameRows(_ path: StatePath, from: UInt64, through: UInt64, latest: Int?, noting unreadable: UnreadableStates) throws -> [BlameReport.Row] {
        guard from <= through else { return [] }
        do {
            let changes = try latest.map { try lastChanges(of: path, count: $0, from: from, atOrBefore: through, noting: unreadable) }
                ?? blame(path, from: from, through: through, noting: unreadable)
            let unrecorded = try unrecordedEnd(of: path, from: from, through: through)
            return changes.map(BlameReport.Row.change) + (unrecorded.map { [.unknown($0)] } ?? [])
        } catch let error as TimeTravelError {
            // The damage (or the mutation without its value) is at `first`; the first state after it a snapshot
            // rebuilds is `readableFrom`. Where no step of the range lies outside what it leaves unknown, there is
            // nothing to list.
            let (first, readableFrom, spans): (UInt64, UInt64?, [Range<UInt64>])
            switch error {
            case .stepUnreadable(_, _, .corruptEntry(let sequence, _), let statesUnknown):
                // A block whose key a bad bit raised is named by that key, past the states it leaves unknown.
                (first, readableFrom, spans) = (min(sequence, statesUnknown.first?.lowerBound ?? sequence), Self.end(of: statesUnknown), statesUnknown)
            case .stepUnreadable(_, _, .corruptSnapshot(_, let base, _), let statesUnknown):
                // A trimmed stream's base: the states after it are unknown.
                (first, readableFrom, spans) = (base + 1, Self.end(of: statesUnknown), [])
            case .valueNotRecorded(_, _, let mutation, _, let after):
                (first, readableFrom, spans) = (mutation, after, [])
            default:
                throw error
            }
            // A damaged block's changes begin at the stream's first mutation in it (the actions before change no state);
            // where the index cannot say, at the damage.
            let start = spans.isEmpty ? first : firstMutation(from: first, through: spans[0].lowerBound) ?? first
            // Each range blamed again is a part of this one, or the same damage would be met over and over.
            guard first <= through else { throw error }
            if through < start {
                return first > from ? try blameRows(path, from: from, through: first - 1, latest: latest, noting: unreadable) : []
            }
            let stretches = unknownStretches(
                of: path, for: error, first: first, start: start, readableFrom: readableFrom, spans: spans, from: from, through: through)
            guard !stretches.isEmpty else { throw error }
            // Walking back, the rows after the stretch come first, and may already be enough.
            var after: [BlameReport.Row] = []
            if let readableFrom, readableFrom < through, readableFrom >= from {
                after = try blameRows(path, from: readableFrom + 1, through: through, latest: latest, noting: unreadable)
            }
            let found = after.count(where: { if case .change = $0 { true } else { false } })
            if let latest, found >= latest { return after }
            let before = first > from ? try blameRows(path, from: from, through: first - 1, latest: latest.map { $0 - found }, noting: unreadable) : []
            return before + stretches.map(BlameReport.Row.unknown) + after
        }
    }

    /// The step from which the states `statesUnknown` names are rebuilt again; `nil` where no snapshot follows them.
    private static func end(of statesUnknown: [Range<UInt64>]) -> UInt64? {
        statesUnknown.last.flatMap { $0.upperBound == .max ? nil : $0.upperBound }
    }

    /// The stream's first mutation from `first` through `last`, as its index lists them; `nil` when there is none, or
    /// the index cannot say.
    private func firstMutation(from first: UInt64, through last: UInt64) -> UInt64? {
        (try? log.sequences(stream: stream.name, kinds: [.mutation], from: first, through: last))?.first
    }

    /// The stretches `error`, met at `first`, leaves unknown from `start` (the first step whose change it hides:
    /// `first`, or a damaged block's first mutation of the stream) through `readableFrom` (the range's end when
    /// `nil`), within `from`…`through`: one, or, where damage to entries spans snapshots that hold states inside it,
    /// one up to each such state (`spans`, the error's `statesUnknown`, as `verify` names them), so that a change is
    /// placed between the two known states around it. No mutation of the stream lies between two spans: the value at
    /// a span's start is the one at the end of the span before. A stretch is left out where the range holds no step of
    /// it, or none outside it, past it: the range's steps there are known, or all unknown.
    private func unknownStretches(
        of path: StatePath, for error: TimeTravelError, first: UInt64, start: UInt64, readableFrom: UInt64?,
        spans: [Range<UInt64>], from: UInt64, through: UInt64
    ) -> [BlameReport.UnknownStretch] {
        let bounds: [(first: UInt64, end: UInt64?)] = spans.count > 1
            ? spans.enumerated().map { index, span in (index == 0 ? min(start, span.lowerBound) : span.lowerBound, Self.end(of: [span])) }
            : [(start, readableFrom)]
        var stretches: [BlameReport.UnknownStretch] = []
        // No mutation of the stream lies from `first` up to `start`: the value before the one is the value before the other.
        // (Damage before the first entry is met at no step: nothing is before it.)
        var old: BlameReport.End = start >= from && first > 0 ? value(at: first - 1, of: path) : .unknown
        for (start, end) in bounds {
            let new = end.map { $0 <= through ? value(at: $0, of: path) : .unknown } ?? .unknown
            defer { old = new }
            guard start <= through, start >= from || end.map({ $0 >= from && $0 < through }) == true else { continue }
            // Each stretch's reason names its own first step.
            let reason = if bounds.count > 1, case .stepUnreadable(_, let stream, let damage, _) = error {
                TimeTravelError.stepUnreadable(step: max(start, from), stream: stream, damage: damage, statesUnknown: spans)
            } else {
                error
            }
            stretches.append(BlameReport.UnknownStretch(
                steps: max(start, from)...min(end ?? through, through), reason: reason, old: start >= from ? old : .unknown, new: new))
        }
        return stretches
    }

    /// Without a reducer, which compares recorded states only, the steps from the first mutation after the last
    /// state recorded up to `through` (at most the last step), whose changes cannot be known; `nil` with a
    /// reducer, or when no mutation follows that state.
    private func unrecordedEnd(of path: StatePath, from: UInt64, through: UInt64) throws -> BlameReport.UnknownStretch? {
        guard !replayer.canReduce else { return nil }
        let end = min(through, try lastStep())
        let recorded = try log.recoveryPoint(stream: stream.name, atOrBefore: end).sequence
        guard let first = try log.sequences(stream: stream.name, kinds: [.mutation], from: max(recorded + 1, from), through: end).first else { return nil }
        return BlameReport.UnknownStretch(
            steps: first...end, reason: .needsReducer(step: first, stream: stream.name, nearest: [recorded]),
            old: value(at: first - 1, of: path), new: .unknown)
    }

    /// The value at `path` at `step`, or `.unknown` when that state cannot be rebuilt.
    private func value(at step: UInt64, of path: StatePath) -> BlameReport.End {
        guard let state = try? json(at: step) else { return .unknown }
        return .known(state[path])
    }
}

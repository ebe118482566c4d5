import EventLogKit
import TimeTravel

/// What one entry did to its stream's state, as a timeline page and `log --changes` show it.
struct TimelineStep {
    /// The change from the last known state to the state after the entry; `nil` when there is none to show (an
    /// entry other than a mutation, a state not known, or a first known state with nothing known before it).
    var diff: StateDiff?
    /// The state after the entry when it is the first known one and nothing before it is: all of it is new.
    var firstKnown: JSONValue?
    /// Whether the state after the entry is unknown: no reducer, and the log recorded no state there.
    var isUnknown = false
    /// When ``diff`` spans several mutations because the states between are not in the log (not recorded, or removed
    /// by retention): the first of them.
    var spanStart: UInt64?

    /// The changes as a timeline page lists them, `nil` when there are none; a first known state is one addition of
    /// the whole state.
    var timelineChanges: [TimelineDocument.Change]? {
        if let firstKnown { return [TimelineDocument.Change(path: StatePath([]), old: nil, new: firstKnown)] }
        guard let diff, !diff.isEmpty else { return nil }
        return diff.changes.map { TimelineDocument.Change(path: $0.path, old: $0.old, new: $0.new) }
    }
}

extension TimeMachine {
    /// Visits each entry of the stream from `from` through `through` with what it did to the state, and returns
    /// the state before `from` (`nil` when it is not known). With a reducer every state is known; without one,
    /// the states the log recorded are, and the change at each of them spans the mutations since the last.
    func walkStates(from: UInt64, through: UInt64, _ visit: (LogEntry, TimelineStep) throws -> Void) throws -> JSONValue? {
        if canReduce { return try walkReduced(from: from, through: through, visit) }
        var known: JSONValue?
        do {
            known = try json(at: from == 0 ? 0 : from - 1)
        } catch TimeTravelError.needsReducer {
            known = nil
        }
        let start = known
        let recorded = Set(try log.snapshotSequences(stream: stream.name))
        var unknownSince: UInt64?
        var isUnknown = known == nil
        var entries = log.entries(EntryQuery(from: max(from, 1), through: through, stream: stream.name))
        while let entry = try entries.next() {
            guard entry.kind == .mutation else {
                try visit(entry, TimelineStep(isUnknown: isUnknown))
                continue
            }
            guard recorded.contains(entry.sequence) else {
                unknownSince = unknownSince ?? entry.sequence
                isUnknown = true
                try visit(entry, TimelineStep(isUnknown: true))
                continue
            }
            let state = try json(at: entry.sequence)
            try visit(entry, TimelineStep(
                diff: known.map { StateDiff(from: $0, to: state) }, firstKnown: known == nil ? state : nil, spanStart: unknownSince))
            (known, unknownSince, isUnknown) = (state, nil, false)
        }
        return start
    }

    private func walkReduced(from: UInt64, through: UInt64, _ visit: (LogEntry, TimelineStep) throws -> Void) throws -> JSONValue? {
        var iterator = try states(from: from, through: through)
        let start = try replayer.json(iterator.state)
        var previous = start
        // Where retention removed a stretch, the next mutation's change spans it.
        var gapStart: UInt64?
        while let (entry, state) = try iterator.next() {
            if let gap = iterator.crossedGap { gapStart = gapStart ?? gap.lowerBound }
            guard entry.kind == .mutation else {
                try visit(entry, TimelineStep())
                continue
            }
            let json = try replayer.json(state)
            try visit(entry, TimelineStep(diff: StateDiff(from: previous, to: json), spanStart: gapStart))
            (previous, gapStart) = (json, nil)
        }
        return start
    }
}

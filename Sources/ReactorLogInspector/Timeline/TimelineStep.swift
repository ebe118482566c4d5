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
    /// Whether the state is unknown because it would be rebuilt through entries that could not be read.
    var isUnreadable = false
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

import TimeTravel

/// What one entry did to its stream's state, as a timeline page and `log --changes` show it.
struct TimelineStep {
    /// The change from the last known state to the state after the entry; `nil` when there is none to show (an
    /// entry other than a mutation, a state not known, or a first known state with nothing known before it).
    var diff: StateDiff?
    /// The state after the entry when it is the first known one and nothing before it is: all of it is new.
    var firstKnown: JSONValue?
    /// Why the state after the entry is not known, `nil` when it is.
    var unknown: Unknown?
    /// When ``diff`` spans several mutations because the states between are not in the log (not recorded, or removed
    /// by retention): the first of them.
    var spanStart: UInt64?

    /// Why a state is not known.
    enum Unknown: String {
        /// The log holds no state there and the reducer is not at hand, or retention removed the entries it is
        /// rebuilt from.
        case notRecorded
        /// It would be rebuilt through entries that could not be read.
        case unreadable
        /// The log recorded it in a snapshot that cannot be read, and no reducer rebuilds it.
        case snapshotUnreadable
        /// It would be rebuilt through a mutation the log holds without its value (``EventLogKit/MissingValue``): no
        /// reducer rebuilds it; the stream's next snapshot holds the state again.
        case valueMissing
    }

    /// The changes as a timeline page lists them, `nil` when there are none; a first known state is one addition of
    /// the whole state.
    var timelineChanges: [TimelineDocument.Change]? {
        if let firstKnown { return [TimelineDocument.Change(path: StatePath([]), old: nil, new: firstKnown)] }
        guard let diff, !diff.isEmpty else { return nil }
        return diff.changes.map { TimelineDocument.Change(path: $0.path, old: $0.old, new: $0.new) }
    }
}

import EventLogKit
import TimeTravel

/// One stream's states, followed entry by entry in the log's order: what each entry did to the state, as the
/// timeline, `log --changes` and `tail --changes` show it. The last known state is kept, typed, so that with the
/// reducer a mutation costs one `reduce` (a state is rebuilt only at the start and across a stretch retention
/// removed). Without it, the states the log recorded are known, and the change at each spans the mutations since the
/// last.
struct StateWalk {
    private let machine: any InspectableMachine
    /// The stretches retention removed from the stream, when the walk began.
    private let gaps: [ClosedRange<UInt64>]
    /// The state before the first entry walked, `nil` when it is not known.
    let start: JSONValue?
    /// Why ``start`` is not known, `nil` when it is.
    let startUnknown: TimelineStep.Unknown?
    /// The last known state, as JSON and (right after the mutation before, with the reducer) as the reducer's type.
    private var state: JSONValue?
    private var typed: Any?
    /// The first mutation since the last known state whose own state is not known.
    private var unknownSince: UInt64?
    /// Why the state after the last entry is not known, `nil` when it is.
    private var unknown: TimelineStep.Unknown?
    /// The last entry walked (before the first, the step the walk starts after).
    private var position: UInt64
    /// Without the reducer, the steps whose states the log recorded, through the highest step when the walk began
    /// (a later one, on a log being written, is looked up): a mutation's state is looked for only where there is one.
    private let recorded: (steps: Set<UInt64>, through: UInt64)?
    /// The first damage a state could not be rebuilt through, and how many states (the one before the first entry, and
    /// after mutations) it left unknown.
    private(set) var unshown = DamageTally()

    /// A walk of `machine`'s stream from entry `first` on.
    init(_ machine: any InspectableMachine, log: EventLog, from first: UInt64) throws {
        self.machine = machine
        gaps = try log.gaps(stream: machine.stream.name).map(\.removed)
        let before = first == 0 ? 0 : first - 1
        position = before
        var damage: EventLogError?
        var why = TimelineStep.Unknown.notRecorded
        start = try Self.known(damage: &damage, why: &why) { try machine.json(at: before) }
        if let damage { unshown.add(damage) }
        startUnknown = start != nil ? nil : why
        recorded = machine.canReduce ? nil : (Set(try log.snapshotSequences(stream: machine.stream.name)), try log.highestSequence())
        (state, unknown) = (start, startUnknown)
    }

    /// Passes over `stretch`, entries not in the walk: a block that could not be read (which `log` lists past), or a
    /// stretch retention removed. The state after it is rebuilt where it can be, and the next known state's change
    /// spans it.
    mutating func skip(_ stretch: ClosedRange<UInt64>) {
        typed = nil
        unknownSince = unknownSince ?? stretch.lowerBound
    }

    /// What `entry`, the next of the stream walked, did to the state.
    mutating func step(_ entry: LogEntry) throws -> TimelineStep {
        // Across a stretch retention removed, the state kept is not the one before this entry: it is rebuilt.
        if let gap = gaps.first(where: { $0.lowerBound > position && $0.upperBound < entry.sequence }) { skip(gap) }
        position = entry.sequence
        guard entry.kind == .mutation else { return TimelineStep(unknown: unknown) }
        let mayBeKnown = recorded.map { entry.sequence > $0.through || $0.steps.contains(entry.sequence) } ?? true
        var damage: EventLogError?
        var why = TimelineStep.Unknown.notRecorded
        guard mayBeKnown, let (typed, after) = try Self.known(damage: &damage, why: &why, { try machine.state(after: entry, from: typed) }) ?? nil else {
            unknownSince = unknownSince ?? entry.sequence
            (typed, unknown) = (nil, why)
            if let damage { unshown.add(damage) }
            return TimelineStep(unknown: unknown)
        }
        defer { (state, self.typed, unknownSince, unknown) = (after, typed, nil, nil) }
        guard let before = state else { return TimelineStep(firstKnown: after, spanStart: unknownSince) }
        return TimelineStep(diff: StateDiff(from: before, to: after), spanStart: unknownSince)
    }

    /// The state `read` rebuilds, or `nil` where it cannot be known, `why` saying so: not recorded and no reducer, or
    /// removed; rebuilt through a mutation without its value; rebuilt through damage, or recorded in a snapshot that
    /// cannot be read (then `damage` says which).
    private static func known<State>(
        damage: inout EventLogError?, why: inout TimelineStep.Unknown, _ read: () throws -> State
    ) throws -> State? {
        do {
            return try read()
        } catch let error as TimeTravelError {
            switch error {
            case .needsReducer, .stepTrimmed, .stepRemoved: return nil
            case .valueNotRecorded:
                why = .valueMissing
                return nil
            case .stepUnreadable(_, _, let unreadable, _):
                (damage, why) = (unreadable, .unreadable)
                return nil
            case .snapshotUnreadable(_, _, let unreadable, _):
                (damage, why) = (unreadable, .snapshotUnreadable)
                return nil
            default: throw error
            }
        } catch let error as EventLogError {
            switch error {
            case .corruptSnapshot:
                // Without the reducer, the state recorded at the step (a reducer passes over a damaged snapshot).
                (damage, why) = (error, .snapshotUnreadable)
                return nil
            case .corruptEntry, .corruptStream, .corruptIndex:
                (damage, why) = (error, .unreadable)
                return nil
            default: throw error
            }
        }
    }
}

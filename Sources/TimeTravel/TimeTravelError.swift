import EventLogKit

/// What can go wrong travelling in a log's time, each a sentence with a hint (a divergence adds its diff below).
public enum TimeTravelError: HintedError, Sendable, Hashable {
    /// A path such as `repos[3` could not be parsed.
    case malformedPath(path: String, reason: String)
    /// A step past the log's last one (`highest`): every step up to it has a state in every stream.
    case stepOutOfRange(step: UInt64, stream: String, highest: UInt64)
    /// The step's state cannot be rebuilt: the entries before it were trimmed.
    case stepTrimmed(step: UInt64, stream: String, earliest: UInt64)
    /// The step lies in a stretch retention removed from the middle of the stream (`StreamGap`).
    case stepRemoved(step: UInt64, stream: String, removed: ClosedRange<UInt64>)
    /// The step's state is rebuilt by replaying mutations of which one cannot be read (`damage`, the log's
    /// `EventLogError.corruptEntry`), or from a trimmed stream's base snapshot that cannot be read
    /// (`EventLogError.corruptSnapshot`). `statesUnknown` are the steps whose states the damage leaves unknown, in
    /// order, as `UnreadableStretch.Part.statesUnknown` names them: `step` lies in one; a snapshot inside the damaged
    /// stretch holds the states between two; and the last ends where every state is rebuilt again, from a snapshot
    /// after the damage (at `UInt64.max` when none follows).
    case stepUnreadable(step: UInt64, stream: String, damage: EventLogError, statesUnknown: [Range<UInt64>])
    /// The step's state is rebuilt by replaying `mutation`, which the log holds without its value, for the reason
    /// `missing` says (it could not be encoded, or it stands for what the stream appended while the log could not
    /// be written). `readableFrom` is the stream's first snapshot after it, from which every state is rebuilt again,
    /// when there is one.
    case valueNotRecorded(step: UInt64, stream: String, mutation: UInt64, missing: MissingValue, readableFrom: UInt64?)
    /// The state at a step exists only by reducing, and no reducer was given. `nearest`: the recorded states around
    /// it that can be read (0: the initial state, where no snapshot precedes the step in an untrimmed stream).
    case needsReducer(step: UInt64, stream: String, nearest: [UInt64])
    /// The state at a step was recorded in a snapshot that cannot be read (`damage`), and rebuilding it needs the
    /// reducer, which was not given. `nearest`: the recorded states around it that can be read.
    case snapshotUnreadable(step: UInt64, stream: String, damage: EventLogError, nearest: [UInt64])
    /// Bisect cannot start: the first state is not good or the last is not bad.
    case bisectPrecondition(String)
    /// Bisect without a reducer judges recorded states only, and the stream recorded none in the range.
    case noRecordedStates(stream: String, from: UInt64, through: UInt64)
    /// A causal tree starts at an action, and the step is not one of the stream.
    case notAnAction(step: UInt64, stream: String)
    /// A recorded bisect session does not cover a probe that replaying it needs.
    case bisectLogIncomplete(step: UInt64)
    /// Replaying with the current reducer does not reproduce the recorded states.
    case replayDiverges(Divergence)
    /// The stream has mutations in `from...through` but recorded no state after `from` to compare replay with: a
    /// check of replay against the recording would check nothing.
    case nothingToCompare(stream: String, from: UInt64, through: UInt64)
    /// A log error, passed through.
    case log(EventLogError)
    /// A payload could not be decoded with the current types.
    case decoding(String)
    /// A recorded value no longer decodes with the replayer's types: the stream was recorded with other types.
    case schemaMismatch(what: String, detail: String)

    /// The problem alone: for a tool that words its own hint, as the inspector does.
    public var problem: String {
        switch self {
        case .malformedPath(let path, let reason): "'\(path)' is not a state path: \(reason)."
        case .stepOutOfRange(let step, let stream, let highest): "Step #\(step) is past the log's last step, #\(highest), so stream '\(stream)' has no state there."
        case .stepTrimmed(let step, let stream, let earliest):
            "The log holds '\(stream)' only from its state at #\(earliest) on (the entries before were trimmed, or left out of an export), so its state at #\(step) is gone."
        case .stepRemoved(let step, let stream, let removed):
            "Retention removed the entries of '\(stream)' from #\(removed.lowerBound) to #\(removed.upperBound), so its state at #\(step) is gone."
        case .stepUnreadable(let step, let stream, let damage, _):
            if case .corruptSnapshot = damage {
                "The state of '\(stream)' at #\(step) is rebuilt from the snapshot a trim left as the stream's base, which cannot be read. \(damage.problem)"
            } else {
                "The state of '\(stream)' at #\(step) is rebuilt through entries that cannot be read. \(damage.problem)"
            }
        case .valueNotRecorded(let step, let stream, let mutation, let missing, _):
            "The state of '\(stream)' at #\(step) is rebuilt through mutation #\(mutation), which the log holds without its value: \(missing)."
        case .needsReducer(let step, let stream, let nearest):
            "The state of '\(stream)' at #\(step) was not recorded and rebuilding it needs the reducer. Recorded states nearby: \(Self.listed(nearest))."
        case .snapshotUnreadable(let step, let stream, let damage, let nearest):
            "The state of '\(stream)' at #\(step) was recorded in a snapshot that cannot be read, and rebuilding it needs the reducer. \(damage.problem) Recorded states nearby that read: \(Self.listed(nearest))."
        case .bisectPrecondition(let message), .decoding(let message): message
        case .noRecordedStates(let stream, let from, let through):
            "Stream '\(stream)' recorded no state between #\(from) and #\(through), and bisect without the reducer judges recorded states only."
        case .notAnAction(let step, let stream): "#\(step) is not an action of stream '\(stream)'."
        case .bisectLogIncomplete(let step): "The recorded bisect session has no verdict for #\(step): it was recorded on another log or range."
        case .replayDiverges(let divergence): divergence.description
        case .nothingToCompare(let stream, let from, let through):
            "Stream '\(stream)' recorded no state after #\(from) through #\(through) to compare replay with, so nothing was checked."
        case .log(let error): error.problem
        case .schemaMismatch(let what, let detail):
            "\(what) no longer decodes (\(detail)): the stream was recorded with other types."
        }
    }

    /// What to do about it, for a program using the library (empty where ``problem`` says it already). A library
    /// error names the library's calls, never the inspector's commands.
    public var hint: String {
        switch self {
        case .malformedPath: "Paths look like repos[3], user.name, items[2].done or repos.count."
        case .stepOutOfRange(_, _, let highest): "Pick a step from 0 (the initial state) to #\(highest)."
        case .stepTrimmed(_, _, let earliest): "Pick a step from #\(earliest) on."
        case .stepRemoved(_, _, let removed): "Pick a step before #\(removed.lowerBound), or from #\(removed.upperBound) on."
        case .stepUnreadable(_, _, let damage, let statesUnknown):
            Self.around(damage, statesUnknown) + " `EventLog.verify()` names every damaged entry."
        case .valueNotRecorded(_, _, let mutation, _, let readableFrom):
            readableFrom.map { "Pick a step before #\(mutation), or from #\($0) on, rebuilt from the snapshot there." }
                ?? "Pick a step before #\(mutation): no snapshot of the stream follows it."
        case .needsReducer(_, _, let nearest), .snapshotUnreadable(_, _, _, let nearest):
            "\(nearest.isEmpty ? "Travel" : "Read one of those, or travel") with a replayer that has the reducer (`ReactorReplayer`)."
        case .noRecordedStates: "Bisect with a replayer that has the reducer (`ReactorReplayer`), or record snapshots more often."
        case .nothingToCompare:
            "Record snapshots more often (`SnapshotPolicy.everyMutation` for a log kept as a test fixture, `log.checkpoint()` where a session ends), or check a range that ends at a snapshot."
        case .notAnAction: "Start the tree at an action's step (an entry of kind `.action`)."
        case .schemaMismatch:
            "Read it with the types that recorded it, or register migrations from them (`SchemaMigrations`)."
        case .log(let error): error.hint
        case .bisectPrecondition, .bisectLogIncomplete, .replayDiverges, .decoding: ""
        }
    }

    /// Steps as a sentence lists them: "#12, #40", or "none".
    private static func listed(_ steps: [UInt64]) -> String {
        steps.isEmpty ? "none" : steps.map { $0 == 0 ? "#0 (the initial state)" : "#\($0)" }.joined(separator: ", ")
    }

    /// The steps a ``stepUnreadable(step:stream:damage:statesUnknown:)`` leaves, as sentences: those before the
    /// damage (none before a trimmed stream's base), those from the first snapshot after it, and the states snapshots
    /// inside it hold.
    public static func around(_ damage: EventLogError, _ statesUnknown: [Range<UInt64>]) -> String {
        guard let first = statesUnknown.first, let last = statesUnknown.last else {
            return "Pick another step."
        }
        let before: String? = if case .corruptEntry = damage, first.lowerBound > 0 { "a step before #\(first.lowerBound)" } else { nil }
        let after: String? = last.upperBound == .max ? nil : "from #\(last.upperBound) on, rebuilt from a snapshot after the damage"
        let pick = switch (before, after) {
        case (let before?, let after?): "Pick \(before), or \(after)."
        case (let before?, nil): "Pick \(before): no snapshot follows the damage."
        case (nil, let after?): "Pick a step \(after)."
        case (nil, nil): "No state after the damage can be rebuilt: no snapshot follows it."
        }
        let held = zip(statesUnknown, statesUnknown.dropFirst()).map { span, next in
            next.lowerBound - span.upperBound == 1 ? "#\(span.upperBound)" : "#\(span.upperBound)…#\(next.lowerBound - 1)"
        }
        guard let lastHeld = held.last else { return pick }
        let listed = held.count == 1 ? lastHeld : held.dropLast().joined(separator: ", ") + " and " + lastHeld
        return pick + " Snapshots inside the damage hold the states at \(listed) too."
    }
}

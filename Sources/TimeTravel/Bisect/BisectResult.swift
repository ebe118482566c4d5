import EventLogKit

/// What a bisect found.
public struct BisectResult: Sendable, Hashable {
    /// The first bad step, when bisect narrowed it to one.
    public let firstBad: UInt64?
    /// When skipped steps prevented narrowing: the steps one of which is the first bad (as git reports). Where the
    /// stream index is damaged over entries that cannot be read, every number of that stretch: which were the
    /// stream's mutations is not known.
    public let candidates: [UInt64]
    /// The mutation at the first bad step (`nil` where its entry is in a block that cannot be read).
    public let mutation: LogEntry?
    /// The action that caused it; `nil` for none, or where its entry cannot be read (the mutation's `cause` still
    /// names it).
    public let action: LogEntry?
    /// How the state changed across the first bad step.
    public let diff: StateDiff?
    /// Every probe, in order: the session, to record and replay (``TimeMachine/bisect(from:through:replaying:)``).
    public let probes: [BisectProbe]
    /// How many states were rebuilt.
    public let reconstructions: Int
    /// Without a reducer (``RecordedStates``), bisect judges only the states the log recorded: when the first
    /// bad state lies between two recorded steps with more than one mutation between them, these are the last
    /// good and the first bad recorded steps, ``candidates`` lists the mutations between them and ``diff`` is
    /// the change across the range. A reducer narrows it to one mutation.
    public let recordedBounds: ClosedRange<UInt64>?
    /// When the state turned bad inside a stretch retention removed (`StreamGap`): that stretch,
    /// from its first removed step to the snapshot after it. The mutations that did it are gone.
    public var removed: ClosedRange<UInt64>? = nil
    /// When a probe's state was rebuilt through entries that cannot be read (a damaged log), or, without a reducer, was
    /// recorded in a snapshot that cannot be read: the first such damage.
    /// Those probes were skipped, as a judge skips a state it cannot evaluate; the ends are never skipped for it.
    public var unreadable: EventLogError? = nil
    /// When a probe's state was rebuilt through a mutation the log holds without its value (an `unencodable` entry):
    /// the first such (``TimeTravelError/valueNotRecorded(step:stream:mutation:missing:readableFrom:)``). Those probes were
    /// skipped, as for damage.
    public var valueNotRecorded: TimeTravelError? = nil
}

extension BisectResult: CustomStringConvertible {
    /// What bisect found, in a sentence: `First bad step: #31 appendRepos, caused by #29 loadNextPage (7 states
    /// judged).` Where it could not narrow it to one step, the steps or the recorded states it lies between, or the
    /// stretch retention removed it in; ``diff`` has the state's change.
    public var description: String {
        let judged = " (\(probes.count) state\(probes.count == 1 ? "" : "s") judged)."
        if let bounds = recordedBounds {
            let count = candidates.count
            return "The first bad state lies between the recorded states at #\(bounds.lowerBound) (good) and #\(bounds.upperBound) (bad), "
                + "one of the \(count) mutation\(count == 1 ? "" : "s") between them" + judged
        }
        if let removed {
            return "The state turned bad in #\(removed.lowerBound)…#\(removed.upperBound), a stretch retention removed, so the mutations that did it are gone" + judged
        }
        guard let firstBad else {
            let named = candidates.prefix(10).map { "#\($0)" }.joined(separator: ", ")
            let more = candidates.count > 10 ? " and \(candidates.count - 10) more" : ""
            return "Skipped states leave the first bad step among \(named)\(more)" + judged
        }
        var line = "First bad step: #\(firstBad) " + (mutation?.caseName ?? "(its entry cannot be read)")
        if let action {
            line += ", caused by #\(action.sequence) \(action.caseName)"
        } else if let cause = mutation?.cause {
            line += ", caused by #\(cause) (cannot be read)"
        }
        return line + judged
    }
}


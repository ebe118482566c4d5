import EventLogKit
import TimeTravel

/// What each mutation changed in its stream's state, worked out one entry at a time in the log's order, as
/// `tail --changes` prints entries while they come: each stream's last known state is kept, so with the reducer a
/// mutation costs one `reduce` (the first of a stream, a rebuilt state). Without it, a mutation whose state the log
/// did not record is unknown, and the next recorded state's change spans the mutations since, as `log --changes` and
/// the timeline show.
struct ChangeFollower {
    private let session: Session
    private var streams: [String: Followed] = [:]

    /// One stream's time travel, its last known state (and, right after the mutation before, as the reducer's type),
    /// and the first mutation since whose state is not known.
    private struct Followed {
        let machine: any InspectableMachine
        /// The stretches retention removed from the stream, when it was first seen.
        let gaps: [ClosedRange<UInt64>]
        var state: JSONValue?
        var typed: Any?
        var unknownSince: UInt64?
        /// The last mutation followed.
        var last: UInt64?
    }

    init(session: Session) {
        self.session = session
    }

    /// The change `mutation` made; the mutations of its stream must come in order.
    mutating func change(made mutation: LogEntry) throws -> TimelineStep {
        var followed = try streams[mutation.stream] ?? Followed(
            machine: session.machine(for: session.stream(mutation.stream)),
            gaps: session.log.gaps(stream: mutation.stream).map(\.removed))
        defer {
            followed.last = mutation.sequence
            streams[mutation.stream] = followed
        }
        if let last = followed.last {
            // Across a stretch retention removed, the state kept is not the one before this mutation: it is rebuilt.
            if let gap = followed.gaps.first(where: { $0.lowerBound > last && $0.upperBound < mutation.sequence }) {
                followed.typed = nil
                followed.unknownSince = followed.unknownSince ?? gap.lowerBound
            }
        } else {
            // The first mutation followed: the state before it, where it can be known.
            followed.state = try Self.known { try followed.machine.json(at: mutation.sequence - 1) }
        }
        guard let (typed, after) = try Self.known({ try followed.machine.state(after: mutation, from: followed.typed) }) else {
            followed.unknownSince = followed.unknownSince ?? mutation.sequence
            followed.typed = nil
            return TimelineStep(isUnknown: true)
        }
        defer { (followed.state, followed.typed, followed.unknownSince) = (after, typed, nil) }
        guard let before = followed.state else { return TimelineStep(firstKnown: after, spanStart: followed.unknownSince) }
        return TimelineStep(diff: StateDiff(from: before, to: after), spanStart: followed.unknownSince)
    }

    /// The state `read` rebuilds, or `nil` where it cannot be known: not recorded and no reducer, or removed.
    private static func known<State>(_ read: () throws -> State) throws -> State? {
        do {
            return try read()
        } catch let error as TimeTravelError {
            switch error {
            case .needsReducer, .stepTrimmed, .stepRemoved: return nil
            default: throw error
            }
        }
    }
}

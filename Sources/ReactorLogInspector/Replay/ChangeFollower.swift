import EventLogKit
import TimeTravel

/// What each mutation changed in its stream's state, worked out one entry at a time in the log's order across every
/// stream, as `tail --changes` prints entries while they come: a ``StateWalk`` a stream, begun at the first mutation
/// of it followed.
struct ChangeFollower {
    private let session: Session
    private var walks: [String: StateWalk] = [:]

    init(session: Session) {
        self.session = session
    }

    /// The change `mutation` made; the mutations of its stream must come in order.
    mutating func change(made mutation: LogEntry) throws -> TimelineStep {
        var walk = try walks[mutation.stream]
            ?? StateWalk(session.machine(for: session.stream(mutation.stream)), log: session.log, from: mutation.sequence)
        defer { walks[mutation.stream] = walk }
        return try walk.step(mutation)
    }

    /// Passes over `stretch`, entries of any stream that could not be read (``StateWalk/skip(_:)``).
    mutating func skip(_ stretch: ClosedRange<UInt64>) {
        for name in walks.keys { walks[name]?.skip(stretch) }
    }

    /// The first damage a state could not be rebuilt through, in any stream, and how many states it left unknown.
    var unshown: DamageTally {
        walks.values.reduce(into: DamageTally()) { total, walk in total.add(walk.unshown) }
    }
}

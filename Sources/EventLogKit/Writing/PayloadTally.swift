import Synchronization

/// A running count of payload bytes that any thread may add to: a stream's bytes since its last snapshot, which
/// the writer thread adds to as it encodes and the sender reads to ask whether a snapshot is due; and the writer's
/// request for a snapshot at the next mutation, whatever the policy.
final class PayloadTally: Sendable {
    private let bytes = Atomic<Int>(0)
    private let snapshotWanted = Atomic<Bool>(false)

    /// Creates a tally at zero.
    init() {}

    /// The bytes counted since the last reset.
    var value: Int { bytes.load(ordering: .relaxed) }

    /// Counts `count` more bytes.
    func add(_ count: Int) {
        bytes.add(count, ordering: .relaxed)
    }

    /// Whether the writer asked for a snapshot at the next mutation (``requestSnapshot()``).
    var wantsSnapshot: Bool { snapshotWanted.load(ordering: .relaxed) }

    /// Asks for a snapshot at the stream's next mutation, whatever its policy: a mutation whose value could not be
    /// encoded was logged without it, and the states after it cannot be rebuilt before a snapshot.
    func requestSnapshot() {
        snapshotWanted.store(true, ordering: .relaxed)
    }

    /// Starts counting again from zero, a snapshot having been queued.
    func reset() {
        bytes.store(0, ordering: .relaxed)
        snapshotWanted.store(false, ordering: .relaxed)
    }
}

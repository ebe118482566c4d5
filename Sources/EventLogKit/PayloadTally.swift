import Synchronization

/// A running count of payload bytes that any thread may add to: a stream's bytes since its last snapshot, which
/// the writer thread adds to as it encodes and the sender reads to ask whether a snapshot is due.
final class PayloadTally: Sendable {
    private let bytes = Atomic<Int>(0)

    /// Creates a tally at zero.
    init() {}

    /// The bytes counted since the last reset.
    var value: Int { bytes.load(ordering: .relaxed) }

    /// Counts `count` more bytes.
    func add(_ count: Int) {
        bytes.add(count, ordering: .relaxed)
    }

    /// Starts counting again from zero.
    func reset() {
        bytes.store(0, ordering: .relaxed)
    }
}

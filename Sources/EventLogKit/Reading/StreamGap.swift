/// Entries retention removed from the middle of a stream to keep the log within its budget: the stream replays up
/// to just before ``removed`` and again from its upper bound, where a snapshot holds the state.
public struct StreamGap: Sendable, Hashable {
    /// The stream's name.
    public let stream: String
    /// From the first removed sequence number to the one whose snapshot replay restarts from (its entry removed
    /// too). States at the steps before the upper bound, from the lower bound on, are gone.
    public let removed: ClosedRange<UInt64>

    /// A gap; the log describes them (``EventLog/gaps(stream:)``).
    public init(stream: String, removed: ClosedRange<UInt64>) {
        self.stream = stream
        self.removed = removed
    }
}

import EventLogKit

/// An action and what its effects produced.
public struct CausalTree: Sendable, Hashable {
    /// A mutation or error caused by the action, and how long after it.
    public struct Node: Sendable, Hashable {
        /// The entry.
        public let entry: LogEntry
        /// Its time minus the action's time.
        public let delay: Duration
    }

    /// The action.
    public let action: LogEntry
    /// Everything it caused, in order.
    public let caused: [Node]
}

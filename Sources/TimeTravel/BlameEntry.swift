import EventLogKit

/// A mutation that changed the value at a path.
public struct BlameEntry: Sendable, Hashable {
    /// The mutation.
    public let mutation: LogEntry
    /// The action that caused it, if any.
    public internal(set) var action: LogEntry?
    /// The value before (`nil`: absent).
    public let old: JSONValue?
    /// The value after (`nil`: absent).
    public let new: JSONValue?
    /// Without a reducer, when several mutations lie between the two recorded states that differ: the first
    /// and last of them (``mutation`` is the last). `nil` when ``mutation`` is known to be the one.
    public let range: ClosedRange<UInt64>?
    /// How many mutations ``range`` holds (1 when there is no range).
    public let mutationsInRange: Int

    init(mutation: LogEntry, action: LogEntry?, old: JSONValue?, new: JSONValue?, range: ClosedRange<UInt64>? = nil, mutationsInRange: Int = 1) {
        self.mutation = mutation
        self.action = action
        self.old = old
        self.new = new
        self.range = range
        self.mutationsInRange = mutationsInRange
    }
}

import EventLogKit

/// A mutation that changed the value at a path.
public struct BlameEntry: Sendable, Hashable {
    /// The mutation.
    public internal(set) var mutation: LogEntry
    /// The action that caused it; `nil` for none, or where its entry cannot be read (its block is damaged; the
    /// mutation's `cause` still names it).
    public internal(set) var action: LogEntry?
    /// The value before (`nil`: absent).
    public let old: JSONValue?
    /// The value after (`nil`: absent).
    public let new: JSONValue?
    /// Without a reducer, when several mutations lie between the two recorded states that differ: the first
    /// and last of them (``mutation`` is the last). `nil` when ``mutation`` is known to be the one.
    public var range: ClosedRange<UInt64>? {
        firstInRange == 0 ? nil : min(firstInRange, mutation.sequence)...mutation.sequence
    }
    /// How many mutations ``range`` holds (1 when there is no range).
    public let mutationsInRange: Int
    /// The first mutation of ``range``, 0 for none: 8 bytes where the optional range took 24 (blame can keep
    /// millions of these).
    private let firstInRange: UInt64

    /// A change; a `range` ends at `mutation`.
    init(mutation: LogEntry, action: LogEntry?, old: JSONValue?, new: JSONValue?, range: ClosedRange<UInt64>? = nil, mutationsInRange: Int = 1) {
        self.mutation = mutation
        self.action = action
        self.old = old
        self.new = new
        firstInRange = range?.lowerBound ?? 0
        self.mutationsInRange = mutationsInRange
    }
}

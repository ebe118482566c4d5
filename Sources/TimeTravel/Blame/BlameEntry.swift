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

extension BlameEntry: CustomStringConvertible {
    /// The change in one line: `#3 increaseValue: 0 → 1, by #2 increase` (`by #2` alone where the action's entry was
    /// not read). Without a reducer, where several mutations lie between the two recorded states:
    /// `one of #3…#9 (4 mutations, the states between not recorded): 0 → 4`. A value missing reads `absent`.
    public var description: String {
        let value = { (value: JSONValue?) in value.map(StateDiff.abbreviate) ?? "absent" }
        let values = "\(value(old)) → \(value(new))"
        if let range {
            return "one of #\(range.lowerBound)…#\(range.upperBound) (\(mutationsInRange) mutations, the states between not recorded): \(values)"
        }
        let by = action.map { ", by #\($0.sequence) \($0.caseName)" } ?? mutation.cause.map { ", by #\($0)" } ?? ""
        return "#\(mutation.sequence) \(mutation.caseName): \(values)\(by)"
    }
}

import EventLogKit

/// Each entry of a range with the state right after it; see ``TimeMachine/states(from:through:)``.
public struct StateIterator<P: Replayer> {
    let machine: TimeMachine<P>
    /// The state after the last entry returned (before the first, at the start).
    public private(set) var state: P.State
    /// The sequence number of the last entry returned (before the first, the step the range starts after).
    var position: UInt64
    let gaps: [ClosedRange<UInt64>]
    var entries: EntryIterator
    /// The gap (`StreamGap`) the last call stepped over, the state restarting from the snapshot
    /// after it; `nil` when the last entry followed the one before.
    public private(set) var crossedGap: ClosedRange<UInt64>?

    /// The next entry and the state right after it, or `nil` at the end.
    public mutating func next() throws -> (entry: LogEntry, state: P.State)? {
        guard let entry = try entries.next() else { return nil }
        crossedGap = gaps.first { $0.lowerBound > position && $0.upperBound < entry.sequence }
        if let gap = crossedGap { state = try machine.state(at: gap.upperBound) }
        position = entry.sequence
        state = try machine.advance(state, over: entry)
        return (entry, state)
    }
}

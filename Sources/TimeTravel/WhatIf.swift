/// The outcome of ``TimeMachine/whatIf(skipping:through:)``.
public struct WhatIf<State: Sendable>: Sendable {
    /// The state had the mutations been skipped.
    public let state: State
    /// From the recorded state to this one.
    public let diff: StateDiff
}

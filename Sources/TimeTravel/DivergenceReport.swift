import EventLogKit

/// What ``TimeMachine/divergenceReport(from:through:)`` found in a log that damage may leave partly unchecked: the
/// first divergence among the recorded states it could compare, and the stretches it could not.
public struct DivergenceReport: Sendable, Hashable {
    /// Steps whose recorded states could not be compared with replay, and the damage met.
    public struct Unchecked: Sendable, Hashable {
        /// The steps: a stretch whose entries cannot be read (from the state compared before it through the recorded
        /// state replay restarts from, or the last one unknown), or one recorded state whose snapshot cannot be read.
        public let steps: ClosedRange<UInt64>
        /// The first damage met there: the log's `corruptEntry` or `corruptSnapshot`.
        public let damage: EventLogError
    }

    /// The first recorded state replay does not reproduce, `nil` when it reproduces every one it could compare.
    public let divergence: Divergence?
    /// The stretches not checked, in order, up to ``divergence`` (or through the range's end); empty in a sound log.
    public let unchecked: [Unchecked]
}

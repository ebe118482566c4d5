/// A window of sequence numbers that retention keeps: an incident's entries, with the state each stream needs
/// to replay them. See ``EventLog/pin(_:reason:)``.
public struct LogPin: Sendable, Hashable {
    /// The first and last sequence numbers kept; the last may lie in the future (the entries after an incident).
    public let range: ClosedRange<UInt64>
    /// Why it was pinned, such as `effect error #5210` or `support ticket 4411`.
    public let reason: String
    /// When it was pinned: nanoseconds since 1970-01-01 UTC.
    public let createdAt: Int64

    /// A pin; ``EventLog/pin(_:reason:)`` makes them.
    public init(range: ClosedRange<UInt64>, reason: String, createdAt: Int64) {
        self.range = range
        self.reason = reason
        self.createdAt = createdAt
    }
}

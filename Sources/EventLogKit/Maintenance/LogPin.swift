/// A window of sequence numbers that retention keeps: an incident's entries, with the state each stream needs
/// to replay them. See ``EventLog/pin(_:reason:)``.
public struct LogPin: Sendable, Hashable {
    /// The first and last sequence numbers kept; the last may lie in the future (the entries after an incident).
    public let range: ClosedRange<UInt64>
    /// Why it was pinned, such as `effect error #5210` or `support ticket 4411`.
    public let reason: String
    /// When it was pinned: nanoseconds since 1970-01-01 UTC.
    public let createdAt: Int64
    /// Whether the pin's record is damaged on disk (its checksum, key or bounds do not match). Its reason is then
    /// empty and its time 0, and its window is every one the record may have meant: the bounds its key names, and
    /// the bounds it holds when its checksum vouches for them (every sequence number when neither reads).
    /// Retention keeps that window until the pin is removed (``EventLog/unpin(_:)``); `verify` names the damage.
    public let isDamaged: Bool

    /// A pin; ``EventLog/pin(_:reason:)`` makes them.
    public init(range: ClosedRange<UInt64>, reason: String, createdAt: Int64) {
        self.range = range
        self.reason = reason
        self.createdAt = createdAt
        isDamaged = false
    }

    /// A pin whose record is damaged, standing for `window`.
    init(damagedWindow window: ClosedRange<UInt64>) {
        (range, reason, createdAt, isDamaged) = (window, "", 0, true)
    }
}

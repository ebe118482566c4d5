/// What ``EventLog/trim(before:)`` removed and kept.
public struct TrimReport: Sendable, Hashable {
    /// What happened to one stream.
    public struct StreamResult: Sendable, Hashable {
        /// The stream's name.
        public let stream: String
        /// The snapshot the stream's remaining entries replay from, or `nil` when the stream had no
        /// snapshot before the trim point and was kept whole.
        public let replaysFrom: UInt64?
        /// How many of its entries were removed.
        public let removedEntries: Int
    }

    /// The sequence number entries were to be removed before.
    public let before: UInt64
    /// Entries removed, all streams together.
    public let removedEntries: Int
    /// Snapshots removed.
    public let removedSnapshots: Int
    /// Per stream, in order of creation.
    public let streams: [StreamResult]
}

/// What a log records about itself in its `meta` database.
public struct LogMetadata: Sendable, Hashable {
    /// The on-disk format version (see docs/FORMAT.md).
    public let formatVersion: Int
    /// When the log was created: nanoseconds since 1970-01-01 UTC.
    public let createdAt: Int64
    /// The ReactorLog version that created the log.
    public let createdBy: String
    /// The ReactorLog version that last opened it for writing.
    public let writtenBy: String
    /// The codec new payloads were written with, such as `json`.
    public let codec: String
    /// The durability it was last opened for writing with.
    public let durability: Durability?
    /// The snapshot policy it was last opened for writing with.
    public let snapshotPolicy: SnapshotPolicy?
    /// The highest sequence number when the log was last trimmed (0 when never trimmed).
    public let sequenceFloor: UInt64
}

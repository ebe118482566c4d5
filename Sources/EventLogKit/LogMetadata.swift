/// What a log records about itself in its `meta` database.
public struct LogMetadata: Sendable, Hashable {
    /// The on-disk format version (see docs/FORMAT.md).
    public let formatVersion: Int
    /// When the log was created: nanoseconds since 1970-01-01 UTC; `nil` where its record is lost to damage (read
    /// through ``EventLog/storedMetadata()``, or from a log older than the metadata's seal).
    public let createdAt: Int64?
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
    /// Why the values above came to this log unvouched: the damage that the metadata of the log an export was written
    /// from had, which an import records (`reactorlog import`), such as "the metadata's checksum does not match its keys
    /// and values, so one of them is damaged". `nil` for a log whose values are its own. ``EventLog/metadata()``
    /// refuses such a log's values, as it refuses those of a log whose seal is broken.
    public let unvouched: String?
}

extension LogMetadata {
    /// Why values an import carried over are unvouched, as what follows "its" or "the metadata's": "values were
    /// imported from an export of a log where `reason`", `reason` being the source log's damage as ``unvouched`` holds it.
    static func importedUnvouched(because reason: String) -> String {
        "values were imported from an export of a log where \(reason)"
    }
}

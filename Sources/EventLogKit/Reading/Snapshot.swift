import Foundation

/// A stream's state as recorded right after one entry.
public struct Snapshot: Sendable, Hashable {
    /// The stream's id.
    public let streamID: UInt32
    /// The state is the one right after the entry with this sequence number.
    public let sequence: UInt64
    /// When the snapshot was written: nanoseconds since 1970-01-01 UTC.
    public let timestamp: Int64
    /// The codec of ``state``.
    public let codec: CodecID
    /// The encoded state.
    public let state: Data

    /// Creates a snapshot; the log creates them when it reads them.
    public init(streamID: UInt32, sequence: UInt64, timestamp: Int64, codec: CodecID, state: Data) {
        self.streamID = streamID
        self.sequence = sequence
        self.timestamp = timestamp
        self.codec = codec
        self.state = state
    }
}

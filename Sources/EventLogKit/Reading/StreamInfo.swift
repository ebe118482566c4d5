import Foundation

/// A stream of a log: one reactor's entries, with what is needed to replay them.
public struct StreamInfo: Sendable, Hashable {
    /// The stream's id, stored in each of its entries; assigned 1, 2, ... in order of creation.
    public internal(set) var id: UInt32
    /// The stream's name, unique in the log, such as `search` or `todo#2`.
    public internal(set) var name: String
    /// The name of the reactor type that writes it, such as `GitHubSearchReactor`.
    public internal(set) var reactorType: String
    /// A fingerprint of the Action, Mutation and State types, to tell whether replay is safe.
    public internal(set) var schemaFingerprint: String
    /// When the stream was created: nanoseconds since 1970-01-01 UTC.
    public internal(set) var createdAt: Int64
    /// The codec of ``initialState``.
    public internal(set) var initialStateCodec: CodecID
    /// The state before the stream's first mutation.
    public internal(set) var initialState: Data
    /// The highest sequence number the stream had when it was last trimmed (0 when never trimmed):
    /// the stream's highest sequence number never goes below it.
    public internal(set) var sequenceFloor: UInt64

    /// Creates a descriptor; the log creates them.
    public init(
        id: UInt32, name: String, reactorType: String, schemaFingerprint: String, createdAt: Int64,
        initialStateCodec: CodecID, initialState: Data, sequenceFloor: UInt64
    ) {
        self.id = id
        self.name = name
        self.reactorType = reactorType
        self.schemaFingerprint = schemaFingerprint
        self.createdAt = createdAt
        self.initialStateCodec = initialStateCodec
        self.initialState = initialState
        self.sequenceFloor = sequenceFloor
    }

}

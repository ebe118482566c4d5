import Foundation

/// A recorded state from which a stream's later states are rebuilt by reducing the mutations after it.
public struct RecoveryPoint: Sendable, Hashable {
    /// The state is the one right after this sequence number; 0 for the stream's initial state.
    public let sequence: UInt64
    /// The codec of ``state``.
    public let codec: CodecID
    /// The encoded state.
    public let state: Data

    /// Whether this is the stream's initial state rather than a snapshot.
    public var isInitialState: Bool { sequence == 0 }

    /// Creates a recovery point.
    public init(sequence: UInt64, codec: CodecID, state: Data) {
        self.sequence = sequence
        self.codec = codec
        self.state = state
    }
}

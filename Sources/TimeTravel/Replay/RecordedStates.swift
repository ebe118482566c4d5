import EventLogKit
import Foundation

/// Time travel without the reducer: states are JSON, available exactly where the log recorded them
/// (the initial state and snapshots). With the `everyMutation` snapshot policy, that is every step.
public struct RecordedStates: Replayer {
    /// Creates the replayer.
    public init() {}

    /// Always `false`.
    public var canReduce: Bool { false }

    /// Reads a JSON or binary state as JSON, whatever types wrote it.
    public func decodeState(_ data: Data, codec: CodecID, recordedWith schema: String, log: EventLog) throws -> JSONValue {
        guard let state = try JSONValue(payload: data, codec: codec) else {
            throw TimeTravelError.decoding("A recorded state uses the \(codec) codec, which only the types that wrote it can read: replay it with them.")
        }
        return state
    }

    /// Never called: ``canReduce`` is `false`.
    public func reduce(_ state: JSONValue, _ mutation: LogEntry, recordedWith schema: String, log: EventLog) throws -> JSONValue {
        throw TimeTravelError.needsReducer(step: mutation.sequence, stream: mutation.stream, nearest: [])
    }

    /// The state itself.
    public func json(_ state: JSONValue) throws -> JSONValue { state }

    /// Checks that a JSON or binary payload reads as JSON.
    public func checkDecodes(_ entry: LogEntry, recordedWith schema: String, log: EventLog) throws {
        _ = try JSONValue(payload: entry.payload, codec: entry.codec)
    }
}

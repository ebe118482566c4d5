import EventLogKit
import Foundation

/// How time travel turns recorded data into states: decoding recorded states, and (when it can) reducing
/// mutations, the way the reactor does.
///
/// Each payload comes with the schema fingerprint of the types that wrote it (`SchemaHistory`), so
/// that a stream resumed after a schema change is read through migrations where its older payloads need them.
public protocol Replayer: Sendable {
    /// The state type.
    associatedtype State: Sendable

    /// Whether ``reduce(_:_:recordedWith:log:)`` works; without it, states exist only where the log recorded them.
    var canReduce: Bool { get }

    /// Decodes a recorded state (a stream's initial state or a snapshot) written by types of fingerprint `schema`.
    func decodeState(_ data: Data, codec: CodecID, recordedWith schema: String, log: EventLog) throws -> State

    /// The state after one mutation entry, written by types of fingerprint `schema`.
    func reduce(_ state: State, _ mutation: LogEntry, recordedWith schema: String, log: EventLog) throws -> State

    /// The state's JSON form, for diffs, paths and bisect commands.
    func json(_ state: State) throws -> JSONValue

    /// Whether an entry's payload, written by types of fingerprint `schema`, decodes with the current types;
    /// throws the decoding error otherwise.
    func checkDecodes(_ entry: LogEntry, recordedWith schema: String, log: EventLog) throws
}

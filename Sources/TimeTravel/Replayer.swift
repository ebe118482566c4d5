import EventLogKit
import Foundation

/// How time travel turns recorded data into states: decoding recorded states, and (when it can) reducing
/// mutations, the way the reactor does.
public protocol Replayer: Sendable {
    /// The state type.
    associatedtype State: Sendable

    /// Whether ``reduce(_:_:log:)`` works; without it, states exist only where the log recorded them.
    var canReduce: Bool { get }

    /// Decodes a recorded state (a stream's initial state or a snapshot).
    func decodeState(_ data: Data, codec: CodecID, log: EventLog) throws -> State

    /// The state after one mutation entry.
    func reduce(_ state: State, _ mutation: LogEntry, log: EventLog) throws -> State

    /// The state's JSON form, for diffs, paths and bisect commands.
    func json(_ state: State) throws -> JSONValue

    /// Whether an entry's payload decodes with the current types; throws the decoding error otherwise.
    func checkDecodes(_ entry: LogEntry, log: EventLog) throws
}

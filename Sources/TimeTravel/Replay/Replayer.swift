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

    /// The state after one mutation read in place (`EntryView`), valid only during the call: the path replay
    /// takes, so that a replayer that can decode in place copies nothing. By default, a copy goes to
    /// ``reduce(_:_:recordedWith:log:)``.
    func reduce(_ state: State, view mutation: EntryView, recordedWith schema: String, log: EventLog) throws -> State

    /// The state's JSON form, for diffs, paths and bisect commands.
    func json(_ state: State) throws -> JSONValue

    /// What the state's JSON form has at `path` (`nil`: nothing), for blame, which asks at every step. By
    /// default, ``json(_:)`` subscripted.
    func json(_ state: State, at path: StatePath) throws -> JSONValue?

    /// A binary payload (`CodecID.binary`) whose JSON form has at `path` what the state's has, cheap to make and
    /// compare, for blame, which asks at every step: equal bytes mean an equal value there, and only unequal ones
    /// are rendered as JSON to compare. `nil`, the default: blame compares ``json(_:at:)`` at every step.
    func pathEncoding(_ state: State, at path: StatePath) throws -> Data?

    /// Whether an entry's payload, written by types of fingerprint `schema`, decodes with the current types;
    /// throws the decoding error otherwise.
    func checkDecodes(_ entry: LogEntry, recordedWith schema: String, log: EventLog) throws
}

extension Replayer {
    /// ``json(_:)`` of the state, subscripted by `path`.
    public func json(_ state: State, at path: StatePath) throws -> JSONValue? {
        try json(state)[path]
    }

    /// `nil`: blame compares ``json(_:at:)`` at every step.
    public func pathEncoding(_ state: State, at path: StatePath) throws -> Data? { nil }

    /// Copies the view into a `LogEntry` for ``reduce(_:_:recordedWith:log:)``.
    public func reduce(_ state: State, view mutation: EntryView, recordedWith schema: String, log: EventLog) throws -> State {
        try reduce(state, LogEntry(copying: mutation), recordedWith: schema, log: log)
    }

    /// ``reduce(_:view:recordedWith:log:)`` into `state`: how a replay loop takes each mutation. The loop's state is a
    /// variable its closure captures, and passed from there to the call it is assigned from, it was copied first and
    /// the copy destroyed after: two calls of the state's value witnesses a mutation in this generic code. Through
    /// `inout` the state goes to the call where it lies.
    func replay(_ mutation: EntryView, into state: inout State, recordedWith schema: String, log: EventLog) throws {
        state = try reduce(state, view: mutation, recordedWith: schema, log: log)
    }
}

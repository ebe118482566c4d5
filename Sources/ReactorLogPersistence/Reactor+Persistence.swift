import EventLogKit
import Foundation
import ReactorLog

extension Reactor where Action: Codable, Mutation: Codable, State: Codable {
    /// Records this reactor in stream `name` of `log`: every action (after `transform(action:)`, and after
    /// `redact`), every mutation (after `transform(mutation:)`, with the sequence number of the action that
    /// caused it) and every effect error, in exactly the order `reduce` applied them, plus snapshots of the
    /// state as the log's snapshot policy says and a last one when the reactor is released.
    ///
    /// A mutation is appended before the state it produces is published (write-ahead); in the log's
    /// default `grouped` durability, dispatch never waits for the disk.
    ///
    /// When the stream exists, the reactor **resumes** it: its state is rebuilt from the latest snapshot and
    /// the mutations after it, and new entries continue the sequence. Attach before the reactor's first use.
    ///
    /// - Parameters:
    ///   - log: the log to record into.
    ///   - name: the stream's name in the log; one reactor per stream.
    ///   - schemaFingerprint: identifies the Action, Mutation and State types, to tell later whether replay
    ///     is safe; defaults to their type names.
    ///   - redact: rewrites an action before it is logged, to mask secrets (the reactor still gets the
    ///     original). Mutations are logged as they are, because replay needs them.
    public func attach(
        to log: EventLog, stream name: String, schemaFingerprint: String? = nil,
        redactingActions redact: (@Sendable (Action) -> Action)? = nil
    ) throws(EventLogError) {
        guard recorder == nil, !runtime.hasStarted else {
            throw .invalidArgument("Attach \(Self.self) to a log before its first use; it has already started.")
        }
        let fingerprint = schemaFingerprint ?? Self.defaultSchemaFingerprint
        let stream = try log.openStream(
            named: name, reactorType: String(reflecting: Self.self), schemaFingerprint: fingerprint,
            initialState: initialState)
        let state = stream.wasResumed ? try replay(stream) : nil
        do {
            try record(with: LogRecorder<Action, Mutation, State>(stream: stream, redactingActions: redact), resumingFrom: state)
        } catch {
            try? stream.close(finalState: nil)
            throw .invalidArgument("Attach \(Self.self) to a log before its first use; it has already started.")
        }
    }

    /// The stream's latest state: its recovery point, then every mutation after it through `reduce`.
    private func replay(_ stream: LogStream) throws(EventLogError) -> State {
        let point = try stream.recoveryPoint()
        var state = try stream.log.decode(State.self, from: point.state, codec: point.codec)
        var entries = stream.entries(after: point.sequence)
        while let entry = try entries.next() {
            guard entry.kind == .mutation else { continue }
            state = reduce(state: state, mutation: try stream.log.decode(Mutation.self, from: entry))
        }
        return state
    }

    /// The fingerprint `attach` records when none is given: the names of the Action, Mutation and State
    /// types. Pass your own (a version string you bump) to track changes inside the types too.
    public static var defaultSchemaFingerprint: String {
        "Action=\(String(reflecting: Action.self));Mutation=\(String(reflecting: Mutation.self));State=\(String(reflecting: State.self))"
    }

    /// The first error writing to the log, if one happened; the reactor keeps working in memory after it.
    public var logFailure: EventLogError? {
        (recorder as? LogRecorder<Action, Mutation, State>)?.failure
    }
}

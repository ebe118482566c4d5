import EventLogKit
import Foundation

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
    ///   - schemaFingerprint: identifies the Action, Mutation and State types, to tell later whether replay
    ///     is safe; defaults to their type names.
    ///   - redact: rewrites an action before it is logged, to mask secrets (the reactor still gets the
    ///     original). Mutations are logged as they are, because replay needs them.
    public func attach(
        to log: EventLog, stream name: String, schemaFingerprint: String? = nil,
        redactingActions redact: (@Sendable (Action) -> Action)? = nil
    ) throws(EventLogError) {
        guard !runtime.hasStarted else {
            throw .invalidArgument("Attach \(Self.self) to a log before its first use; it has already started.")
        }
        let fingerprint = schemaFingerprint ?? Self.defaultSchemaFingerprint
        let stream = try log.openStream(
            named: name, reactorType: String(reflecting: Self.self), schemaFingerprint: fingerprint,
            initialState: initialState)
        var state = initialState
        if stream.wasResumed {
            state = try replay(stream)
        }
        let actionNames = CaseNamer(), mutationNames = CaseNamer()
        runtime.install(Persistence<Self>(
            logAction: { action throws(EventLogError) in
                let logged = redact?(action) ?? action
                let payload = try log.encode(logged)
                return try stream.append(EntryDraft(
                    kind: .action, caseName: actionNames.name(logged, json: payload), payload: payload, codec: log.configuration.codec.id))
            },
            logMutation: { mutation, cause throws(EventLogError) in
                let payload = try log.encode(mutation)
                return try stream.append(EntryDraft(
                    kind: .mutation, caseName: mutationNames.name(mutation, json: payload), payload: payload,
                    codec: log.configuration.codec.id, cause: cause))
            },
            logError: { type, message, cause throws(EventLogError) in
                try stream.append(.effectError, EffectErrorRecord(type: type, message: message), caseName: type, cause: cause)
            },
            snapshotIfDue: { state, sequence throws(EventLogError) in
                if stream.isSnapshotDue { try stream.writeSnapshot(state, at: sequence) }
            },
            close: { state in
                try? stream.close(finalState: try? log.encode(state))
            }),
            resumedState: state)
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
        runtime.core.withLock { $0.persistenceFailure }
    }
}

extension ReactorRuntime {
    func install(_ persistence: Persistence<R>, resumedState: R.State) {
        core.withLock { core in
            core.persistence = persistence
            core.resumedState = resumedState
        }
    }

    /// Runs a log write; on failure, remembers the first error and returns `nil`: the reactor keeps working.
    @discardableResult
    func logged<T>(_ write: () throws(EventLogError) -> T) -> T? {
        do {
            return try write()
        } catch {
            core.withLock { core in
                if core.persistenceFailure == nil { core.persistenceFailure = error }
            }
            return nil
        }
    }
}

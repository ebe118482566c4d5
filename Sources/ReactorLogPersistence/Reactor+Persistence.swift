import EventLogKit
import Foundation
import ReactorLog

extension Reactor where Action: Codable, Mutation: Codable, State: Codable {
    /// Records this reactor in stream `name` of `log`: every action (after `transform(action:)`, and after
    /// `redact`), every mutation (after `transform(mutation:)`, with the sequence number of the action that
    /// caused it) and every effect error, in exactly the order `reduce` applied them, plus snapshots of the
    /// state as the log's snapshot policy says, at `EventLog.checkpoint()`, and a last one when the stream closes: when
    /// the reactor is released, or when the log closes first (`EventLog.close()`; after it, the reactor works on in
    /// memory and records nothing). Neither waits for dispatch: a checkpoint that finds the reactor dispatching (on
    /// another thread, or from inside its own dispatch) is recorded when that dispatch gets to it, after the work sent
    /// before it, and committed with the writes that follow; a close passes a busy reactor by.
    ///
    /// A mutation is appended before the state it produces is published (write-ahead); in the log's
    /// default `grouped` durability, dispatch never waits for the disk.
    ///
    /// When the stream exists, the reactor **resumes** it: its state is rebuilt from the latest snapshot and
    /// the mutations after it, and new entries continue the sequence. Attach before the reactor's first use.
    ///
    /// **Schema changes.** When the stream was recorded with another schema fingerprint, `attach` decodes what
    /// resuming and replaying need (the initial state, the latest snapshot, the first and last mutation of every
    /// case written by each earlier version) with the current types, through `migrations` where they have a step
    /// for the version that wrote it. If all of it decodes, the stream resumes under the new fingerprint, and the
    /// log remembers which types wrote what came before (`SchemaHistory`); if not, by default the
    /// old stream is kept as `NAME@N` and a new generation starts (``SchemaChangePolicy``). Either way the
    /// returned ``SchemaChange`` says what happened. Nothing is ever appended to a stream the current types
    /// cannot replay.
    ///
    /// - Parameters:
    ///   - log: the log to record into.
    ///   - name: the stream's name in the log; one reactor per stream.
    ///   - schemaFingerprint: identifies the Action, Mutation and State types, to tell later whether replay
    ///     is safe; defaults to their structure (``defaultSchemaFingerprint``).
    ///   - migrations: how to read what earlier versions of the types recorded (``SchemaMigrations``).
    ///   - policy: what to do when the stream was recorded with types that no longer decode it, or cannot be
    ///     resumed because what it recorded after its latest snapshot is damaged.
    ///   - redact: rewrites an action before it is logged, to mask secrets (the reactor still gets the
    ///     original). Mutations are logged as they are, because replay needs them.
    /// - Returns: what was done about a schema change or a stream that could not be resumed, or `nil` when the
    ///   stream is new or resumed with a matching fingerprint.
    @discardableResult
    public func attach(
        to log: EventLog, stream name: String, schemaFingerprint: String? = nil,
        migrations: SchemaMigrations<Self> = SchemaMigrations(),
        onSchemaChange policy: SchemaChangePolicy = .startNewGeneration,
        redactingActions redact: (@Sendable (Action) -> Action)? = nil
    ) throws(EventLogError) -> SchemaChange? {
        guard recorder == nil, !runtime.hasStarted else {
            throw .invalidArgument("Attach \(Self.self) to a log before its first use; it has already started.")
        }
        let fingerprint = schemaFingerprint ?? Self.defaultSchemaFingerprint
        var change: SchemaChange?
        let stream: LogStream, state: State?
        do {
            change = try reconcileSchema(log, stream: name, fingerprint: fingerprint, migrations: migrations, policy: policy)
            (stream, state) = try open(log, stream: name, fingerprint: fingerprint, migrations: migrations)
        } catch where policy == .startNewGeneration && Self.preventsResuming(error) {
            // What the stream recorded after its latest snapshot cannot be read back (damage), or not with these
            // types: it is kept as it is, under another name, and the app goes on recording from its initial state.
            guard let existing = try log.stream(named: name) else { throw error }
            let retired = try log.retireStream(named: name)
            change = SchemaChange(
                stream: name, recordedFingerprint: existing.schemaFingerprint, currentFingerprint: fingerprint,
                problem: "could not be resumed: \(error)", retiredAs: retired, migrated: false)
            (stream, state) = try open(log, stream: name, fingerprint: fingerprint, migrations: migrations)
        }
        let recorder = LogRecorder<Action, Mutation, State>(stream: stream, redactingActions: redact)
        do {
            try record(with: recorder, resumingFrom: state)
        } catch {
            try? stream.close(finalState: nil)
            throw .invalidArgument("Attach \(Self.self) to a log before its first use; it has already started.")
        }
        // The log's checkpoint records the state, and a log closed before the reactor is released still keeps it: both
        // are queued while dispatch is held, so that no mutation comes between the state and the entry it is recorded
        // at. A checkpoint that finds the reactor busy is recorded when its dispatch gets to it; a close cannot wait for
        // that, since the log takes no appends once it returns. Held weakly: the runtime owns the recorder, and the log
        // must not keep either alive.
        stream.onLogRequest { [weak runtime = self.runtime, weak recorder] request in
            guard let runtime, let recorder else { return }
            switch request {
            case .checkpoint: runtime.withReducedState { recorder.checkpoint($0) }
            case .close: runtime.withReducedStateIfIdle { recorder.close(finalState: $0) }
            }
        }
        return change
    }

    /// Opens stream `name` and, when it resumes, replays its latest state; a stream that fails to replay is closed
    /// again.
    private func open(
        _ log: EventLog, stream name: String, fingerprint: String, migrations: SchemaMigrations<Self>
    ) throws(EventLogError) -> (LogStream, State?) {
        let stream = try log.openStream(
            named: name, reactorType: String(reflecting: Self.self), schemaFingerprint: fingerprint,
            initialState: initialState)
        guard stream.wasResumed else { return (stream, nil) }
        do {
            return (stream, try replay(stream, migrations: migrations))
        } catch {
            try? stream.close(finalState: nil)
            throw error
        }
    }

    /// Whether `error`, from opening or replaying a stream, means that its state cannot be rebuilt: damage in what
    /// it recorded, or a value that no longer decodes. An error of the file or the disk is not one.
    private static func preventsResuming(_ error: EventLogError) -> Bool {
        switch error {
        case .corruptEntry, .corruptSnapshot, .corruptIndex, .codec: true
        default: false
        }
    }

    /// Compares stream `name`'s recorded fingerprint with `fingerprint` and, when they differ, updates it (all
    /// still decodes, through `migrations` where they apply), retires the stream for a new generation, or
    /// throws, as `policy` says.
    private func reconcileSchema(
        _ log: EventLog, stream name: String, fingerprint: String, migrations: SchemaMigrations<Self>, policy: SchemaChangePolicy
    ) throws(EventLogError) -> SchemaChange? {
        guard let existing = try log.stream(named: name), existing.schemaFingerprint != fingerprint else { return nil }
        // Entries this process appended may still be queued: the check must see every one.
        try log.flush()
        guard let problem = try SchemaCompatibility.firstUndecodable(in: log, stream: existing, migrations: migrations) else {
            try log.updateSchemaFingerprint(fingerprint, stream: name)
            return SchemaChange(
                stream: name, recordedFingerprint: existing.schemaFingerprint, currentFingerprint: fingerprint, problem: nil, retiredAs: nil,
                migrated: migrations.sourceFingerprints.contains(existing.schemaFingerprint))
        }
        guard policy == .startNewGeneration else {
            throw .incompatibleSchema(stream: name, recorded: existing.schemaFingerprint, current: fingerprint, problem: problem)
        }
        let retired = try log.retireStream(named: name)
        return SchemaChange(
            stream: name, recordedFingerprint: existing.schemaFingerprint, currentFingerprint: fingerprint, problem: problem, retiredAs: retired,
            migrated: false)
    }

    /// The stream's latest state: its recovery point, then every mutation after it through `reduce`, each
    /// decoded as the types that wrote it say (`SchemaHistory`) through `migrations`.
    private func replay(_ stream: LogStream, migrations: SchemaMigrations<Self>) throws(EventLogError) -> State {
        let log = stream.log
        let history = try log.schemaHistory(stream: stream.info.name)
        let point = try stream.recoveryPoint()
        do {
            var state = try migrations.state(point.state, codec: point.codec, recordedWith: history.fingerprint(at: point.sequence), log: log)
            // Mutations alone, read through the stream's index: damage confined to other entries does not stop a
            // resume, since only mutations make the state.
            var entries = log.entries(EntryQuery(from: point.sequence + 1, stream: stream.info.name, kinds: [.mutation]))
            while let entry = try entries.next() {
                if let missing = entry.missingValue {
                    throw EventLogError.codec(
                        "Mutation #\(entry.sequence) is in the log without its value (\(missing)), and no snapshot after it holds the state.")
                }
                let mutation: Mutation
                do {
                    mutation = try migrations.mutation(entry, recordedWith: history.fingerprint(at: entry.sequence), log: log)
                } catch let error as EventLogError {
                    throw error
                } catch {
                    throw EventLogError.codec("Entry #\(entry.sequence) (\(entry.kind) \(entry.caseName)): \(error)")
                }
                state = reduce(state: state, mutation: mutation)
            }
            return state
        } catch let error as EventLogError {
            throw error
        } catch {
            throw .codec("The state at #\(point.sequence) no longer decodes: \(error)")
        }
    }

    /// The fingerprint `attach` records when none is given: derived from the structure of the Action, Mutation
    /// and State types (``SchemaFingerprint/of(action:mutation:state:)``), so it changes when a field or case is
    /// added, removed or renamed.
    public static var defaultSchemaFingerprint: String {
        SchemaFingerprint.of(action: Action.self, mutation: Mutation.self, state: State.self)
    }

    /// The first error writing to the log, if one happened; the reactor keeps working in memory after it. It stays
    /// once the log writes again after a failure (a disk that got room): `log.writeFailure` says whether it still
    /// fails, and the log marks in the stream what it could not record.
    public var logFailure: EventLogError? {
        (recorder as? LogRecorder<Action, Mutation, State>)?.failure
    }
}

import EventLogKit
import Foundation
import ReactorLog
import ReactorLogPersistence

/// Time travel with a reactor's own `reduce`: any step can be rebuilt from the nearest snapshot.
///
/// ```swift
/// let machine = try TimeMachine(log: log, stream: "search", replayer: ReactorReplayer { GitHubSearchReactor() })
/// let state = try machine.state(at: 1234)          // a GitHubSearchReactor.State
/// ```
///
/// The factory makes one reactor, whose `reduce` is called; its runtime never starts, so no effect runs.
public struct ReactorReplayer<R: Reactor>: Replayer where R.Action: Codable, R.Mutation: Codable, R.State: Codable {
    private let reactor: R
    private let migrations: SchemaMigrations<R>
    /// The binary encoding of `R.State`, resolved once (through its hand-written conformance, if it has one): blame
    /// encodes the path's part of the state at every step.
    private let binaryState: PayloadEncoder<R.State>

    /// A replayer using a reactor made by `makeReactor`, reading what earlier versions of its types recorded
    /// through `migrations` (the ones the app passes to `attach`).
    public init(migrations: SchemaMigrations<R> = SchemaMigrations(), _ makeReactor: () -> R) {
        self.reactor = makeReactor()
        self.migrations = migrations
        binaryState = BinaryLogCodec.shared.payloadEncoder(for: R.State.self)
    }

    /// Always `true`.
    public var canReduce: Bool { true }

    /// Decodes an `R.State`, through the migrations from `schema`. A state that no longer decodes with `R.State`
    /// (or that a migration step refuses) throws ``TimeTravelError/schemaMismatch(what:detail:)``.
    public func decodeState(_ data: Data, codec: CodecID, recordedWith schema: String, log: EventLog) throws -> R.State {
        try mismatch("A recorded state") {
            try migrations.state(data, codec: codec, recordedWith: schema, log: log)
        }
    }

    /// Decodes the mutation, through the migrations from `schema`, and reduces it; a mutation that no longer
    /// decodes with `R.Mutation` throws ``TimeTravelError/schemaMismatch(what:detail:)``.
    public func reduce(_ state: R.State, _ mutation: LogEntry, recordedWith schema: String, log: EventLog) throws -> R.State {
        try requireValue(mutation.lacksValue, of: mutation.sequence, in: mutation.stream, missing: mutation.missingValue)
        let decoded = try mismatch("Mutation #\(mutation.sequence) (\(mutation.caseName))") {
            try migrations.mutation(mutation, recordedWith: schema, log: log)
        }
        return reactor.reduce(state: state, mutation: decoded)
    }

    /// ``reduce(_:_:recordedWith:log:)`` for a mutation read in place: decoded where it lies.
    public func reduce(_ state: R.State, view mutation: EntryView, recordedWith schema: String, log: EventLog) throws -> R.State {
        try requireValue(mutation.lacksValue, of: mutation.sequence, in: mutation.stream, missing: mutation.missingValue)
        let decoded = try mismatch("Mutation #\(mutation.sequence) (\(String(decoding: mutation.caseName, as: UTF8.self)))") {
            try migrations.mutation(mutation, recordedWith: schema, log: log)
        }
        return reactor.reduce(state: state, mutation: decoded)
    }

    /// Throws for a mutation the log holds without its value (``LogEntry/lacksValue``), which replay cannot go
    /// through; the time machine names the step asked for and the snapshot after it.
    private func requireValue(
        _ lacksValue: Bool, of sequence: UInt64, in stream: @autoclosure () -> String, missing: @autoclosure () -> MissingValue?
    ) throws {
        guard lacksValue else { return }
        throw TimeTravelError.valueNotRecorded(step: sequence, stream: stream(), mutation: sequence, missing: missing() ?? .unencodable, readableFrom: nil)
    }

    /// The state's JSON form.
    public func json(_ state: R.State) throws -> JSONValue {
        try JSONValue(encoding: state)
    }

    /// What the state's JSON form has at `path`, encoding only what lies on the path (`BinaryLogCodec`'s
    /// `encode(_:keepingOnly:)`): blame's cost per step follows the path, not the size of the state.
    public func json(_ state: R.State, at path: StatePath) throws -> JSONValue? {
        // Read where the encoder wrote it, with no `Data` made in between.
        try kept(state, on: path).withUnsafeBytes { try JSONValue(binary: $0, at: path) }
    }

    /// The binary encoding of what lies on `path` (`BinaryLogCodec`'s `encode(_:keepingOnly:)`): the same value
    /// there encodes to the same bytes, so blame skips every step that left it alone with one comparison.
    public func pathEncoding(_ state: R.State, at path: StatePath) throws -> Data? {
        try kept(state, on: path).withUnsafeBytes { Data($0) }
    }

    /// What of `state` lies on `path`, in the binary form.
    private func kept(_ state: R.State, on path: StatePath) throws -> ByteBuffer {
        var payload = ByteBuffer(capacity: 64)
        _ = try binaryState(state, keepingOnly: path.binarySteps, into: &payload)
        return payload
    }

    /// Decodes an action as `R.Action` and a mutation as `R.Mutation` (through the migrations from `schema`),
    /// throwing Swift's `DecodingError`. Actions are not migrated: they are not replayed.
    public func checkDecodes(_ entry: LogEntry, recordedWith schema: String, log: EventLog) throws {
        switch entry.kind {
        case .action: _ = try entry.codec.decode(R.Action.self, from: entry.payload)
        case .mutation: _ = try migrations.mutation(entry, recordedWith: schema, log: log)
        default: break
        }
    }

    /// `decode()`, with a decoding error of another shape than the data's (not damage) or a failed migration step
    /// reported as a schema mismatch of `what`.
    /// `what` is built only when it is needed: replay calls this once per mutation.
    private func mismatch<T>(_ what: @autoclosure () -> String, _ decode: () throws -> T) throws -> T {
        do {
            return try decode()
        } catch let error as DecodingError where !error.isInvalidJSON {
            throw TimeTravelError.schemaMismatch(what: what(), detail: error.summary)
        } catch let error as MigrationFailure {
            throw TimeTravelError.schemaMismatch(what: what(), detail: error.description)
        }
    }
}

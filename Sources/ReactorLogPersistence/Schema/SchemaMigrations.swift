import EventLogKit
import Foundation
import ReactorLog

/// How a reactor reads what its earlier versions recorded: upcasters, in the manner of event stores. Each step
/// names an earlier version (``ReactorSchema``) and converts its mutations and states to the next version's, or to
/// the reactor's own; steps chain, so a log written by release 1 is read by release 3 through 1 → 2 → 3.
///
/// ```swift
/// let migrations = SchemaMigrations<CartReactor>()
///     .from(CartV1.self, to: CartV2.self,
///           mutation: { old in ... },            // CartV1.Mutation → CartV2.Mutation
///           state: { old in ... })
///     .from(CartV2.self,
///           mutation: { old in ... },            // CartV2.Mutation → CartReactor.Mutation
///           state: { old in ... })
/// try cart.attach(to: log, stream: "cart", migrations: migrations)
/// ```
///
/// The log keeps every payload as it was written, and remembers which types wrote which numbers
/// (`SchemaHistory`): a payload is migrated whenever it is read, by `attach` when it resumes the
/// stream, and by time travel (`ReactorReplayer(migrations:)`) and the inspector that registers the reactor with
/// them. Actions are not replayed, so they are not migrated: listings show them as recorded.
public struct SchemaMigrations<R: Reactor>: Sendable where R.Mutation: Codable, R.State: Codable {
    private let steps: [String: MigrationStep]
    /// The decoding of binary mutations as `R.Mutation`, resolved once (through its hand-written conformance, if it
    /// has one), where `CodecID.decode` asks the runtime about the conformance for every mutation.
    private let binaryMutation: @Sendable (UnsafeRawBufferPointer) throws -> R.Mutation

    /// No migrations: payloads of earlier types are decoded with the current ones, as they are.
    public init() {
        self.init(steps: [:])
    }

    private init(steps: [String: MigrationStep]) {
        self.steps = steps
        binaryMutation = BinaryLogCodec.shared.payloadDecoder(for: R.Mutation.self)
    }

    /// The fingerprints of the versions these migrations have a step from.
    public var sourceFingerprints: Set<String> { Set(steps.keys) }

    /// Adds the last step: from version `old` to the reactor's own types.
    public func from<Old: ReactorSchema>(
        _ old: Old.Type,
        mutation: @escaping @Sendable (Old.Mutation) throws -> R.Mutation,
        state: @escaping @Sendable (Old.State) throws -> R.State
    ) -> SchemaMigrations {
        adding(MigrationStep(from: Old.schemaFingerprint, to: nil, mutation: Self.converting(mutation), state: Self.converting(state)))
    }

    /// Adds a step from version `old` to version `new`, which a later step converts further.
    public func from<Old: ReactorSchema, New: ReactorSchema>(
        _ old: Old.Type, to new: New.Type,
        mutation: @escaping @Sendable (Old.Mutation) throws -> New.Mutation,
        state: @escaping @Sendable (Old.State) throws -> New.State
    ) -> SchemaMigrations {
        adding(MigrationStep(from: Old.schemaFingerprint, to: New.schemaFingerprint, mutation: Self.converting(mutation), state: Self.converting(state)))
    }

    private func adding(_ step: MigrationStep) -> SchemaMigrations {
        var steps = steps
        steps[step.from] = step
        return SchemaMigrations(steps: steps)
    }

    /// A mutation entry as `R.Mutation`: decoded directly when it was written by types with no step, else through
    /// the chain of steps from `fingerprint` (the one its number has in the stream's `SchemaHistory`).
    ///
    /// A payload of another shape throws Swift's `DecodingError`; a step that throws, ``MigrationFailure``.
    public func mutation(_ entry: LogEntry, recordedWith fingerprint: String, log: EventLog) throws -> R.Mutation {
        try decode(R.Mutation.self, entry.payload, codec: entry.codec, from: fingerprint, log: log, mutation: true)
    }

    /// A mutation read in place (`EntryView`) as `R.Mutation`, as `mutation(_:recordedWith:log:)` does: decoded
    /// where it lies when no step applies, so replay copies nothing.
    public func mutation(_ view: EntryView, recordedWith fingerprint: String, log: EventLog) throws -> R.Mutation {
        guard steps.isEmpty || (steps[fingerprint] == nil && fingerprint != SchemaHistory.unknownFingerprint), view.codec.isReadableAsJSON else {
            return try decode(R.Mutation.self, Data(view.payload), codec: view.codec, from: fingerprint, log: log, mutation: true)
        }
        if view.codec == .binary { return try binaryMutation(view.payload) }
        return try view.codec.decode(R.Mutation.self, from: view.payload)
    }

    /// A recorded state (an initial state or a snapshot) as `R.State`, as `mutation(_:recordedWith:log:)` does.
    public func state(_ data: Data, codec: CodecID, recordedWith fingerprint: String, log: EventLog) throws -> R.State {
        try decode(R.State.self, data, codec: codec, from: fingerprint, log: log, mutation: false)
    }

    /// `Value` from `data` written by types of `fingerprint`, through each step's mutation (or state) conversion.
    /// (A key path would select the conversion more tersely, but instantiating one in this generic context costs
    /// more than decoding a small payload.)
    private func decode<Value: Decodable>(
        _ type: Value.Type, _ data: Data, codec: CodecID, from fingerprint: String, log: EventLog, mutation: Bool
    ) throws -> Value {
        guard !steps.isEmpty else { return try Self.decode(type, data, codec: codec, log: log) }
        guard fingerprint != SchemaHistory.unknownFingerprint else {
            throw MigrationFailure(from: "an unknown version", reason: "the stream's schema era record naming it is damaged, so which steps apply is not known")
        }
        var (data, codec, fingerprint, taken) = (data, codec, fingerprint, 0)
        while let step = steps[fingerprint] {
            taken += 1
            guard taken <= steps.count else {
                throw MigrationFailure(from: fingerprint, reason: "the steps lead back to a version already migrated from")
            }
            data = try (mutation ? step.mutation : step.state)(data, codec, log)
            codec = .json
            guard let next = step.to else { break }
            fingerprint = next
        }
        return try Self.decode(type, data, codec: codec, log: log)
    }

    /// `Value` from `data`: JSON and binary with their own decoders, so that a mismatch is Swift's `DecodingError`
    /// naming the field; another codec through the log.
    static func decode<Value: Decodable>(_ type: Value.Type, _ data: Data, codec: CodecID, log: EventLog) throws -> Value {
        codec.isReadableAsJSON ? try codec.decode(type, from: data) : try log.decode(type, from: data, codec: codec)
    }

    /// A step's conversion as JSON to JSON: decode `Old`, convert, encode.
    private static func converting<Old: Decodable & Sendable, New: Encodable & Sendable>(
        _ convert: @escaping @Sendable (Old) throws -> New
    ) -> @Sendable (Data, CodecID, EventLog) throws -> Data {
        { data, codec, log in
            let old = try decode(Old.self, data, codec: codec, log: log)
            let new: New
            do {
                new = try convert(old)
            } catch {
                throw MigrationFailure(from: "\(Old.self)", reason: "the step threw \(error)")
            }
            return try JSONEncoder().encode(new)
        }
    }
}

/// One migration step: from payloads written by types of fingerprint `from`, to those of fingerprint `to` (`nil`:
/// the reactor's own), as JSON. It is not nested in the generic `SchemaMigrations`, whose every use of a nested type
/// would look up that type's metadata: replay asks for a step once a mutation.
struct MigrationStep: Sendable {
    let from: String
    let to: String?
    let mutation: @Sendable (Data, CodecID, EventLog) throws -> Data
    let state: @Sendable (Data, CodecID, EventLog) throws -> Data
}

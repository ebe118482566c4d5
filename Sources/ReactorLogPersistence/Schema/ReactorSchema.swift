/// An earlier version of a reactor's recorded types, kept in the app so that the entries it wrote can be migrated
/// to the current types (``SchemaMigrations``).
///
/// ```swift
/// /// Release 1's types: a line was a plain string.
/// enum CartV1: ReactorSchema {
///     typealias Action = CartReactor.Action      // unchanged
///     enum Mutation: Codable, Sendable { case addLine(String), clear }
///     struct State: Codable, Sendable { var lines: [String] }
/// }
/// ```
///
/// Copy the old declarations as they were: the log's payloads are their `Codable` form, and the version is found
/// by its fingerprint, which is derived from that form.
public protocol ReactorSchema {
    /// The version's action type (only its fingerprint is used: actions are not replayed).
    associatedtype Action: Codable & Sendable
    /// The version's mutation type.
    associatedtype Mutation: Codable & Sendable
    /// The version's state type.
    associatedtype State: Codable & Sendable

    /// The fingerprint streams written by this version recorded: by default derived from the three types'
    /// structure, as ``ReactorLog/Reactor/defaultSchemaFingerprint`` is. Give the string the app passed to
    /// `attach(schemaFingerprint:)` when it chose its own.
    static var schemaFingerprint: String { get }
}

extension ReactorSchema {
    /// The fingerprint derived from the three types' structure (``SchemaFingerprint/of(action:mutation:state:)``).
    public static var schemaFingerprint: String {
        SchemaFingerprint.of(action: Action.self, mutation: Mutation.self, state: State.self)
    }
}

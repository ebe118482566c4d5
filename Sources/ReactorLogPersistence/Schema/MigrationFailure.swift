/// A migration step (``SchemaMigrations``) that could not convert a payload.
public struct MigrationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The version or type migrated from.
    public let from: String
    /// What went wrong.
    public let reason: String

    /// A sentence.
    public var description: String { "The migration from \(from) failed: \(reason)." }
}

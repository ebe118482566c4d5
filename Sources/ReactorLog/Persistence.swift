import EventLogKit
import Foundation

/// A reactor's binding to a stream of a log, with the types erased: made by
/// ``Reactor/attach(to:stream:schemaFingerprint:redactingActions:)``, used by the runtime.
///
/// The closures hold the stream, never the runtime (the runtime holds them: that would be a cycle).
struct Persistence<R: Reactor>: Sendable {
    let logAction: @Sendable (R.Action) throws(EventLogError) -> UInt64
    let logMutation: @Sendable (R.Mutation, UInt64?) throws(EventLogError) -> UInt64
    let logError: @Sendable (_ type: String, _ message: String, _ cause: UInt64?) throws(EventLogError) -> Void
    let snapshotIfDue: @Sendable (R.State, UInt64) throws(EventLogError) -> Void
    let close: @Sendable (R.State) -> Void
}

/// The payload of an effect-error entry.
public struct EffectErrorRecord: Codable, Sendable, Hashable {
    /// The error's type, such as `URLError`.
    public let type: String
    /// The error as text.
    public let message: String
}

import EventLogKit
import Foundation
import ReactorLog
import Synchronization

/// Records a reactor in a stream of an ``EventLog``: the ``ReactorRecorder`` that
/// ``ReactorLog/Reactor/attach(to:stream:schemaFingerprint:redactingActions:)`` installs.
///
/// A write that fails is remembered in ``failure`` (the first one) and the reactor keeps working in memory.
public final class LogRecorder<Action: Codable & Sendable, Mutation: Codable & Sendable, State: Codable & Sendable>: ReactorRecorder {
    /// The stream being written.
    public let stream: LogStream
    private let redact: (@Sendable (Action) -> Action)?
    private let actionNames = CaseNamer(), mutationNames = CaseNamer()
    private let firstFailure = Mutex<EventLogError?>(nil)

    /// A recorder appending to `stream`; `redact` rewrites each action before it is logged.
    public init(stream: LogStream, redactingActions redact: (@Sendable (Action) -> Action)? = nil) {
        self.stream = stream
        self.redact = redact
    }

    /// The first error writing to the log, if one happened.
    public var failure: EventLogError? { firstFailure.withLock { $0 } }

    /// Appends the action (redacted) and returns its sequence number.
    public func recordAction(_ action: Action) -> UInt64? {
        logged { () throws(EventLogError) in
            let logged = redact?(action) ?? action
            let payload = try stream.log.encode(logged)
            return try stream.append(EntryDraft(
                kind: .action, caseName: actionNames.name(logged, json: payload), payload: payload,
                codec: stream.log.configuration.codec.id))
        }
    }

    /// Appends the mutation with its cause and returns its sequence number.
    public func recordMutation(_ mutation: Mutation, cause: UInt64?) -> UInt64? {
        logged { () throws(EventLogError) in
            let payload = try stream.log.encode(mutation)
            return try stream.append(EntryDraft(
                kind: .mutation, caseName: mutationNames.name(mutation, json: payload), payload: payload,
                codec: stream.log.configuration.codec.id, cause: cause))
        }
    }

    /// Appends an effect-error entry: the error's type and description.
    public func recordEffectError(_ error: any Error, cause: UInt64?) {
        let type = "\(Swift.type(of: error))"
        logged { () throws(EventLogError) in
            try stream.append(.effectError, EffectErrorRecord(type: type, message: "\(error)"), caseName: type, cause: cause)
        }
    }

    /// Writes a snapshot when the log's policy says one is due.
    public func recordState(_ state: State, after sequence: UInt64) {
        guard stream.isSnapshotDue else { return }
        logged { () throws(EventLogError) in try stream.writeSnapshot(state, at: sequence) }
    }

    /// Closes the stream with a last snapshot.
    public func close(finalState: State) {
        try? stream.close(finalState: try? stream.log.encode(finalState))
    }

    @discardableResult
    private func logged<T>(_ write: () throws(EventLogError) -> T) -> T? {
        do {
            return try write()
        } catch {
            firstFailure.withLock { first in
                if first == nil { first = error }
            }
            return nil
        }
    }
}

/// The payload of an effect-error entry.
public struct EffectErrorRecord: Codable, Sendable, Hashable {
    /// The error's type, such as `URLError`.
    public let type: String
    /// The error as text.
    public let message: String
}

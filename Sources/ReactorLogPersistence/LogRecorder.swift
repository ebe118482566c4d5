import EventLogKit
import Foundation
import ReactorLog
import Synchronization

/// Records a reactor in a stream of an `EventLog`: the `ReactorRecorder` that
/// ``ReactorLog/Reactor/attach(to:stream:schemaFingerprint:migrations:onSchemaChange:redactingActions:)`` installs.
///
/// The sender only takes a sequence number and hands the value over: encoding, redaction and case naming
/// run on the log's writer thread. A write or an encoding that fails is remembered in ``failure`` (the first
/// one) and the reactor keeps working in memory; a value that cannot be encoded still takes its sequence
/// number, as an `unencodable` entry.
public final class LogRecorder<Action: Codable & Sendable, Mutation: Codable & Sendable, State: Codable & Sendable>: ReactorRecorder {
    /// The stream being written.
    public let stream: LogStream
    /// What the writer thread encodes this recorder's values with, registered with the stream under `encoderID`.
    private let encoder: ValueEncoder
    private let encoderID: EncoderID

    /// A recorder appending to `stream`; `redact` rewrites each action before it is logged.
    public init(stream: LogStream, redactingActions redact: (@Sendable (Action) -> Action)? = nil) {
        self.stream = stream
        encoder = ValueEncoder(log: stream.log, redact: redact)
        encoderID = stream.register(encoder)
    }

    /// The time stamped on what the current step of dispatch records, read at its first entry; 0 until then. Set
    /// and read only from inside dispatch, one call at a time: relaxed loads and stores are plain moves.
    private let stepTime = Atomic<Int64>(0)

    /// The first error writing to the log, if one happened.
    public var failure: EventLogError? { encoder.failure }

    /// Starts a step of dispatch: its entries share the time of the first, so that an action and the mutations its
    /// effect emits synchronously cost one clock read, where three took a fifth of a send's logging.
    public func willDispatch() {
        stepTime.store(0, ordering: .relaxed)
    }

    /// The time of the current step of dispatch, read from the clock at its first entry.
    private var time: Int64 {
        let time = stepTime.load(ordering: .relaxed)
        if time != 0 { return time }
        let now = WallClock.now()
        stepTime.store(now, ordering: .relaxed)
        return now
    }

    /// Appends the action with its call site and returns its sequence number. Redaction, encoding, naming the
    /// case and formatting the call site happen on the log's writer thread: the sender only hands the action over.
    public func recordAction(_ action: Action, sentFrom site: CallSite?) -> UInt64? {
        // Not through `logged`: a closure call for every entry, on the sender (`logged` inlined still cost about 20
        // instructions more an entry than catching here, callgrind `benchrecord 30000`).
        do {
            return try stream.append(.action, action, callSite: site.map { ($0.fileID, $0.line) }, timestamp: time, encoder: encoderID)
        } catch {
            encoder.remember(error)
            return nil
        }
    }

    /// Appends the mutation with its cause and returns its sequence number; encoded on the writer thread.
    public func recordMutation(_ mutation: Mutation, cause: UInt64?) -> UInt64? {
        do {
            return try stream.append(.mutation, mutation, cause: cause, timestamp: time, encoder: encoderID)
        } catch {
            encoder.remember(error)
            return nil
        }
    }

    /// Appends the mutations with their cause in one hand-off, under consecutive sequence numbers, and returns the
    /// first's; encoded on the writer thread.
    public func recordMutations(_ mutations: [Mutation], cause: UInt64?) -> UInt64? {
        // `count`, not `isEmpty`, which unspecialized here looked up `Array<Mutation>`'s metadata on every call.
        guard mutations.count > 0 else { return nil }
        do {
            return try stream.append(.mutation, count: mutations.count, { mutations[$0] }, cause: cause, timestamp: time, encoder: encoderID)
        } catch {
            encoder.remember(error)
            return nil
        }
    }

    /// Appends an effect-error entry: the error's type and description.
    public func recordEffectError(_ error: any Error, cause: UInt64?) {
        let record = EffectErrorRecord(type: "\(Swift.type(of: error))", message: "\(error)")
        logged { () throws(EventLogError) in
            try stream.append(.effectError, record, cause: cause, timestamp: time, encoder: encoderID)
        }
    }

    /// Writes a snapshot when the log's policy says one is due, encoded on the writer thread.
    public func recordState(_ state: State, after sequence: UInt64) {
        guard stream.isSnapshotDue(after: sequence) else { return }
        logged { () throws(EventLogError) in
            try stream.writeSnapshot(at: sequence) { [encoder] in try encoder.encodeState(state) }
            return nil
        }
    }

    /// Records `state` as the state after the stream's latest entry when it changed since the latest snapshot, encoded
    /// on the writer thread (`EventLog.checkpoint()`); the caller holds dispatch.
    func checkpoint(_ state: State) {
        logged { () throws(EventLogError) in
            try stream.writeCheckpoint { [encoder] in try encoder.encodeState(state) }
            return nil
        }
    }

    /// Closes the stream with a last snapshot, encoded on the writer thread.
    public func close(finalState: State) {
        try? stream.close(encodingFinalState: { [encoder] in try encoder.encodeState(finalState) })
    }

    /// Runs a write and returns the sequence number it took; a failure is remembered (``failure``). Not generic: this
    /// recorder runs unspecialized in the app, where a generic result would cost every send a value-witness call.
    @discardableResult
    private func logged(_ write: () throws(EventLogError) -> UInt64?) -> UInt64? {
        do {
            return try write()
        } catch {
            encoder.remember(error)
            return nil
        }
    }

    /// Encodes the recorder's values on the log's writer thread, and remembers the first failure. A class of its own
    /// so that the recorder can register it while it is being made.
    final class ValueEncoder: EntryEncoder {
        private let log: EventLog
        private let redact: (@Sendable (Action) -> Action)?
        private let actionNames = CaseNamer.shared(for: Action.self), mutationNames = CaseNamer.shared(for: Mutation.self)
        /// The log's encoders of actions and of mutations, resolved once for their types.
        private let encodeAction: PayloadEncoder<Action>
        private let encodeMutation: PayloadEncoder<Mutation>
        private let firstFailure = Mutex<EventLogError?>(nil)

        init(log: EventLog, redact: (@Sendable (Action) -> Action)?) {
            self.log = log
            self.redact = redact
            encodeAction = log.payloadEncoder(for: Action.self)
            encodeMutation = log.payloadEncoder(for: Mutation.self)
        }

        /// The first error writing to the log, if one happened.
        var failure: EventLogError? { firstFailure.withLock { $0 } }

        /// Writes the payload of a value the recorder handed to its stream at the end of `buffer`; returns its case
        /// name.
        func encode(_ value: any Sendable, kind: EntryKind, into buffer: inout ByteBuffer) throws -> String {
            switch kind {
            case .action:
                // Not `redact?(action) ?? action`, which looks up `Optional<Action>`'s metadata for every entry here.
                guard let redact else { return try encoded(boxed: value, with: encodeAction, names: actionNames, into: &buffer) }
                return try encoded(redact(Self.unwrap(value, as: Action.self)), with: encodeAction, names: actionNames, into: &buffer)
            case .mutation:
                return try encoded(boxed: value, with: encodeMutation, names: mutationNames, into: &buffer)
            default:
                let record = Self.unwrap(value, as: EffectErrorRecord.self)
                buffer.append(contentsOf: try reported { () throws(EventLogError) in try log.encodeBytesNamingCase(record).payload })
                return record.type
            }
        }

        /// A state, for a snapshot.
        func encodeState(_ state: State) throws -> Data {
            try reported { () throws(EventLogError) in try log.encode(state) }
        }

        /// The value the recorder boxed as `T`. Its type is known, so it is read out of the box as it is: `as!` in
        /// this unspecialized code looked up `Optional<T>`'s metadata and ran the runtime's cast for every entry.
        private static func unwrap<T>(_ value: any Sendable, as type: T.Type) -> T {
            func open<Boxed>(_ boxed: Boxed) -> T {
                assert(Boxed.self == T.self, "a recorder's entry holds a \(Boxed.self), not a \(T.self)")
                return unsafeBitCast(boxed, to: T.self)
            }
            return open(value)
        }

        /// ``encoded(_:with:names:into:)`` of the value the recorder boxed as `T`, read where it lies in the box, with
        /// the encoder cast to the box's own type, which is `T` (``PayloadEncoder/cast(to:)``): a value taken out of
        /// the box (``unwrap(_:as:)``) is a copy, a count on each of its references made and dropped for every entry.
        private func encoded<T>(boxed value: any Sendable, with encoder: PayloadEncoder<T>, names: CaseNamer, into buffer: inout ByteBuffer) throws -> String {
            func open<Boxed>(_ boxed: Boxed) throws -> String {
                try encoded(boxed, with: encoder.cast(to: Boxed.self), names: names, into: &buffer)
            }
            return try open(value)
        }

        /// A value's case name, its payload written at the end of `buffer` by `encoder` (the whole value); a failure is
        /// remembered (``failure``) and rethrown, worded by the log, so the log writes an `unencodable` entry in its
        /// place. Caught here rather than by ``reported(_:)``: a closure call for every entry. Inlined where the box
        /// is opened: a call of its own, it cost the writer thread 0.9% more instructions.
        @inline(__always) private func encoded<Value>(
            _ value: Value, with encoder: PayloadEncoder<Value>, names: CaseNamer, into buffer: inout ByteBuffer
        ) throws -> String {
            let learned: String?
            do {
                learned = try encoder(value, into: &buffer)
            } catch {
                let failure = log.codecError(encoding: Value.self, error)
                remember(failure)
                throw failure
            }
            return names.name(value, learned: learned)
        }

        /// Runs an encoding; a failure is remembered (``failure``) and rethrown, so the log writes an
        /// `unencodable` entry in its place.
        private func reported<T>(_ encode: () throws(EventLogError) -> T) throws(EventLogError) -> T {
            do {
                return try encode()
            } catch {
                remember(error)
                throw error
            }
        }

        func remember(_ error: EventLogError) {
            firstFailure.withLock { first in
                if first == nil { first = error }
            }
        }
    }
}

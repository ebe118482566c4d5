import Foundation
import Synchronization

/// A stream of a writable ``EventLog``, open for appending: one reactor's entries and snapshots.
///
/// It counts what is appended so it can say when the log's ``SnapshotPolicy`` wants a snapshot
/// (``isSnapshotDue``); the owner, which holds the state, then calls ``writeSnapshot(_:codec:at:)``.
/// Close it with ``close(finalState:codec:)`` to record a clean end and a last snapshot.
public final class LogStream: Sendable {
    // The fields an append reads and writes come first, in declaration order, which is their order in the object:
    // the first 64 bytes, one cache line, with the object's header. A server with thousands of sessions sends to
    // streams whose handles are no longer in the cache, and each line an append touches is a miss.
    /// The log's writer, held so that an append need not unwrap the log's optional one and check the log's state
    /// first: a closed log's writer refuses appends itself.
    private let writer: LogWriter
    private let closed = Atomic<Bool>(false)
    /// The log's codec, read once: reaching it through the configuration's codec existential cost every append a
    /// copy of it.
    private let codecID: CodecID
    /// `info.id`, here beside the rest.
    private let streamID: UInt32
    // What an append counts, as atomics: each append would otherwise take a lock twice (once to check that the
    // stream is open, once to count), and the sender pays for it.
    /// The mutations appended since the last snapshot.
    private let mutations = Atomic<Int>(0)
    /// The sequence number of the latest append through this handle.
    private let latest: Atomic<UInt64>
    /// The first and last sequence numbers of the latest run of mutations appended at once
    /// (``append(_:count:_:cause:timestamp:encoder:)``): a run is appended before its first mutation is reduced, so
    /// when a state after one of them is asked about, those after it are counted but not in the state yet.
    private let runStart = Atomic<UInt64>(0), runEnd = Atomic<UInt64>(0)
    /// The log's snapshot policy, read once, and the payload bytes of the mutations since the last snapshot (the
    /// writer thread adds those it encodes): what ``isSnapshotDue`` reads after each mutation.
    private let snapshotPolicy: SnapshotPolicy
    private let payloadBytes = PayloadTally()
    /// Whether a mutation was refused (a write failure) since the latest snapshot: the state then runs ahead of the
    /// stream's latest append, so no checkpoint is written at it (``writeCheckpoint(encoding:)``).
    private let refusedSinceSnapshot = Atomic<Bool>(false)

    /// The stream's descriptor.
    public let info: StreamInfo
    /// The log the stream belongs to.
    public let log: EventLog
    /// Whether the stream existed before it was opened.
    public let wasResumed: Bool
    /// The sequence number of the `streamOpened` or `streamResumed` marker appended when it was opened.
    public let markerSequence: UInt64
    /// The encoder of this handle's closure-taking appends, unregistered when the handle goes away (an append on
    /// another thread may race a close, never a deinit); and the encoders registered through it, unregistered when
    /// it closes (a recorder's appends and its close come one at a time) or goes away.
    private let closureEncoder: EncoderID
    private let registered: Mutex<[EncoderID]>

    /// A handle on stream `info` of `log`, whose `writer` appended its opening marker as `markerSequence`; a resumed
    /// stream's snapshot policy goes on from `sinceSnapshot` (``pendingSinceSnapshot(log:info:)``).
    init(
        log: EventLog, writer: LogWriter, info: StreamInfo, resumed: Bool, markerSequence: UInt64,
        sinceSnapshot: (mutations: Int, bytes: Int)
    ) {
        self.log = log
        self.info = info
        streamID = info.id
        self.wasResumed = resumed
        self.markerSequence = markerSequence
        self.writer = writer
        closureEncoder = writer.register(DeferredEncoding(encoder: ClosureEncoder.shared, tally: payloadBytes))
        registered = Mutex([])
        codecID = log.configuration.codec.id
        snapshotPolicy = log.configuration.snapshotPolicy
        latest = Atomic(markerSequence)
        mutations.store(sinceSnapshot.mutations, ordering: .relaxed)
        payloadBytes.add(sinceSnapshot.bytes)
    }

    /// The mutations stream `info` holds after its latest snapshot and their payload bytes, so that its snapshot
    /// policy resumes where it stopped. Read before anything is appended: a stream whose entries since its
    /// snapshot are damaged is refused before a marker is written to it.
    static func pendingSinceSnapshot(log: EventLog, info: StreamInfo) throws(EventLogError) -> (mutations: Int, bytes: Int) {
        let point = try log.recoveryPoint(stream: info, atOrBefore: .max)
        var iterator = log.entries(EntryQuery(from: point.sequence + 1, stream: info.name, kinds: [.mutation]))
        var (count, bytes) = (0, 0)
        while let entry = try iterator.next() {
            count += 1
            bytes += entry.payload.count
        }
        return (count, bytes)
    }

    deinit {
        unregisterEncoders()
        writer.unregister(closureEncoder)
        log.releaseStream(info.id)
    }

    /// Appends one entry; returns its sequence number. In `sync` durability, returns after it is on disk.
    @discardableResult
    public func append(_ draft: EntryDraft) throws(EventLogError) -> UInt64 {
        try checkOpen()
        let sequence: UInt64
        do {
            sequence = try writer.append(draft, streamID: streamID)
        } catch {
            throw draft.kind == .mutation ? refused(error) : error
        }
        count([draft], last: sequence)
        return sequence
    }

    /// Appends entries that are committed together or not at all; returns their sequence numbers.
    @discardableResult
    public func append(batch drafts: [EntryDraft]) throws(EventLogError) -> ClosedRange<UInt64> {
        try checkOpen()
        let sequences: ClosedRange<UInt64>
        do {
            sequences = try writer.append(drafts, streamID: streamID)
        } catch {
            throw drafts.contains { $0.kind == .mutation } ? refused(error) : error
        }
        count(drafts, last: sequences.upperBound)
        return sequences
    }

    /// Appends an entry whose payload is `value` encoded with the log's codec.
    @discardableResult
    public func append<Value: Encodable>(
        _ kind: EntryKind, _ value: Value, caseName: String, cause: UInt64? = nil
    ) throws(EventLogError) -> UInt64 {
        try append(EntryDraft(kind: kind, caseName: caseName, payload: try log.encode(value), codec: codecID, cause: cause))
    }

    /// Appends an entry whose case name and payload are made by `encode` **on the writer thread**, so the
    /// caller only takes a sequence number and hands the work over: the hot path of a recorded reactor. The
    /// payload must be in the log's codec, as ``EventLog/encodeNamingCase(_:)`` makes it.
    /// Order, causes and durability are those of ``append(_:)`` (in `sync` durability it returns once
    /// the entry is committed). When `encode` throws, the entry is written all the same, so the sequence
    /// stays gapless, with the case name `unencodable`, codec none and no payload; `encode` is the place to
    /// report the failure to its owner. The snapshot policy's byte count learns the payload's size once it is
    /// encoded. `callSite`, for an action, is where it was sent from; the writer formats and interns it
    /// (``EventLog/callSite(at:)``).
    @discardableResult
    public func append(
        _ kind: EntryKind, cause: UInt64? = nil, callSite: (fileID: StaticString, line: UInt)? = nil,
        encoding encode: @escaping @Sendable () throws -> (caseName: String, payload: Data)
    ) throws(EventLogError) -> UInt64 {
        let bytes: ClosureEncoder.Encode = {
            let (caseName, payload) = try encode()
            return (caseName, Array(payload))
        }
        return try append(kind, bytes, cause: cause, callSite: callSite, encoder: closureEncoder)
    }

    /// Registers `encoder` for ``append(_:_:cause:callSite:encoder:)`` until the stream closes: a recorder does so
    /// once. The log's writer holds the encoder from then on, so an append names it by number. Appends that name it
    /// must not race the stream's close (a recorder's never do: its calls come one at a time).
    package func register(_ encoder: any EntryEncoder) -> EncoderID {
        let id = writer.register(DeferredEncoding(encoder: encoder, tally: payloadBytes))
        registered.withLock { $0.append(id) }
        return id
    }

    /// Appends an entry whose case name and payload the registered `encoder` makes from `value` **on the writer
    /// thread**: the recorder's path. The sender hands over the value and a number: it allocates nothing for a value
    /// of up to three words (an existential's inline buffer) and counts no reference to an object the writer thread
    /// also counts. `timestamp` (``WallClock``) is the entry's time when the caller has read it already, for the
    /// entries of one step of dispatch. Otherwise as ``append(_:cause:callSite:encoding:)``.
    @discardableResult
    package func append(
        _ kind: EntryKind, _ value: consuming any Sendable, cause: UInt64? = nil,
        callSite: (fileID: StaticString, line: UInt)? = nil, timestamp: Int64? = nil, encoder: EncoderID
    ) throws(EventLogError) -> UInt64 {
        try checkOpen()
        let sequence: UInt64
        do {
            sequence = try writer.appendDeferred(
                kind: kind, value, encoder: encoder, streamID: streamID, cause: cause, codec: codecID, callSite: callSite,
                timestamp: timestamp)
        } catch {
            throw kind == .mutation ? refused(error) : error
        }
        // A load and a store, not an atomic add (a locked instruction, 7 ns a mutation here): a recorder's appends come
        // one at a time. An append through ``append(_:)`` racing one here may go uncounted, which delays a snapshot
        // by a mutation, as a snapshot's reset racing an append already could.
        if kind == .mutation { mutations.store(mutations.load(ordering: .relaxed) &+ 1, ordering: .relaxed) }
        latest.store(sequence, ordering: .relaxed)
        return sequence
    }

    /// Appends `count` entries of one kind and cause whose payloads the registered `encoder` makes on the writer
    /// thread, in one hand-off and under consecutive sequence numbers; returns the first. `value(i)` is the `i`-th
    /// entry's value. The recorder's path for the mutations an effect emits at once: one hand-off where there were
    /// `count`. Otherwise as ``append(_:_:cause:callSite:timestamp:encoder:)``.
    @discardableResult
    package func append(
        _ kind: EntryKind, count: Int, _ value: (Int) -> any Sendable, cause: UInt64? = nil, timestamp: Int64? = nil,
        encoder: EncoderID
    ) throws(EventLogError) -> UInt64 {
        try checkOpen()
        let first: UInt64
        do {
            first = try writer.appendDeferred(
                kind: kind, count: count, value, encoder: encoder, streamID: streamID, cause: cause, codec: codecID,
                timestamp: timestamp)
        } catch {
            throw kind == .mutation ? refused(error) : error
        }
        let last = first + UInt64(count - 1)
        if kind == .mutation {
            mutations.store(mutations.load(ordering: .relaxed) &+ count, ordering: .relaxed)
            runStart.store(first, ordering: .relaxed)
            runEnd.store(last, ordering: .relaxed)
        }
        latest.store(last, ordering: .relaxed)
        return first
    }

    /// Writes a snapshot of the state right after entry `sequence`, encoded by `encode` **on the writer
    /// thread**: a large state costs the caller nothing. A state that fails to encode is not written.
    public func writeSnapshot(at sequence: UInt64, encoding encode: @escaping @Sendable () throws -> Data) throws(EventLogError) {
        try snapshot(at: sequence) { writer throws(EventLogError) in
            try writer.writeDeferred(DeferredSnapshot(
                streamID: streamID, sequence: sequence, timestamp: WallClock.now(), codec: codecID,
                encode: encode))
        }
    }

    /// Whether the log's snapshot policy wants a snapshot of the state after the latest append; whatever the policy,
    /// also once a mutation of the stream was logged without its value (it could not be encoded: an `unencodable`
    /// entry) or refused because a write failure stopped the log: the states after it cannot be rebuilt before a
    /// snapshot.
    public var isSnapshotDue: Bool { isSnapshotDue(after: lastSequence) }

    /// Whether the log's snapshot policy wants a snapshot of the state after entry `sequence`, the latest append or
    /// a mutation of the latest run: the run's mutations after it do not count yet.
    package func isSnapshotDue(after sequence: UInt64) -> Bool {
        snapshotPolicy.isDue(mutations: mutations.load(ordering: .relaxed) - unreduced(after: sequence), bytes: payloadBytes)
    }

    /// How many mutations of the latest run come after entry `sequence`, when it is one of them.
    private func unreduced(after sequence: UInt64) -> Int {
        let end = runEnd.load(ordering: .relaxed)
        guard end > sequence, sequence >= runStart.load(ordering: .relaxed) else { return 0 }
        return Int(end - sequence)
    }

    /// The sequence number of this stream's latest append through this handle (0 before any).
    public var lastSequence: UInt64 { latest.load(ordering: .relaxed) }

    /// Records `state` as the stream's state right after entry `sequence`; replaces a snapshot already there.
    /// It is committed after every entry appended before it, so it never describes an entry the log lacks.
    public func writeSnapshot(_ state: Data, codec: CodecID? = nil, at sequence: UInt64) throws(EventLogError) {
        try snapshot(at: sequence) { writer throws(EventLogError) in
            try writer.write(Snapshot(
                streamID: streamID, sequence: sequence, timestamp: WallClock.now(),
                codec: codec ?? codecID, state: state))
        }
    }

    /// Checks that `sequence` was appended, queues the snapshot with `write`, and restarts the policy's count.
    private func snapshot(at sequence: UInt64, _ write: (LogWriter) throws(EventLogError) -> Void) throws(EventLogError) {
        try checkOpen()
        guard sequence >= 1, sequence < writer.peekNextSequence else {
            throw .invalidArgument("A snapshot must describe an appended entry; #\(sequence) has not been appended.")
        }
        try write(writer)
        // The mutations of a run after `sequence` count toward the next snapshot.
        mutations.store(unreduced(after: sequence), ordering: .relaxed)
        payloadBytes.reset()
        refusedSinceSnapshot.store(false, ordering: .relaxed)
    }

    /// Records `state`, encoded with the log's codec, as the state right after entry `sequence`.
    public func writeSnapshot<State: Encodable>(_ state: State, at sequence: UInt64) throws(EventLogError) {
        try writeSnapshot(try log.encode(state), at: sequence)
    }

    /// Where to start rebuilding the stream's latest state: its latest snapshot, or its initial state.
    public func recoveryPoint() throws(EventLogError) -> RecoveryPoint {
        try log.recoveryPoint(stream: info, atOrBefore: .max)
    }

    /// The stream's entries after `sequence`, in order; fold its mutations onto a ``RecoveryPoint``.
    public func entries(after sequence: UInt64) -> EntryIterator {
        log.entries(EntryQuery(from: sequence &+ 1 == 0 ? .max : sequence + 1, stream: info.name))
    }

    /// Appends a `streamClosed` marker and, when given, a snapshot of `finalState` at it; the handle then
    /// refuses appends. Closing twice does nothing.
    public func close(finalState: Data? = nil, codec: CodecID? = nil) throws(EventLogError) {
        try close { writer, sequence throws(EventLogError) in
            guard let finalState else { return }
            try writer.write(Snapshot(
                streamID: streamID, sequence: sequence, timestamp: WallClock.now(),
                codec: codec ?? codecID, state: finalState))
        }
    }

    /// Registers what the stream's owner does when the log asks for its state: at `EventLog.checkpoint()` and when
    /// the log closes while the stream is open, before it stops taking appends (``LogRequest``). Replaces what an
    /// earlier call set; nothing runs once the stream is closed. The log holds `handler` until then: capture the owner
    /// weakly.
    public func onLogRequest(_ handler: @escaping @Sendable (LogRequest) -> Void) {
        guard !closed.load(ordering: .acquiring) else { return }
        log.setRequestHandler(handler, forStream: info.id)
    }

    /// Records the state `encode` makes (on the writer thread) as the state right after the stream's latest append,
    /// when mutations were appended since its latest snapshot; returns whether it did. Call it where nothing can be
    /// appended between that state and the call, as a recorded reactor does while it holds dispatch. Writes nothing
    /// after a mutation the log refused (a write failure): that state is not the one after the latest append, and the
    /// snapshot due at the stream's next mutation records it.
    @discardableResult
    public func writeCheckpoint(encoding encode: @escaping @Sendable () throws -> Data) throws(EventLogError) -> Bool {
        try checkOpen()
        guard mutations.load(ordering: .relaxed) > 0, !refusedSinceSnapshot.load(ordering: .relaxed) else { return false }
        try writeSnapshot(at: lastSequence, encoding: encode)
        return true
    }

    /// Closes the stream like ``close(finalState:codec:)``, with a last snapshot encoded by `encode` on the
    /// writer thread.
    public func close(encodingFinalState encode: @escaping @Sendable () throws -> Data) throws(EventLogError) {
        try close { writer, sequence throws(EventLogError) in
            try writer.writeDeferred(DeferredSnapshot(
                streamID: streamID, sequence: sequence, timestamp: WallClock.now(), codec: codecID,
                encode: encode))
        }
    }

    private func close(snapshot: (LogWriter, UInt64) throws(EventLogError) -> Void) throws(EventLogError) {
        let writer = try log.requireWriter()
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let sequence = try writer.append(EntryDraft(kind: .streamClosed, caseName: "closed", payload: Data(), codec: .none), streamID: streamID)
        try snapshot(writer, sequence)
        unregisterEncoders()
        log.releaseStream(info.id)
    }

    private func unregisterEncoders() {
        for id in registered.withLock({ ids in defer { ids = [] }; return ids }) { writer.unregister(id) }
    }

    /// Throws ``EventLogError/closed(path:)`` once the stream is closed. A check, not a getter of the writer: a writer
    /// returned from a function comes back retained, a reference counted and released for every append. Inlined into
    /// each append as a load and a branch; the error is made out of line.
    @inline(__always)
    private func checkOpen() throws(EventLogError) {
        if closed.load(ordering: .acquiring) { throw closedError() }
    }

    /// `error`, for a mutation the log refused: when a write failure stopped it, the stream's states from there on
    /// are not in the log, so a snapshot is asked for at its next mutation (``isSnapshotDue``), the first that can be
    /// rebuilt again once writing resumes (the writer marks the refused stretch with an `unwritten` entry).
    @inline(never)
    private func refused(_ error: EventLogError) -> EventLogError {
        if case .writeFailed = error {
            payloadBytes.requestSnapshot()
            refusedSinceSnapshot.store(true, ordering: .relaxed)
        }
        return error
    }

    @inline(never)
    private func closedError() -> EventLogError {
        .closed(path: "\(log.path) (stream '\(info.name)')")
    }

    private func count(_ drafts: [EntryDraft], last: UInt64) {
        var (count, bytes) = (0, 0)
        for draft in drafts where draft.kind == .mutation {
            count += 1
            bytes += draft.payload.count
        }
        mutations.add(count, ordering: .relaxed)
        payloadBytes.add(bytes)
        latest.store(last, ordering: .relaxed)
    }
}

import Foundation
import LMDB
import Synchronization

/// A persistent, crash-safe log of a program's actions and mutations, kept in one LMDB environment.
///
/// A log is a directory, conventionally `NAME.reactorlog/`. It holds many streams (one per reactor),
/// each entry numbered by a global sequence number, plus snapshots of each stream's state.
///
/// ```swift
/// let log = try EventLog.open(at: "session.reactorlog")
/// let stream = try log.openStream(named: "counter", reactorType: "CounterReactor",
///                                 schemaFingerprint: "v1", initialState: Data("0".utf8))
/// let action = try stream.append(EntryDraft(kind: .action, caseName: "increase", payload: Data("\"increase\"".utf8)))
/// try stream.append(EntryDraft(kind: .mutation, caseName: "increaseValue", payload: Data("\"increaseValue\"".utf8), cause: action))
/// try log.flush()
/// ```
///
/// Writes go through a dedicated writer thread (see ``Durability``); reads run in short LMDB read
/// transactions, so a reader never makes a live log's file grow. Every method may be called from any thread.
public final class EventLog: Sendable {
    /// The newest on-disk format version this library reads and writes: 8, each block of the stream index sealed
    /// with its key, which every log a writer opens is raised to. Versions 1 to 7 (the first record layout; gaps
    /// from retention; schema eras; compact entry records; the stream index in blocks; metadata sealed by a
    /// checksum; entries packed into blocks) stay readable (docs/FORMAT.md, "Versioning").
    public static let formatVersion = LogLayout.sealedIndexKeysFormatVersion
    /// This library's version, recorded in logs it writes.
    public static let libraryVersion = "0.1.0"

    /// The log's directory.
    public let path: String
    /// Whether the log was opened read-only (``openReadOnly(at:)-(String)``).
    public let isReadOnly: Bool
    /// Whether the log is read without LMDB's lock file, `lock.mdb`: opened read-only by a user who may not write
    /// that file or create it (another user's log, a directory only readable), or where a disk with no room cannot
    /// hold a new one, while no process recorded into it.
    /// Reading needs the lock file only beside a writer, so every read first checks that none has begun since, and
    /// throws ``EventLogError/permissionDenied(path:reason:)`` if one has.
    public var readsWithoutLockFile: Bool { storage.readsWithoutLockFile }
    /// The configuration the log was opened with (the defaults when read-only).
    public let configuration: EventLogConfiguration

    let storage: LogStorage
    let writer: LogWriter?
    private let writerLock: WriterLock?
    /// The streams open through this log, with what each one's owner does when the log asks for its state.
    private let openStreams = Mutex(OpenStreams())
    /// Whether ``close()`` has run: an atomic, since every append reads it.
    private let closed = Atomic(false)
    /// Whether ``close()`` has begun: set before the streams' owners are asked for their states, while the log still
    /// takes appends (``closed`` is set after), so that a second close neither asks again nor closes the writer under
    /// the first one's appends.
    private let closing = Atomic(false)
    /// The highest sequence number retention has looked at for effect errors to pin.
    let retentionScan = Mutex<UInt64>(0)

    /// Opens the log at `path`; read-only, leaving the optional databases `passingOver` names unopened, their trees
    /// unchecked (``openWithoutCallSites(at:)``).
    init(path: String, readOnly: Bool, configuration: EventLogConfiguration, passingOver: Set<String> = []) throws(EventLogError) {
        self.path = path
        self.isReadOnly = readOnly
        self.configuration = configuration
        // What is plainly not a log is refused before LMDB sees it, and before a writer takes its lock file.
        let madeDirectory = try LogStorage.checkDirectory(path: path, readOnly: readOnly, passingOver: passingOver)
        if readOnly {
            writerLock = nil
            storage = try LogStorage.open(path: path, readOnly: true, configuration: configuration, passingOver: passingOver)
            writer = nil
        } else {
            // Whether a writer of ReactorLog opened the directory before: its lock file, which this writer makes.
            let writtenBefore = LogStorage.wasWritten(path)
            do {
                writerLock = try WriterLock(directory: path)
            } catch {
                // Without the lock, only a directory left empty is this open's to remove.
                if madeDirectory { rmdir(path) }
                throw error
            }
            do {
                // Now that no process can change a page: a damaged one would crash this one at its first write.
                try LogStorage.checkPageTrees(path: path, forWriting: true)
                storage = try LogStorage.open(path: path, readOnly: false, configuration: configuration)
                writer = try LogWriter(storage: storage, configuration: configuration)
                try storage.setWriting(true)
            } catch {
                // A first open that failed (no room for the lock file) leaves no half-made log behind.
                if madeDirectory { LogStorage.removeUnbegun(path: path) }
                // What a writer opened before and LMDB now opens as no log (a main database's root a bad bit moved onto
                // another tree's page reads as another program's) is damage to that log, which an app sets aside.
                if writtenBefore, case .notALog(let path, let reason) = error {
                    throw .damagedFile(path: path, reason: "\(reason), though a writer of ReactorLog opened it before (its \(LogLayout.writerLockFile))")
                }
                throw error
            }
        }
        if configuration.retention != nil {
            writer?.setMaintenance { [weak self] txn, allowance in try self?.retentionStep(in: txn, removingAtMost: allowance) ?? false }
        }
    }

    /// Opens the log at `path` for writing, creating it when the path does not exist.
    ///
    /// Only one writer may have a log open at a time, in any process; readers are unlimited.
    /// Throws ``EventLogError`` when the path is not a log, the log is of a newer format, or another
    /// writer has it open.
    public static func open(at path: String, configuration: EventLogConfiguration = EventLogConfiguration()) throws(EventLogError) -> EventLog {
        try EventLog(path: path, readOnly: false, configuration: configuration)
    }

    /// Opens an existing log read-only, also while another process writes to it.
    public static func openReadOnly(at path: String) throws(EventLogError) -> EventLog {
        try EventLog(path: path, readOnly: true, configuration: EventLogConfiguration())
    }

    /// Opens the log at the file URL `url` for writing, as ``open(at:configuration:)-(String,_)`` opens its path: an
    /// app's log in its Application Support or caches directory, as `FileManager` gives it. Throws
    /// ``EventLogError/invalidArgument(_:)`` for a URL that is not a file's.
    public static func open(at url: URL, configuration: EventLogConfiguration = EventLogConfiguration()) throws(EventLogError) -> EventLog {
        try open(at: try path(of: url), configuration: configuration)
    }

    /// Opens the existing log at the file URL `url` read-only, as ``openReadOnly(at:)-(String)`` opens its path.
    public static func openReadOnly(at url: URL) throws(EventLogError) -> EventLog {
        try openReadOnly(at: try path(of: url))
    }

    /// The file system path of `url`, which must be a file URL.
    private static func path(of url: URL) throws(EventLogError) -> String {
        guard url.isFileURL else {
            throw .invalidArgument("\(url.absoluteString) is not a file URL: a log is a directory on this machine's file system, such as a URL FileManager gives.")
        }
        return url.withUnsafeFileSystemRepresentation { $0.map { String(cString: $0) } } ?? url.path
    }

    /// Opens the log at `path` read-only as ``openReadOnly(at:)-(String)`` does, once there is one: while nothing is at the
    /// path (in a directory that exists) or a writer is beginning the log there, it tries again every `pollInterval`,
    /// and `waiting` is called before the first wait. A follower can so be started before the program that records.
    ///
    /// Anything else that is not a log is thrown at once, as ``openReadOnly(at:)-(String)`` throws it; so is a missing
    /// directory on the way to `path`. Cancelling the task ends the wait with `CancellationError`.
    public static func openReadOnlyOnceBegun(
        at path: String, pollInterval: Duration = .milliseconds(50), waiting: () -> Void = {}
    ) async throws -> EventLog {
        var waited = false
        while true {
            do {
                return try openReadOnly(at: path)
            } catch {
                guard isUnbegun(path, refusedWith: error) else { throw error }
            }
            if !waited { waiting() }
            waited = true
            try await Task.sleep(for: pollInterval)
        }
    }

    /// Whether `error`, from opening `path` read-only, means that a log is yet to be begun there: nothing at the path
    /// in a directory that exists, a directory holding nothing but lock files (a writer makes the directory, then takes
    /// its lock, then makes the data file), or a writer holding the log's lock while it makes the data file.
    private static func isUnbegun(_ path: String, refusedWith error: EventLogError) -> Bool {
        switch error {
        case .notFound:
            // An empty path is no place a log could begin.
            return !path.isEmpty && FileManager.default.isDirectory(atPath: SplitPath(path).directory)
        case .notALog, .damagedFile:
            let contents = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [LogLayout.dataFile]
            return contents.allSatisfy(LogLayout.lockFiles.contains)
                || WriterLock.isHeld(directory: path, tryingTheLock: true)
        default:
            return false
        }
    }

    deinit {
        if writer != nil && !closed.load(ordering: .acquiring) { try? storage.setWriting(false) }
        _ = writer?.close()
    }

    /// Commits everything appended, stops the writer thread and releases the writer lock. A log that a write failure
    /// stopped tries once more to write what it holds (``resumeWriting()``), and throws the failure when that fails
    /// too. Closing twice does nothing.
    ///
    /// A reactor still attached closes its stream first, with a snapshot of its latest state, as it would when released
    /// (``LogRequest/close``; one in the middle of dispatch at that moment keeps the snapshots it wrote before); whatever
    /// it sends later is not recorded.
    public func close() throws(EventLogError) {
        guard !closing.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // While the log still takes appends.
        ask(.close)
        closed.store(true, ordering: .releasing)
        let failure = writer?.close()
        if writer != nil { try? storage.setWriting(false) }
        writerLock?.release()
        if let failure { throw failure }
    }

    /// Blocks until every entry and snapshot appended so far is committed and on disk.
    public func flush() throws(EventLogError) {
        try requireWriter().flush()
    }

    /// Records the current state of each attached reactor that changed since its latest snapshot, then
    /// flushes (`flush()`): call it where the app may be killed next (sent to the background), so that the log
    /// holds its latest states, which the inspector shows without the reducer, not only the snapshots its policy
    /// wrote. The streams stay open. A reactor in the middle of dispatch (on another thread, or this call's own caller)
    /// is not waited for: it records its state when its dispatch gets to the request, committed with the writes that
    /// follow rather than by this call.
    public func checkpoint() throws(EventLogError) {
        _ = try requireWriter()
        ask(.checkpoint)
        try flush()
    }

    /// `checkpoint()`, suspending until the states are on disk instead of blocking.
    public func checkpoint() async throws {
        _ = try requireWriter()
        ask(.checkpoint)
        try await flush()
    }

    /// Asks each open stream's owner for its state, in the order the streams were made; at ``LogRequest/close``, for
    /// the last time. Outside the lock: a handler that closes its stream releases it here.
    private func ask(_ request: LogRequest) {
        let handlers = openStreams.withLock { $0.handlers(for: request) }
        for handler in handlers { handler(request) }
    }

    /// Suspends until every entry and snapshot appended so far is committed and on disk.
    public func flush() async throws {
        try await requireWriter().flush()
    }

    /// Waits until every entry and snapshot appended through this log before the call is committed, so that a read
    /// begun after it sees them: a time machine made on the log an app writes sees what was sent before it. Forces no
    /// sync and throws nothing; returns at once for a log opened read-only, on the writer thread, and while a write
    /// failure stops the log (a read then sees what was committed).
    package func awaitAppends() {
        writer?.awaitQueuedCommits()
    }

    /// The failure that stopped the writer, or `nil` while it is healthy (again, once writing resumed).
    public var writeFailure: EventLogError? { writer?.currentFailure }

    /// After a write failure stopped the log, tries writing again now instead of at the next retry
    /// (``EventLogConfiguration/writeRetryInterval``), and returns once it wrote: what was queued when writing
    /// stopped, and an `unwritten` entry in each stream whose appends were refused meanwhile, which marks its states
    /// from there to its next snapshot as not in the log (a recorded reactor snapshots at its next mutation). Throws
    /// the failure that still stops it (the disk has no room yet). Does nothing while writing works.
    public func resumeWriting() throws(EventLogError) {
        try requireWriter().resume()
    }

    /// The log's metadata. Throws ``EventLogError/corruptMetadata(reason:)`` when the checksum that seals it (format
    /// version 6) does not match: one of its values is damaged, and would be passed on as if it were sound; and when an
    /// import carried the values over from a log whose seal did not vouch for them (``LogMetadata/unvouched``).
    /// ``verify(progress:)`` names the damage; the entries still read.
    public func metadata() throws(EventLogError) -> LogMetadata {
        try storage.metadata()
    }

    /// The log's metadata as its records hold it, whether or not the checksum that seals it vouches for it, with the
    /// ``EventLogError/corruptMetadata(reason:)`` that ``metadata()`` would throw (`nil` when the seal holds and no
    /// import carried the values over unvouched, ``LogMetadata/unvouched``). For a report that shows the values marked
    /// as unvouched (`reactorlog info`), never for one that passes them on as sound. Throws only when the format
    /// version itself cannot be read.
    public func storedMetadata() throws(EventLogError) -> (metadata: LogMetadata, damage: EventLogError?) {
        try storage.storedMetadata()
    }

    /// The size of the log's data file in bytes.
    public var sizeOnDisk: Int {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + LogLayout.dataFile)
        return (attributes?[.size] as? NSNumber)?.intValue ?? 0
    }

    func requireWriter() throws(EventLogError) -> LogWriter {
        guard let writer else { throw .readOnly(path: path) }
        if closed.load(ordering: .acquiring) { throw .closed(path: path) }
        return writer
    }

    // MARK: Streams

    /// Every stream of the log, in order of creation; a stream this process just made is among them, though its
    /// descriptor is committed with its first entries.
    public func streams() throws(EventLogError) -> [StreamInfo] {
        try storage.allStreams().values.sorted { $0.id < $1.id }
    }

    /// The stream descriptors that cannot be read, one ``EventLogError/corruptStream(id:reason:)`` each, by id: their
    /// streams are missing from ``streams()``, their entries read as damaged (``EntryIterator/nextReadable(skipped:)``
    /// passes over them), and their ids are never given to a new stream. Empty for a sound log; the other streams
    /// read as ever.
    public func damagedStreams() throws(EventLogError) -> [EventLogError] {
        _ = try storage.allStreams()
        let damaged = storage.damagedDescriptors
        return damaged.keys.sorted().compactMap { damaged[$0] }
    }

    /// The stream named `name`, or `nil`.
    public func stream(named name: String) throws(EventLogError) -> StreamInfo? {
        try storage.stream(named: name)
    }

    /// Opens the stream `name` for appending: resumes it when it exists, creates it otherwise.
    ///
    /// A new stream records its reactor type, schema fingerprint and initial state, and gets a
    /// `streamOpened` marker; a resumed one gets a `streamResumed` marker. Rebuild a resumed stream's
    /// state from ``LogStream/recoveryPoint()`` and ``LogStream/entries(after:)``. Resuming first commits
    /// what is queued, so that those read every entry appended before, also by a stream just closed.
    ///
    /// `timestamp` (nanoseconds since 1970) stamps the new stream and its marker instead of the current
    /// time; set it only to copy a stream from elsewhere, as `reactorlog import` does.
    public func openStream(
        named name: String, reactorType: String, schemaFingerprint: String, initialState: Data,
        codec: CodecID? = nil, timestamp: Int64? = nil
    ) throws(EventLogError) -> LogStream {
        let writer = try requireWriter()
        guard !name.isEmpty, name.utf8.count <= 255 else {
            throw .invalidArgument("A stream name must be 1 to 255 bytes of UTF-8; '\(name)' is \(name.utf8.count).")
        }
        guard reactorType.utf8.count <= 1024, schemaFingerprint.utf8.count <= 4096 else {
            throw .invalidArgument("A reactor type name is at most 1024 bytes and a schema fingerprint at most 4096.")
        }
        guard let existing = try storage.stream(named: name) else {
            let template = StreamInfo(
                id: 0, name: name, reactorType: reactorType, schemaFingerprint: schemaFingerprint,
                createdAt: timestamp ?? WallClock.now(), initialStateCodec: codec ?? configuration.codec.id,
                initialState: initialState, sequenceFloor: 0)
            let opened = EntryDraft(kind: .streamOpened, caseName: "opened", payload: Data(), codec: .none, timestamp: timestamp)
            // Another thread made a stream of this name since the lookup: it is open there.
            guard let (info, marker) = try writer.createStream(template, opened: opened), let marker else {
                throw .streamInUse(name: name)
            }
            // Another thread may have found it by name since, and opened it first.
            try claimStream(info.id, name: name)
            return LogStream(log: self, writer: writer, info: info, resumed: false, markerSequence: marker, sinceSnapshot: (0, 0))
        }
        // Entries this process appended to the stream may still be queued: commit them, so that rebuilding the stream's
        // state from the log sees every one.
        try writer.flush()
        try claimStream(existing.id, name: name)
        do {
            let sinceSnapshot = try LogStream.pendingSinceSnapshot(log: self, info: existing)
            let marker = EntryDraft(kind: .streamResumed, caseName: "resumed", payload: Data(), codec: .none, timestamp: timestamp)
            let markerSequence = try writer.append(marker, streamID: existing.id)
            return LogStream(
                log: self, writer: writer, info: existing, resumed: true, markerSequence: markerSequence,
                sinceSnapshot: sinceSnapshot)
        } catch {
            releaseStream(existing.id)
            throw error
        }
    }

    /// Opens the stream `name`, encoding `initialState` with the log's codec.
    public func openStream<State: Encodable>(
        named name: String, reactorType: String, schemaFingerprint: String, initialState: State
    ) throws(EventLogError) -> LogStream {
        try openStream(
            named: name, reactorType: reactorType, schemaFingerprint: schemaFingerprint,
            initialState: try encode(initialState))
    }

    /// Marks stream `id` open in this log, or throws ``EventLogError/streamInUse(name:)`` when it is open already.
    private func claimStream(_ id: UInt32, name: String) throws(EventLogError) {
        guard openStreams.withLock({ $0.claim(id) }) else { throw .streamInUse(name: name) }
    }

    func isStreamOpen(_ id: UInt32) -> Bool {
        openStreams.withLock { $0.contains(id) }
    }

    func releaseStream(_ id: UInt32) {
        openStreams.withLock { $0.release(id) }
    }

    /// Asks `handler` for stream `id`'s state at `checkpoint()` and ``close()`` while the stream is open.
    func setRequestHandler(_ handler: @escaping @Sendable (LogRequest) -> Void, forStream id: UInt32) {
        openStreams.withLock { $0.setHandler(handler, forStream: id) }
    }

    // MARK: Codecs

    /// Encodes `value` with the log's codec.
    public func encode<Value: Encodable>(_ value: Value) throws(EventLogError) -> Data {
        try encoding(Value.self) { try configuration.codec.encode(value) }
    }

    /// Encodes `value` with the log's codec, with the case name the codec learned while encoding it, if any.
    public func encodeNamingCase<Value: Encodable>(_ value: Value) throws(EventLogError) -> (payload: Data, caseName: String?) {
        try encoding(Value.self) { try configuration.codec.encodeNamingCase(value) }
    }

    /// ``encodeNamingCase(_:)`` with the payload as plain bytes (``LogCodec/encodeBytesNamingCase(_:)``), for
    /// ``LogStream``'s byte-taking append.
    package func encodeBytesNamingCase<Value: Encodable>(_ value: Value) throws(EventLogError) -> (payload: [UInt8], caseName: String?) {
        try encoding(Value.self) { try configuration.codec.encodeBytesNamingCase(value) }
    }

    /// ``encodeBytesNamingCase(_:)`` for values of one type, resolved once, writing the payload at the end of a buffer
    /// (left as it was when encoding fails) and returning the case name: a recorder's encoder asks for it when it is
    /// made, so that its entries skip the runtime's lookup of a `BinaryPayloadEncodable` conformance, which the binary
    /// codec otherwise makes for every value, with or without one, and go into the bytes of their batch. For the binary
    /// codec it is the codec's own encoder (called with `nil`, the whole value): a wrapper that worded its errors cost
    /// every entry two closure calls. Its errors are the codec's; ``codecError(encoding:_:)`` words one for the log.
    package func payloadEncoder<Value: Encodable & SendableMetatype>(for type: Value.Type) -> PayloadEncoder<Value> {
        guard let codec = configuration.codec as? BinaryLogCodec else {
            let codec = configuration.codec
            return PayloadEncoder { value, _, buffer in
                let (payload, caseName) = try codec.encodeBytesNamingCase(value)
                buffer.append(contentsOf: payload)
                return caseName
            }
        }
        return codec.payloadEncoder(for: Value.self)
    }

    /// `error`, thrown encoding a `Value` with the log's codec, as the log reports it: ``EventLogError/codec(_:)``.
    package func codecError<Value>(encoding type: Value.Type, _ error: any Error) -> EventLogError {
        .codec("Could not encode a \(Value.self) with the \(configuration.codec.id) codec: \(error).")
    }

    /// Runs an encoding of a `Value` with the log's codec; its error becomes ``EventLogError/codec(_:)``.
    private func encoding<Value, Result>(_ type: Value.Type, _ encode: () throws -> Result) throws(EventLogError) -> Result {
        do {
            return try encode()
        } catch {
            throw codecError(encoding: type, error)
        }
    }

    /// Decodes `data`, written with `codec`, as a `Value`.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data, codec: CodecID) throws(EventLogError) -> Value {
        guard configuration.codec.id == codec || codec.isReadableAsJSON else {
            throw .codec("The payload uses the \(codec) codec, which this program does not know.")
        }
        do {
            if configuration.codec.id == codec { return try configuration.codec.decode(type, from: data) }
            return try codec.decode(type, from: data)
        } catch {
            throw .codec("Could not decode a \(Value.self) from a \(codec) payload: \(error).")
        }
    }

    /// Decodes an entry's payload as a `Value`.
    public func decode<Value: Decodable>(_ type: Value.Type, from entry: LogEntry) throws(EventLogError) -> Value {
        do {
            return try decode(type, from: entry.payload, codec: entry.codec)
        } catch {
            throw .codec("Entry #\(entry.sequence) (\(entry.kind) \(entry.caseName)): \(error.description)")
        }
    }
}

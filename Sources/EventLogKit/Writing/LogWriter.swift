import Foundation
import LMDB

/// The dedicated thread that owns every write transaction of a log and commits queued items in batches.
///
/// Appending threads assign sequence numbers and queue items under `mutex`, then return (or, in `sync`
/// mode, wait for the commit). The writer takes everything queued, writes it in one transaction and
/// commits: while it commits, the next batch gathers (group commit). LMDB ties a write transaction to
/// the thread that began it, so no write transaction is ever begun anywhere else.
final class LogWriter: @unchecked Sendable {
    // Lock discipline: every `var` in the first group is read and written only while holding `mutex`.
    // `committer` and the fields that say so belong to the writer thread alone. Everything else is immutable. The mutex already makes
    // every access exclusive, so the queue, which every append modifies, skips the runtime's exclusivity check.
    private let mutex = PosixMutex()
    private let workAvailable = PosixCondition()
    private let spaceAvailable = PosixCondition()
    private let committedChanged = PosixCondition()

    @exclusivity(unchecked) private var queue: [WriteItem] = []
    private var queuedEntries = 0
    private var queuedBytes = 0
    /// How many entries may wait: ``EventLogConfiguration/queueCapacity``, or more while commits write to many
    /// streams (``entryCapacity(base:streamsWritten:)``). Changed by the writer thread only, holding `mutex`, so that
    /// thread alone may read it without.
    private var capacity: Int
    private var nextSequence: UInt64
    private var enqueuedTicket: UInt64 = 0
    private var committedTicket: UInt64 = 0
    private var lastCommittedSequence: UInt64
    private var failure: EventLogError?
    /// The streams whose appends were refused while a failure stopped the writer, with how many and when: each gets an
    /// `unwritten` entry when writing resumes, so that readers know the stream's states from there to its next
    /// snapshot are not in the log, and the owner learns the counts (``EventLogConfiguration/onWriteResumed``).
    private var refused: [UInt32: Refusal] = [:]
    /// Whether the owner asked for a retry (``resume()``), how many retries have ended, and whether the last one, as
    /// the log closes, has been made.
    private var retryRequested = false
    private var retriesEnded = 0
    private var closingRetried = false
    private var closing = false
    private var finished = false
    /// Whether the writer thread is waiting for work (so an append must wake it).
    private var writerWaiting = false
    /// Whether the writer thread is letting appends gather for the commit interval (so a wait for a commit, or a
    /// queue half full, must wake it).
    private var gathering = false
    /// The highest ticket something waits to see committed: while it is committed, the writer may gather.
    private var awaitedTicket: UInt64 = 0
    /// When the commit interval since the last commit began ends.
    private var intervalEnd: ContinuousClock.Instant?
    private var asyncWaiters: [(ticket: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    /// Background work (retention) done inside a commit's transaction, so it costs no sync of its own, given how
    /// many entries it may remove: returns whether more remains. LMDB's map-full and map-resized errors make the
    /// transaction run again; any other error undoes the step: the commit runs again without it.
    typealias Maintenance = @Sendable (Transaction, Int) throws -> Bool
    private var maintenance: Maintenance?
    private var maintenancePending = false
    /// The encoders of deferred entries, by number, looked up whenever consecutive entries name different ones (as a
    /// server's sessions do), in a ``NumberTable``. An entry names its encoder by number, not by reference: a
    /// reference counted by the sender and released by the writer thread moved a cache line between the cores for
    /// every entry.
    ///
    /// The writer thread holds a copy of it through each commit, so it changes only while no commit holds one: a
    /// registration goes to ``added`` and joins it when the writer takes its next batch. Changed during a commit, it
    /// was copied whole: with a reactor per session, making the thousandth stream copied a thousand encoders.
    private var encoders = NumberTable<DeferredEncoding>()
    /// Encoders registered since the writer thread last took ``encoders``.
    private var added: [EncoderID: DeferredEncoding] = [:]
    private var nextEncoder: UInt32 = 1
    /// Encoders unregistered while items queued before were uncommitted, with the last such item's ticket: each is
    /// dropped once that item is committed, so every entry that names it finds it.
    private var retiring: [(id: EncoderID, ticket: UInt64)] = []

    /// The array of the batch before, emptied: the queue's next buffer, so that appends fill memory already in use
    /// (a new array grew by copying every queued item and touched fresh pages on the sender). Writer thread only;
    /// swapped in under `mutex`.
    private var spareQueue: [WriteItem] = []
    /// Payload bytes and entries committed since maintenance last ran, and when it did (writer thread only).
    private var bytesSinceMaintenance = 0
    private var entriesSinceMaintenance = 0
    private var lastMaintenance = ContinuousClock.now

    private let storage: LogStorage
    private let durability: Durability
    private let baseCapacity: Int
    private let byteCapacity: Int
    /// ``EventLogConfiguration/commitInterval``; `nil` when it is zero, and in `sync` durability, whose appends all wait.
    private let commitInterval: Duration?
    private let onFailure: (@Sendable (EventLogError) -> Void)?
    /// ``EventLogConfiguration/onWriteResumed``.
    private let onResumed: (@Sendable (WriteResumption) -> Void)?
    /// ``EventLogConfiguration/writeRetryInterval``.
    private let retryInterval: Duration?
    /// Left once the writer thread has returned from `run()` and let go of the writer (its storage with it): ``close()``
    /// waits for that, so that a log closed here holds no environment that a later open in this process would find.
    private let threadExited = DispatchGroup()
    /// The writer thread, once it runs (set under `mutex`): a read made there (in an encoding closure, or an
    /// `onWriteFailure` handler) must not wait for the commit that thread is making. Declared after the fields every
    /// append touches, so that their places in memory stay as they were.
    private var writerThread: pthread_t?
    /// Encodes and writes each batch (writer thread only).
    private var committer: BatchCommitter
    /// The most bytes one commit takes from the queue, when retention keeps the log within a byte budget: an
    /// eighth of it, so that one commit cannot push the file past the budget.
    private let batchByteLimit: Int?

    init(storage: LogStorage, configuration: EventLogConfiguration) throws(EventLogError) {
        self.storage = storage
        self.durability = configuration.durability
        self.baseCapacity = max(1, configuration.queueCapacity)
        self.capacity = baseCapacity
        self.byteCapacity = max(1, configuration.queueByteCapacity)
        self.commitInterval = configuration.durability == .sync || configuration.commitInterval <= .zero
            ? nil : configuration.commitInterval
        self.onFailure = configuration.onWriteFailure
        self.onResumed = configuration.onWriteResumed
        self.retryInterval = configuration.writeRetryInterval.flatMap { $0 > .zero ? $0 : nil }
        self.batchByteLimit = configuration.retention?.maxBytes.map { max(64 << 10, $0 / 8) }
        let (highest, floor) = try storage.read { txn in
            let highest = try storage.highestEntry(txn) ?? 0
            let floor = try txn.get(storage.meta, key: Array(LogLayout.MetaKey.sequenceFloor.utf8))
                .flatMap { UInt64(String(decoding: $0, as: UTF8.self)) } ?? 0
            return (highest, floor)
        }
        lastCommittedSequence = max(highest, floor)
        nextSequence = lastCommittedSequence + 1
        committer = try BatchCommitter(storage: storage, durability: durability)
        threadExited.enter()
        let thread = Thread { [weak self, threadExited] in
            self?.run()
            threadExited.leave()
        }
        thread.name = "ReactorLog writer"
        thread.start()
    }

    // MARK: Appending (any thread)

    /// Queues `drafts` as one atomic batch of stream `streamID`; returns their sequence numbers.
    func append(_ drafts: [EntryDraft], streamID: UInt32) throws(EventLogError) -> ClosedRange<UInt64> {
        guard !drafts.isEmpty else { throw .invalidArgument("A batch needs at least one entry.") }
        for draft in drafts { try Self.validate(draft) }
        mutex.lock()
        defer { mutex.unlock() }
        let bytes = drafts.reduce(0) { $0 + Self.queuedSize($1) }
        try waitForRoom(entries: drafts.count, bytes: bytes, stream: streamID, mutations: drafts.count { $0.kind == .mutation })
        let first = nextSequence
        let timestamp = WallClock.now()
        let pending = drafts.enumerated().map { index, draft in
            Self.pending(draft, sequence: first + UInt64(index), streamID: streamID, now: timestamp)
        }
        nextSequence += UInt64(drafts.count)
        try enqueue(drafts.count == 1 ? .entry(pending[0]) : .batch(pending), entries: drafts.count, bytes: bytes)
        return first...(nextSequence - 1)
    }

    /// Queues one entry of stream `streamID`; returns its sequence number.
    func append(_ draft: EntryDraft, streamID: UInt32) throws(EventLogError) -> UInt64 {
        try Self.validate(draft)
        let bytes = Self.queuedSize(draft)
        mutex.lock()
        defer { mutex.unlock() }
        try waitForRoom(entries: 1, bytes: bytes, stream: streamID, mutations: draft.kind == .mutation ? 1 : 0)
        let sequence = nextSequence
        nextSequence += 1
        try enqueue(.entry(Self.pending(draft, sequence: sequence, streamID: streamID)), entries: 1, bytes: bytes)
        return sequence
    }

    /// Queues an entry under the sequence number it was recorded with elsewhere (``EventLog/restoreEntry(_:sequence:stream:)``):
    /// the number must be above every number given so far, and the next append continues after it.
    func restore(_ draft: EntryDraft, sequence: UInt64, streamID: UInt32) throws(EventLogError) {
        try Self.validate(draft)
        let bytes = Self.queuedSize(draft)
        mutex.lock()
        defer { mutex.unlock() }
        guard sequence >= nextSequence else {
            throw .invalidArgument("Entry #\(sequence) cannot be restored: the log has already given numbers up to #\(nextSequence - 1), and entries are restored in increasing order.")
        }
        try waitForRoom(entries: 1, bytes: bytes)
        nextSequence = sequence + 1
        try enqueue(.entry(Self.pending(draft, sequence: sequence, streamID: streamID)), entries: 1, bytes: bytes)
    }

    /// Queues the descriptor of a new stream, `template` with the next stream id, with its `opened` marker when one is
    /// given; returns the descriptor and the marker's sequence number, or `nil` when a stream of that name exists. One
    /// transaction commits both: making a stream costs no transaction of its own (a synced one took a server attaching
    /// a reactor per session most of each attach), and the stream is on disk exactly when its first entry is. The id
    /// is given under the queue's lock, so descriptors reach the log in the order of their ids, which readers rely on.
    func createStream(_ template: StreamInfo, opened marker: EntryDraft?) throws(EventLogError) -> (info: StreamInfo, marker: UInt64?)? {
        if let marker { try Self.validate(marker) }
        let bytes = StreamRecord.size(template) + (marker.map(Self.queuedSize) ?? 0)
        mutex.lock()
        defer { mutex.unlock() }
        try waitForRoom(entries: marker == nil ? 0 : 1, bytes: bytes)
        guard let info = try storage.reserveStream(template) else { return nil }
        let opened = marker.map { Self.pending($0, sequence: nextSequence, streamID: info.id) }
        if opened != nil { nextSequence += 1 }
        try enqueue(.stream(info, opened: opened), entries: marker == nil ? 0 : 1, bytes: bytes)
        return (info, opened?.sequence)
    }

    /// What `draft` counts for in the queue's byte budget.
    private static func queuedSize(_ draft: EntryDraft) -> Int {
        EntryRecord.headerSize + draft.caseName.utf8.count + draft.payload.count
    }

    /// `draft` as queued: numbered `sequence`, of stream `streamID`, at its own time, else `now`, else the clock's.
    private static func pending(_ draft: EntryDraft, sequence: UInt64, streamID: UInt32, now: Int64? = nil) -> EntryRecord.Pending {
        EntryRecord.Pending(
            sequence: sequence, streamID: streamID, kind: draft.kind, codec: draft.codec,
            timestamp: draft.timestamp ?? now ?? WallClock.now(), cause: draft.cause ?? 0, caseName: draft.caseName,
            payload: Array(draft.payload), callSite: draft.callSite.map(EntryRecord.Site.text))
    }

    /// Makes the next number given at least `sequence + 1`: numbers up to a raised floor are never given.
    func skip(through sequence: UInt64) {
        mutex.withLock { nextSequence = max(nextSequence, sequence + 1) }
    }

    /// Appends an entry whose payload the writer thread encodes: the caller only gets a sequence number. The entry's
    /// time is `timestamp`, or the clock's when it is `nil`.
    func appendDeferred(
        kind: EntryKind, _ value: consuming any Sendable, encoder: EncoderID, streamID: UInt32, cause: UInt64?,
        codec: CodecID, callSite: (fileID: StaticString, line: UInt)?, timestamp: Int64?
    ) throws(EventLogError) -> UInt64 {
        mutex.lock()
        defer { mutex.unlock() }
        try waitForRoom(entries: 1, bytes: DeferredEntry.estimatedSize, stream: streamID, mutations: kind == .mutation ? 1 : 0)
        let sequence = nextSequence
        nextSequence += 1
        // Made in place: an entry made first would be copied into the item and then destroyed.
        try enqueue(.deferred(DeferredEntry(
            sequence: sequence, streamID: streamID, encoder: encoder, timestamp: timestamp ?? WallClock.now(),
            cause: cause ?? 0, kind: kind, codec: codec, value: value, callSite: callSite)), entries: 1,
            bytes: DeferredEntry.estimatedSize)
        return sequence
    }

    /// Appends `count` entries of one kind, cause and time whose payloads the writer thread encodes, in one hand-off
    /// under consecutive sequence numbers (the mutations an effect emits at once); returns the first. `value(i)` is
    /// the `i`-th entry's value.
    func appendDeferred(
        kind: EntryKind, count: Int, _ value: (Int) -> any Sendable, encoder: EncoderID, streamID: UInt32, cause: UInt64?,
        codec: CodecID, timestamp: Int64?
    ) throws(EventLogError) -> UInt64 {
        guard count > 0 else { throw .invalidArgument("A run of entries needs at least one entry.") }
        let bytes = count * DeferredEntry.estimatedSize
        mutex.lock()
        defer { mutex.unlock() }
        try waitForRoom(entries: count, bytes: bytes, stream: streamID, mutations: kind == .mutation ? count : 0)
        let first = nextSequence
        nextSequence += UInt64(count)
        let time = timestamp ?? WallClock.now()
        for index in 0..<count {
            queue.append(.deferred(DeferredEntry(
                sequence: first + UInt64(index), streamID: streamID, encoder: encoder, timestamp: time, cause: cause ?? 0,
                kind: kind, codec: codec, value: value(index), callSite: nil)))
        }
        try enqueued(items: count, entries: count, bytes: bytes)
        return first
    }

    /// Registers an encoder for deferred entries; returns the number they name it by.
    func register(_ encoding: DeferredEncoding) -> EncoderID {
        mutex.withLock {
            let id = EncoderID(number: nextEncoder)
            nextEncoder += 1
            added[id] = encoding
            return id
        }
    }

    /// Drops encoder `id` once every item queued so far is committed: no later entry may name it.
    func unregister(_ id: EncoderID) {
        mutex.withLock {
            if committedTicket >= enqueuedTicket {
                // Nothing is queued or being committed, so no commit holds a copy of `encoders`.
                if added.removeValue(forKey: id) == nil { encoders[id.number] = nil }
            } else {
                retiring.append((id, enqueuedTicket))
            }
        }
    }

    /// Queues a snapshot whose state the writer thread encodes.
    func writeDeferred(_ snapshot: DeferredSnapshot) throws(EventLogError) {
        mutex.lock()
        defer { mutex.unlock() }
        try waitForRoom(entries: 0, bytes: DeferredEntry.estimatedSize)
        try enqueue(.deferredSnapshot(snapshot), entries: 0, bytes: DeferredEntry.estimatedSize)
    }

    /// Queues a snapshot; it is committed after every entry queued before it.
    func write(_ snapshot: Snapshot) throws(EventLogError) {
        let bytes = SnapshotRecord.size(stateBytes: snapshot.state.count)
        mutex.lock()
        defer { mutex.unlock() }
        try waitForRoom(entries: 0, bytes: bytes)
        try enqueue(.snapshot(snapshot), entries: 0, bytes: bytes)
    }

    /// The sequence number the next append will get.
    var peekNextSequence: UInt64 { mutex.withLock { nextSequence } }

    /// The highest sequence number committed so far.
    var committedSequence: UInt64 { mutex.withLock { lastCommittedSequence } }

    /// Whether the writer has stopped on an error (holding `mutex`): a test of the optional's case, not a copy of the
    /// error, which `failure == nil` would make on every append.
    private var hasFailed: Bool {
        if case .none = failure { return false }
        return true
    }

    /// The error that stopped the writer, if any.
    var currentFailure: EventLogError? { mutex.withLock { failure } }

    private static func validate(_ draft: EntryDraft) throws(EventLogError) {
        guard draft.caseName.utf8.count <= EntryRecord.maxCaseNameLength else {
            throw .invalidArgument("A case name is \(draft.caseName.utf8.count) bytes; the most a record holds is \(EntryRecord.maxCaseNameLength).")
        }
        guard draft.payload.count <= Int(UInt32.max) else {
            throw .invalidArgument("A payload is \(draft.payload.count) bytes; the most a record holds is 4 GiB.")
        }
    }

    /// Waits (holding `mutex`) until the queue has room; an item larger than the whole queue is let in alone. Entries
    /// of `stream` (`mutations` of them mutations) refused because a failure stopped the writer are noted, for the
    /// `unwritten` entry that marks them when writing resumes.
    private func waitForRoom(entries: Int, bytes: Int, stream: UInt32? = nil, mutations: Int = 0) throws(EventLogError) {
        while !hasFailed && !closing && queuedEntries + queuedBytes > 0
            && (queuedEntries + entries > capacity || queuedBytes + bytes > byteCapacity) {
            spaceAvailable.wait(mutex)
        }
        if hasFailed, let failure {
            if let stream, entries > 0 { noteRefused(stream, entries: entries, mutations: mutations) }
            throw failure
        }
        if closing { throw .closed(path: storage.path) }
    }

    /// Notes (holding `mutex`) that `entries` entries of `stream`, `mutations` of them mutations, were refused while
    /// the writer was stopped.
    @inline(never)
    private func noteRefused(_ stream: UInt32, entries: Int, mutations: Int) {
        let now = WallClock.now()
        refused[stream, default: Refusal(first: now, last: now, entries: 0, mutations: 0)].add(entries: entries, mutations: mutations, at: now)
    }

    /// The appends of one stream refused while the writer was stopped.
    private struct Refusal {
        let first: Int64
        var last: Int64
        var entries: Int
        var mutations: Int

        mutating func add(entries: Int, mutations: Int, at time: Int64) {
            last = max(last, time)
            self.entries += entries
            self.mutations += mutations
        }
    }

    /// Adds `item` to the queue (holding `mutex`), and in `sync` mode waits for its commit.
    @inline(__always)
    private func enqueue(_ item: consuming WriteItem, entries: Int, bytes: Int) throws(EventLogError) {
        queue.append(item)
        try enqueued(items: 1, entries: entries, bytes: bytes)
    }

    /// Counts the last `items` items added to the queue (holding `mutex`), wakes the writer, and in `sync` mode waits
    /// for their commit.
    @inline(__always)
    private func enqueued(items: Int, entries: Int, bytes: Int) throws(EventLogError) {
        queuedEntries += entries
        queuedBytes += bytes
        enqueuedTicket += UInt64(items)
        if writerWaiting || gathering && queueHalfFull {
            workAvailable.signal()
        }
        if durability == .sync {
            try waitForCommit(of: enqueuedTicket)
        }
    }

    /// Notes (holding `mutex`) that something waits for the item with `ticket` to be committed: the writer stops
    /// gathering for the commit interval.
    private func awaiting(_ ticket: UInt64) {
        guard ticket > awaitedTicket else { return }
        awaitedTicket = ticket
        if gathering { workAvailable.signal() }
    }

    /// Waits (holding `mutex`) until the item with `ticket` is committed.
    private func waitForCommit(of ticket: UInt64) throws(EventLogError) {
        awaiting(ticket)
        while committedTicket < ticket && failure == nil {
            committedChanged.wait(mutex)
        }
        if committedTicket < ticket, let failure { throw failure }
    }

    /// Waits until every item queued before the call is committed, so that a read begun after it sees them: unlike
    /// ``flush()``, it forces no sync in `noSync` durability and throws nothing. Returns at once on the writer thread
    /// (which cannot wait for its own commit) and while a failure stops writing (a read then sees what was committed).
    func awaitQueuedCommits() {
        mutex.lock()
        defer { mutex.unlock() }
        let ticket = enqueuedTicket
        guard committedTicket < ticket, !hasFailed, !finished else { return }
        if let writerThread, pthread_equal(writerThread, pthread_self()) != 0 { return }
        awaiting(ticket)
        while committedTicket < ticket && !hasFailed && !finished {
            committedChanged.wait(mutex)
        }
    }

    // MARK: Flushing and closing

    /// Blocks until everything queued so far is committed and on disk.
    func flush() throws(EventLogError) {
        mutex.lock()
        defer { mutex.unlock() }
        if let failure { throw failure }
        if durability == .noSync {
            try enqueue(.sync, entries: 0, bytes: 0)
        }
        try waitForCommit(of: enqueuedTicket)
    }

    /// Suspends until everything queued so far is committed and on disk.
    func flush() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            mutex.lock()
            defer { mutex.unlock() }
            if let failure {
                continuation.resume(throwing: failure)
                return
            }
            if durability == .noSync {
                queue.append(.sync)
                enqueuedTicket += 1
                workAvailable.signal()
            }
            if committedTicket >= enqueuedTicket {
                continuation.resume()
            } else {
                awaiting(enqueuedTicket)
                asyncWaiters.append((enqueuedTicket, continuation))
            }
        }
    }

    /// Commits what is queued, stops the thread and waits for it; returns the failure that stopped it, if any.
    func close() -> EventLogError? {
        mutex.lock()
        closing = true
        workAvailable.signal()
        spaceAvailable.broadcast()
        while !finished {
            committedChanged.wait(mutex)
        }
        let failure = failure
        mutex.unlock()
        threadExited.wait()
        return failure
    }

    /// Installs work the writer thread does between commits, at most every 64 KiB committed or 100 ms, and
    /// again at once while it says more remains.
    func setMaintenance(_ body: @escaping Maintenance) {
        mutex.lock()
        defer { mutex.unlock() }
        maintenance = body
        maintenancePending = true
        if writerWaiting { workAvailable.signal() }
    }

    // MARK: The writer thread

    private func run() {
        mutex.withLock { writerThread = pthread_self() }
        while true {
            mutex.lock()
            if hasFailed {
                // Stopped by a failure: the queue (the failed commit's items first) is written again when a retry is
                // due, and nothing else is done before.
                guard waitForRetry() else { return finish() }
                if queue.isEmpty {
                    let resumption = resumed()
                    mutex.unlock()
                    report(resumption)
                    continue
                }
            } else {
                while queue.isEmpty && !closing && !maintenancePending {
                    writerWaiting = true
                    workAvailable.wait(mutex)
                    writerWaiting = false
                }
                gather()
                if queue.isEmpty && closing, let maintain = maintenance {
                    // A last round, so a closed log is within its bounds.
                    maintenance = nil
                    mutex.unlock()
                    for _ in 0..<64 where committer.maintain(maintain, allowance: Self.idleMaintenanceEntries) {}
                    mutex.lock()
                }
                if queue.isEmpty && closing { return finish() }
            }
            let maintain = hasFailed ? nil : maintenance
            guard !queue.isEmpty else {
                mutex.unlock()
                maintainWhileIdle(maintain)
                continue
            }
            // Everything queued, or under a byte budget as much as keeps one commit a small part of it.
            var take = queue.count
            var takenBytes = queuedBytes
            if let limit = batchByteLimit {
                (take, takenBytes) = (0, 0)
                while take < queue.count && (take == 0 || takenBytes < limit) {
                    takenBytes += queue[take].byteCount
                    take += 1
                }
            }
            // Taking the whole queue hands its buffer over instead of copying it (the common case).
            var batch: [WriteItem]
            if take == queue.count {
                batch = queue
                queue = spareQueue
                spareQueue = []
                if queue.capacity < batch.count { queue.reserveCapacity(batch.count) }
            } else {
                batch = Array(queue.prefix(take))
                queue.removeFirst(take)
            }
            let ticket = enqueuedTicket - UInt64(queue.count)
            if let commitInterval { intervalEnd = .now + commitInterval }
            // The last commit's copy is gone, so this changes `encoders` in place.
            if !added.isEmpty {
                for (id, encoding) in added { encoders[id.number] = encoding }
                added = [:]
            }
            let encoders = self.encoders
            // Counted without reading the items when the whole queue is taken: reading one copies it.
            let unwritten = queue.isEmpty ? queuedEntries : batch.indices.reduce(0) { $0 + batch[$1].entryCount }
            bytesSinceMaintenance += takenBytes
            entriesSinceMaintenance += unwritten
            queuedEntries -= unwritten
            queuedBytes -= takenBytes
            spaceAvailable.broadcast()
            mutex.unlock()

            let step = maintain.flatMap { maintain in maintenanceAllowance().map { (maintain, $0) } }
            // The batch is lent to the commit, which moves its items out as it encodes them instead of copying them.
            let result: Result<BatchCommitter.Committed, EventLogError>
            do {
                // Consumed, so that the writer holds no encoder past the commit: one retired after it is let go.
                result = .success(try committer.commit(
                    &batch, entryCount: unwritten, encoders: consume encoders, maintaining: step, queueCapacity: capacity))
            } catch {
                result = .failure(error)
            }
            // The batch's array, emptied as it was encoded, is the queue's after the next swap; the larger is kept, up to
            // what a full queue holds: a queue that once grew past it gives the memory back.
            if batch.capacity > spareQueue.capacity && batch.capacity <= 2 * capacity { swap(&spareQueue, &batch) }

            mutex.lock()
            var ready: [CheckedContinuation<Void, any Error>] = []
            var failed: [CheckedContinuation<Void, any Error>] = []
            let retrying = hasFailed
            var stopped: EventLogError?
            var resumption: WriteResumption?
            switch result {
            case .success(let committed):
                committedTicket = ticket
                if let last = committed.last { lastCommittedSequence = last }
                if let more = committed.more { maintenancePending = more }
                capacity = Self.entryCapacity(base: baseCapacity, streamsWritten: committed.streams)
                if !retiring.isEmpty { retire(through: ticket) }
                ready = asyncWaiters.filter { $0.ticket <= ticket }.map(\.continuation)
                asyncWaiters.removeAll { $0.ticket <= ticket }
                if retrying { resumption = resumed() }
            case .failure(let error):
                let writeFailed = EventLogError.writeFailed(
                    path: storage.path, lastCommitted: lastCommittedSequence,
                    unwritten: unwritten + queuedEntries, underlying: Self.reason(error, path: storage.path))
                failure = writeFailed
                // The batch goes back to the front of the queue, to be written when writing resumes.
                if let back = committer.takeUnwritten() {
                    queue.insert(contentsOf: back.items, at: 0)
                    queuedEntries += back.entries
                    queuedBytes += back.bytes
                }
                // Reported once a stop: a retry that fails again only updates the error.
                if retrying { retriesEnded += 1 } else { stopped = writeFailed }
                spaceAvailable.broadcast()
            }
            let failedWith = failure
            if failedWith != nil {
                failed = asyncWaiters.map(\.continuation)
                asyncWaiters.removeAll()
            }
            committedChanged.broadcast()
            mutex.unlock()
            for continuation in ready { continuation.resume() }
            if let failedWith {
                for continuation in failed { continuation.resume(throwing: failedWith) }
            }
            if let stopped { onFailure?(stopped) }
            report(resumption)
        }
    }

    /// Ends the writer thread (holding `mutex`, which it releases): nothing more is encoded, so the encoders (which
    /// may hold the log) are let go.
    private func finish() {
        encoders = NumberTable()
        added = [:]
        retiring = []
        finished = true
        committedChanged.broadcast()
        mutex.unlock()
    }

    /// Waits (holding `mutex`), the writer stopped by a failure, until a retry is due: asked for (``resume()``), the
    /// retry interval over, or the log closing, which retries once more. Returns `false` when the thread should end:
    /// the log closes and its last retry has been made.
    private func waitForRetry() -> Bool {
        let due = retryInterval.map { ContinuousClock.now + $0 }
        while !closing && !retryRequested {
            guard let due else {
                workAvailable.wait(mutex)
                continue
            }
            let remaining = due - .now
            guard remaining > .zero else { break }
            workAvailable.wait(mutex, for: remaining)
        }
        retryRequested = false
        if closing {
            guard !closingRetried else { return false }
            closingRetried = true
        }
        return true
    }

    /// Writing resumed after a failure (holding `mutex`): appends are taken again, and each stream whose appends were
    /// refused meanwhile gets an `unwritten` entry (codec none, no payload; docs/FORMAT.md) under the next number, a
    /// mutation when a mutation was refused: what replay reads from there to the stream's next snapshot would not be
    /// its states. The stream's own handle asked for that snapshot when its mutation was refused.
    /// Returns what the owner is told once `mutex` is let go (``report(_:)``).
    private func resumed() -> WriteResumption? {
        let overcome = failure
        failure = nil
        retriesEnded += 1
        var marked: [WriteResumption.RefusedAppends] = []
        for (stream, refusal) in refused.sorted(by: { ($0.value.first, $0.key) < ($1.value.first, $1.key) }) {
            let marker = EntryRecord.Pending(
                sequence: nextSequence, streamID: stream, kind: refusal.mutations > 0 ? .mutation : .action, codec: .none,
                timestamp: refusal.first, cause: 0, caseName: MissingValue.unwritten.rawValue, payload: [])
            // The stream's name from the descriptors this writer keeps (no read: it knows every stream of the log).
            marked.append(WriteResumption.RefusedAppends(
                stream: (try? storage.stream(id: stream))?.name ?? "stream \(stream)", entries: refusal.entries,
                mutations: refusal.mutations, firstRefusedAt: refusal.first, lastRefusedAt: refusal.last, unwrittenEntry: nextSequence))
            nextSequence += 1
            queue.append(.entry(marker))
            queuedEntries += 1
            queuedBytes += marker.size
            enqueuedTicket += 1
        }
        refused = [:]
        committedChanged.broadcast()
        guard let overcome, !marked.isEmpty || onResumed != nil else { return nil }
        return WriteResumption(failure: overcome, refused: marked)
    }

    /// Pins each `unwritten` entry with what it stands for, which its record has no room for, and tells the owner that
    /// writing resumed (writer thread, not holding `mutex`: the owner's code may append).
    private func report(_ resumption: WriteResumption?) {
        guard let resumption else { return }
        if storage.pins != nil, !resumption.refused.isEmpty {
            // Its own transaction, before the entries' commit: a pin may name a number not yet written. A failure to
            // write it loses only the note; the owner still gets the counts.
            try? storage.write { txn in
                for appends in resumption.refused {
                    let entry = appends.unwrittenEntry
                    try storage.writePin(LogPin(range: entry...entry, reason: appends.pinReason, createdAt: WallClock.now()), txn)
                }
            }
        }
        onResumed?(resumption)
    }

    /// Retries the writes a failure stopped, at once, and waits for the outcome: returns once the queue and an
    /// `unwritten` entry for each stream whose appends were refused are committed, or throws the failure that stops
    /// the writer still. Does nothing while the writer is healthy.
    func resume() throws(EventLogError) {
        mutex.lock()
        defer { mutex.unlock() }
        guard hasFailed else { return }
        if closing { throw .closed(path: storage.path) }
        let attempt = retriesEnded
        retryRequested = true
        workAvailable.signal()
        while retriesEnded == attempt && !finished {
            committedChanged.wait(mutex)
        }
        if let failure { throw failure }
        try waitForCommit(of: enqueuedTicket)
    }

    /// How many entries may wait after a commit that wrote to `streamsWritten` streams: 64 for each, at least the
    /// configured `base` and at most four times it. A commit rewrites the page holding each such stream's last index
    /// block whatever it adds there, so entries spread over many streams (a server's sessions) cost far less in
    /// larger commits; the writer takes everything queued, so a larger queue is what makes them larger.
    static func entryCapacity(base: Int, streamsWritten: Int) -> Int {
        min(4 * base, max(base, 64 * streamsWritten))
    }

    /// How many entries may wait for the writer now (for tests).
    var currentEntryCapacity: Int { mutex.withLock { capacity } }

    /// Whether the queue holds half the entries or bytes it may (holding `mutex`): the writer then gathers no longer.
    private var queueHalfFull: Bool { queuedEntries >= capacity / 2 || queuedBytes >= byteCapacity / 2 }

    /// Lets appends gather (holding `mutex`) until the commit interval has passed since the last commit began,
    /// unless something waits for a commit, the queue is half full or the log is closing.
    private func gather() {
        guard let intervalEnd else { return }
        while !queue.isEmpty && !closing && failure == nil && awaitedTicket <= committedTicket && !queueHalfFull {
            let remaining = intervalEnd - .now
            guard remaining > .zero else { return }
            gathering = true
            workAvailable.wait(mutex, for: remaining)
            gathering = false
        }
    }

    /// Drops the retiring encoders whose last items are committed through `ticket` (holding `mutex`).
    private func retire(through ticket: UInt64) {
        // One still among `added` named no entry (those it named would have needed it in `encoders`).
        for (id, last) in retiring where last <= ticket {
            if added.removeValue(forKey: id) == nil { encoders[id.number] = nil }
        }
        retiring.removeAll { $0.ticket <= ticket }
    }

    /// How many entries one maintenance step may remove when nothing waits to be committed.
    static let idleMaintenanceEntries = 8192

    /// How many entries the maintenance step in the next commit may remove, or `nil` when none is due: at most
    /// every 64 KiB committed or 100 ms, or at once while work remains. While appends wait, a step removes at
    /// most twice what was committed since the last, so it keeps up with them and adds no sync of its own.
    private func maintenanceAllowance() -> Int? {
        let pending = mutex.withLock { maintenancePending }
        guard pending || bytesSinceMaintenance >= 64 << 10 || ContinuousClock.now - lastMaintenance >= .milliseconds(100) else { return nil }
        let allowance = min(Self.idleMaintenanceEntries, max(512, 2 * entriesSinceMaintenance))
        bytesSinceMaintenance = 0
        entriesSinceMaintenance = 0
        lastMaintenance = .now
        return allowance
    }

    /// Catches up while nothing waits to be committed: steps in transactions of their own until the work is done
    /// or appends arrive.
    private func maintainWhileIdle(_ maintain: Maintenance?) {
        var more = false
        if let maintain {
            for _ in 0..<8 {
                more = committer.maintain(maintain, allowance: Self.idleMaintenanceEntries)
                guard more, mutex.withLock({ queue.isEmpty }) else { break }
            }
        }
        mutex.withLock { maintenancePending = more }
    }

    /// Why a commit failed, for ``EventLogError/writeFailed(path:lastCommitted:unwritten:underlying:)``: LMDB's words,
    /// and where the file system refused a write, the room it has left. A write cut short (a disk that filled as LMDB
    /// wrote a page) reaches LMDB as an I/O error, which alone reads as a broken disk.
    private static func reason(_ error: EventLogError, path: String) -> String {
        guard case .storage(_, let lmdb) = error else { return error.description }
        guard [EIO, ENOSPC, EFBIG, EDQUOT].contains(lmdb.code), let free = freeSpace(at: path) else { return lmdb.description }
        return "\(lmdb.description), with \(free) free on its file system"
    }

    /// The bytes an unprivileged process may still write on the file system holding `path`, in words.
    private static func freeSpace(at path: String) -> String? {
        var status = statvfs()
        guard statvfs(path, &status) == 0 else { return nil }
        let bytes = UInt64(status.f_bavail) * UInt64(status.f_frsize)
        return bytes < 1 << 20 ? "\(bytes) bytes" : bytes < 1 << 30 ? "\(bytes >> 20) MiB" : "\(bytes >> 30) GiB"
    }
}

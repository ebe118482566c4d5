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
    // `indexTips` belongs to the writer thread alone. Everything else is immutable. The mutex already makes
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

    /// The index's largest key and each stream's last block written (writer thread only).
    private var indexTips: StreamIndex.Tips
    /// Call sites already in `sites`, by text and by the address of the compiler's file name and the line, so that
    /// a known site costs one lookup and no formatting (writer thread only, so unchecked, as `recentSourceSites`).
    @exclusivity(unchecked) private var siteIDs: [String: UInt32]
    @exclusivity(unchecked) private var sourceSiteIDs: [SourceSite: UInt32] = [:]
    /// The number the next new call site gets: one above every number in `sites`, damaged records included.
    private var nextSiteID: UInt32

    private struct SourceSite: Hashable {
        let file: UInt
        let line: UInt
    }
    /// Committed sites by the address and line hashed to one of 64 slots, looked at before `sourceSiteIDs`: hashing a
    /// site for the dictionary cost every action about 250 instructions, and an app sends from a few places. Writer
    /// thread only, so unchecked: the runtime's exclusivity check of a class's property cost each look 75 more.
    @exclusivity(unchecked) private var recentSourceSites = [(site: SourceSite, id: UInt32)](repeating: (SourceSite(file: 0, line: 0), 0), count: 64)
    /// The buffer a batch's payloads are encoded into, kept from batch to batch (writer thread only).
    private var spareBytes = ByteBuffer(capacity: EncodedBatch.initialBuffer)
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
    /// The items of the commit that failed, its entries and bytes: they go back to the front of the queue (writer
    /// thread only).
    private var failedBatch: (items: [WriteItem], entries: Int, bytes: Int)?
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
        let (highest, floor, lastIndex) = try storage.read { txn in
            let highest = try storage.highestEntry(txn) ?? 0
            let floor = try txn.get(storage.meta, key: Array(LogLayout.MetaKey.sequenceFloor.utf8))
                .flatMap { UInt64(String(decoding: $0, as: UTF8.self)) } ?? 0
            return (highest, floor, try storage.index.lastKey(txn) ?? (0, 0))
        }
        let sites = try storage.callSites()
        siteIDs = sites.reduce(into: [:]) { $0[$1.value] = $1.key }
        nextSiteID = try storage.highestSiteNumber() + 1
        lastCommittedSequence = max(highest, floor)
        nextSequence = lastCommittedSequence + 1
        indexTips = StreamIndex.Tips(lastKey: lastIndex)
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
        guard let info = storage.reserveStream(template) else { return nil }
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
                    for _ in 0..<64 where maintainAlone(maintain, Self.idleMaintenanceEntries) {}
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
            let result: Result<Committed, EventLogError>
            do {
                // Consumed, so that the writer holds no encoder past the commit: one retired after it is let go.
                result = .success(try commit(&batch, entryCount: unwritten, encoders: consume encoders, maintaining: step))
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
                if let back = failedBatch {
                    queue.insert(contentsOf: back.items, at: 0)
                    queuedEntries += back.entries
                    queuedBytes += back.bytes
                    failedBatch = nil
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
                more = maintainAlone(maintain, Self.idleMaintenanceEntries)
                guard more, mutex.withLock({ queue.isEmpty }) else { break }
            }
        }
        mutex.withLock { maintenancePending = more }
    }

    /// One maintenance step in a transaction of its own; whether more remains. A step that fails is undone.
    private func maintainAlone(_ maintain: Maintenance, _ allowance: Int) -> Bool {
        do {
            return try storage.write { txn in try maintain(txn, allowance) }
        } catch {
            maintenanceUndone()
            return false
        }
    }

    /// After a maintenance step's transaction was undone: stream descriptors it cached were never committed.
    private func maintenanceUndone() {
        _ = try? storage.reloadStreams()
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

    /// What a commit wrote: its last sequence number, whether maintenance remains (`nil` when no step ran), and how
    /// many streams' index it wrote to.
    private struct Committed {
        var last: UInt64?
        var more: Bool?
        var streams: Int
    }

    /// Writes `batch`, which holds `entryCount` entries, in one transaction (growing the map and redoing it when full),
    /// then, when `step` is given, a maintenance step in the same transaction.
    private func commit(
        _ batch: inout [WriteItem], entryCount: Int, encoders: NumberTable<DeferredEncoding>, maintaining step: (Maintenance, Int)?
    ) throws(EventLogError) -> Committed {
        // Encoding happens here, on the writer thread, before the write transaction: senders only queued values.
        // The buffer comes back after a commit; one that throws leaves an empty one, which allocates when used.
        var buffer = ByteBuffer(capacity: 0)
        swap(&buffer, &spareBytes)
        var encoded = EncodedBatch(&batch, entryCount: entryCount, encoders: encoders, into: buffer)
        let lastSequence = encoded.entries.last?.sequence
        var newSites: [String: UInt32] = [:]
        var newSourceSites: [SourceSite: UInt32] = [:]
        var more: Bool?
        var streamsWritten = 0
        var stepFailed = false
        // The batch is passed, not captured: a local function's capture could not be consumed after (by `takePayloads`).
        func writeBatch(_ encoded: inout EncodedBatch, maintaining step: (Maintenance, Int)?) throws(EventLogError) -> StreamIndex.Tips {
            try storage.write { txn in
                for info in encoded.streams {
                    try txn.put(storage.streams, key: KeyCoding.stream(info.id), value: StreamRecord.encode(info), flags: .noOverwrite)
                }
                var tips = self.indexTips
                var indexed = IndexItems(capacity: encoded.entries.count)
                // Sites new in this transaction, made afresh when the body runs again (the map had to grow), and
                // kept in locals until the end: the captured variables would cost an access check per entry.
                var sites: [String: UInt32] = [:], sourceSites: [SourceSite: UInt32] = [:]
                // In place: each entry is lent to `write` where it lies, not copied out of the array. One cursor
                // appends them all, in blocks.
                try txn.withCursor(storage.entries) { cursor in
                    var appender = try EntryAppender(cursor)
                    try encoded.withEntries { entries, payloads in
                        for index in entries.indices {
                            try write(&entries[index], payloads, &appender, txn, &indexed, &sites, &sourceSites)
                        }
                    }
                    try appender.finish()
                }
                (newSites, newSourceSites) = (sites, sourceSites)
                for index in encoded.snapshots.indices {
                    try write(encoded.snapshots[index], txn)
                }
                // The index takes each stream's entries at once: its last block is rewritten once a commit.
                let byStream = indexed.byStream()
                try storage.index.append(txn, byStream.items, streams: byStream.streams, tips: &tips)
                streamsWritten = byStream.streams.count
                if let (maintain, allowance) = step {
                    do {
                        more = try maintain(txn, allowance)
                    } catch let error as LMDBError where error.isMapFull || error.isMapResized {
                        throw error
                    } catch {
                        stepFailed = true
                        throw error
                    }
                }
                return tips
            }
        }
        let tips: StreamIndex.Tips
        do throws(EventLogError) {
            do {
                tips = try writeBatch(&encoded, maintaining: step)
            } catch {
                // A failed step undid the whole transaction: write the batch again, without it.
                guard stepFailed else { throw error }
                maintenanceUndone()
                more = nil
                tips = try writeBatch(&encoded, maintaining: nil)
            }
        } catch {
            // Nothing of it was committed: it is kept, to be written when writing resumes.
            failedBatch = encoded.requeued()
            throw error
        }
        indexTips = tips
        if !encoded.streams.isEmpty { storage.committedStreams(encoded.streams.map(\.id)) }
        siteIDs.merge(newSites) { old, _ in old }
        nextSiteID += UInt32(newSites.count)
        sourceSiteIDs.merge(newSourceSites) { old, _ in old }
        let needsSync = encoded.needsSync
        spareBytes = encoded.takePayloads(keepingAtMost: EncodedBatch.largestKeptBuffer(entries: capacity))
        if needsSync && durability == .noSync {
            try storage.storage { () throws in try storage.environment.sync(force: true) }
        }
        return Committed(last: lastSequence, more: more, streams: streamsWritten)
    }

    private func write(_ snapshot: Snapshot, _ txn: Transaction) throws {
        let key = KeyCoding.streamSequence(snapshot.streamID, snapshot.sequence)
        try key.withUnsafeBytes { key in
            try txn.reserve(storage.snapshots, key: key, size: SnapshotRecord.size(stateBytes: snapshot.state.count)) {
                SnapshotRecord.write(snapshot, into: $0)
            }
        }
    }

    /// Appends `entry` to its block and its index item to `indexed`. The entry is `inout` though it is only read: so
    /// it is read where it lies in the batch; passed by value out of the batch's buffer it was copied first.
    private func write(
        _ entry: inout EntryRecord.Encoded, _ payloads: UnsafeRawBufferPointer, _ entries: inout EntryAppender, _ txn: Transaction,
        _ indexed: inout IndexItems, _ newSites: inout [String: UInt32], _ newSourceSites: inout [SourceSite: UInt32]
    ) throws {
        try entries.append(entry, payload: UnsafeRawBufferPointer(rebasing: payloads[entry.payload]))
        // An action's call site goes into the index as the number of an interned text in `sites`.
        var item = StreamIndex.Item(sequence: entry.sequence, kind: entry.kind.rawValue)
        if let site = entry.callSite, let id = try siteID(site, txn, &newSites, &newSourceSites) { item.site = id }
        indexed.append(item, stream: entry.streamID)
    }

    /// A commit's index items, gathered by stream. Items are appended as they come, and each run of one stream's items
    /// is noted where it starts; at the end the runs are moved together by stream (a counting sort of runs), the
    /// streams in the order they first appear. A commit to one stream is one run, handed on as it is. Where an array
    /// for each stream took its items, a batch that alternates between a server's many sessions swapped arrays in
    /// and out every few entries.
    private struct IndexItems {
        private var items: [StreamIndex.Item] = []
        /// Where each run starts in `items`, and its stream's number in `streams`.
        private var runs: [(start: Int, group: Int32)] = []
        /// Each stream, in the order they first appear.
        private var streams: [UInt32] = []
        /// Each stream's number in `streams`, looked up when a run starts.
        private var groups = NumberTable<Int32>()
        private var current: UInt32?

        /// Room for `capacity` items.
        init(capacity: Int) { items.reserveCapacity(capacity) }

        mutating func append(_ item: StreamIndex.Item, stream: UInt32) {
            if current != stream { startRun(stream) }
            items.append(item)
        }

        private mutating func startRun(_ stream: UInt32) {
            current = stream
            let group: Int32
            if let known = groups[stream] {
                group = known
            } else {
                group = Int32(streams.count)
                groups[stream] = group
                streams.append(stream)
            }
            runs.append((items.count, group))
        }

        /// Each stream's items, in the order streams first appear: all of them in `items`, each stream's in its range.
        consuming func byStream() -> (items: [StreamIndex.Item], streams: [(stream: UInt32, range: Range<Int>)]) {
            guard runs.count > 1 else { return (items, streams.map { ($0, items.indices) }) }
            func end(ofRun index: Int) -> Int { index + 1 < runs.count ? runs[index + 1].start : items.count }
            // Each stream's item count, then where its items start.
            var starts = [Int](repeating: 0, count: streams.count)
            for index in runs.indices { starts[Int(runs[index].group)] += end(ofRun: index) - runs[index].start }
            var ranges: [(stream: UInt32, range: Range<Int>)] = []
            ranges.reserveCapacity(streams.count)
            var start = 0
            for (group, stream) in streams.enumerated() {
                let count = starts[group]
                starts[group] = start
                ranges.append((stream, start..<start + count))
                start += count
            }
            let sorted = [StreamIndex.Item](unsafeUninitializedCapacity: items.count) { sorted, initialized in
                items.withUnsafeBufferPointer { items in
                    for index in runs.indices {
                        let run = runs[index].start..<end(ofRun: index), group = Int(runs[index].group)
                        (sorted.baseAddress! + starts[group]).initialize(from: items.baseAddress! + run.lowerBound, count: run.count)
                        starts[group] += run.count
                    }
                }
                initialized = items.count
            }
            return (sorted, ranges)
        }
    }

    /// The number of call site `site`, interned in `sites` in this transaction when it is new; `nil` in a log
    /// without that database.
    private func siteID(
        _ site: EntryRecord.Site, _ txn: Transaction, _ newSites: inout [String: UInt32], _ newSourceSites: inout [SourceSite: UInt32]
    ) throws -> UInt32? {
        guard case .source(let fileID, let line) = site, fileID.hasPointerRepresentation else {
            return try siteID(text: site.text, txn, &newSites)
        }
        let key = SourceSite(file: UInt(bitPattern: fileID.utf8Start), line: line)
        let slot = Int(truncatingIfNeeded: (key.file >> 4) ^ (key.line &* 31)) & (recentSourceSites.count - 1)
        // A file's address is never 0, so an empty slot matches nothing.
        if recentSourceSites[slot].site == key { return recentSourceSites[slot].id }
        if let id = sourceSiteIDs[key] {
            recentSourceSites[slot] = (key, id)
            return id
        }
        if let id = newSourceSites[key] { return id }
        let id = try siteID(text: site.text, txn, &newSites)
        newSourceSites[key] = id
        return id
    }

    private func siteID(text site: String, _ txn: Transaction, _ newSites: inout [String: UInt32]) throws -> UInt32? {
        if let id = siteIDs[site] ?? newSites[site] { return id }
        guard let sites = storage.sites else { return nil }
        let id = nextSiteID + UInt32(newSites.count)
        try txn.put(sites, key: KeyCoding.stream(id), value: SiteRecord.encode(site))
        newSites[site] = id
        return id
    }
}

import Foundation
import LMDB

extension EventLog {
    /// The entry with sequence number `sequence`, or `nil` when there is none (never written, or trimmed).
    public func entry(at sequence: UInt64) throws(EventLogError) -> LogEntry? {
        try entries(at: [sequence])[0]
    }

    /// The entries with the sequence numbers `sequences`, in their order, `nil` for each that has none (never
    /// written, or trimmed). Looking up many at once pays for one short read transaction per 1,024 entries, not
    /// one per entry.
    public func entries(at sequences: [UInt64]) throws(EventLogError) -> [LogEntry?] {
        var found: [LogEntry?] = []
        found.reserveCapacity(sequences.count)
        var names = storage.cachedStreams
        var start = 0
        while start < sequences.count {
            let chunk = sequences[start..<min(start + EntryIterator.chunkSize, sequences.count)]
            let raw: [RawEntry?] = try storage.read { txn in
                try txn.withCursor(storage.entries) { cursor in
                    var entries = EntryCursor(cursor)
                    return try chunk.map { sequence in try entries.entry(sequence).map { try RawEntry($0.header, $0.bytes) } }
                }
            }
            for entry in raw { found.append(try entry.map { (entry) throws(EventLogError) in try entry.entry(names: &names, storage: storage) }) }
            start = chunk.endIndex
        }
        return found
    }

    /// An iterator over the entries `query` selects; see ``EntryIterator``.
    public func entries(_ query: EntryQuery = EntryQuery()) -> EntryIterator {
        EntryIterator(storage: storage, query: query)
    }

    /// The entries `query` selects, read into an array. Prefer ``entries(_:)`` for large ranges.
    public func readEntries(_ query: EntryQuery = EntryQuery()) throws(EventLogError) -> [LogEntry] {
        var iterator = entries(query)
        var result: [LogEntry] = []
        while let entry = try iterator.next() { result.append(entry) }
        return result
    }

    /// The highest sequence number the log has assigned: the last entry's, or higher after trimming.
    /// 0 for an empty log.
    public func highestSequence() throws(EventLogError) -> UInt64 {
        let last = try storage.read { txn in try storage.highestEntry(txn) ?? 0 }
        let floor = try storage.metaValue(LogLayout.MetaKey.sequenceFloor).flatMap { UInt64($0) } ?? 0
        return max(last, floor, writer?.committedSequence ?? 0)
    }

    /// The entries of stream `name` (of every stream, `nil`) a key that lost bytes hides past the end of a walk over
    /// the log, and that damage; `nil` when none are hidden. Readers that read past damage ask once their walk ends,
    /// since the walk ends there without an error.
    package func hiddenTail(stream name: String?) throws(EventLogError) -> (numbers: ClosedRange<UInt64>, damage: EventLogError)? {
        let id = try name.map { (name) throws(EventLogError) -> UInt32 in
            guard let info = try storage.stream(named: name) else { throw .unknownStream(name: name) }
            return info.id
        }
        return try storage.read { txn in try storage.hiddenTail(txn, stream: id) }
    }

    /// The highest sequence number of stream `name`: 0 for an unknown or empty stream; never lowered by trimming.
    public func highestSequence(stream name: String) throws(EventLogError) -> UInt64 {
        guard let info = try storage.stream(named: name) else { return 0 }
        return max(try lastSequence(stream: name, atOrBefore: .max) ?? 0, info.sequenceFloor)
    }

    /// The sequence number of stream `name`'s last entry at or before `sequence` and after `floor`, of `kinds` when
    /// given, from the stream index (its blocks from the one before the answer's checked as ``sequences(stream:kinds:from:through:)``
    /// checks them; from the entries when the index is damaged); `nil` when the stream holds none there (an unknown
    /// stream, entries a trim removed, none of those kinds). Only mutations change a stream's state, so the last
    /// mutation at or before a step is where that step's state was reached: bisect probes it.
    public func lastSequence(
        stream name: String, kinds: Set<EntryKind>? = nil, atOrBefore sequence: UInt64, after floor: UInt64 = 0
    ) throws(EventLogError) -> UInt64? {
        guard let info = try storage.stream(named: name), sequence > floor else { return nil }
        let wanted = kinds.map(KindMask.init)
        return try bypassingDamage(toIndexOf: info, kinds: kinds, from: floor + 1, through: sequence) { () throws(EventLogError) in
            let found = try storage.read { txn in
                try storage.index.last(
                    txn, stream: info.id, where: { wanted?.contains($0) ?? true }, atOrBefore: sequence, after: floor)?.sequence
            }
            // Found from one block (or a few, stepping back), which a moved key would have shifted: the answer is the
            // checked walk's, from the block before it.
            var last: UInt64?
            try storage.forEachCheckedItem(stream: info.id, around: found, from: floor + 1, through: sequence) { item in
                if wanted?.contains(item.kind) ?? true { last = item.sequence }
            }
            return last
        } scanned: { entries throws(EventLogError) in
            // Entries that cannot be read are passed over: one of the stream's found after them is the answer all
            // the same. Damage after the last found may hide a later one of them, and is thrown.
            var last: UInt64?
            var hiding: EventLogError?
            while true {
                do throws(EventLogError) {
                    try entries.forEachItem { item in
                        (last, hiding) = (item.sequence, nil)
                        return true
                    }
                    break
                } catch {
                    guard try entries.skip(past: error) != nil else { throw error }
                    hiding = error
                }
            }
            if let hiding { throw hiding }
            return last
        }
    }

    /// The sequence number of the first of stream `name`'s latest `count` entries at or before `sequence` (all of them
    /// when it holds fewer), from the stream index, checked as in ``lastSequence(stream:kinds:atOrBefore:after:)`` (from
    /// the entries when the index is damaged): where a tail of the stream starts. `nil` when the stream holds no entry
    /// there, or `count` is not positive.
    public func firstOfLatest(_ count: Int, stream name: String, atOrBefore sequence: UInt64 = .max) throws(EventLogError) -> UInt64? {
        guard count > 0, let info = try storage.stream(named: name) else { return nil }
        // The latest `count` numbers are the last `count` of `recent` from `start`, the ones before dropped now and then.
        var recent: [UInt64] = []
        var start = 0
        func keep(_ item: StreamIndex.Item) {
            recent.append(item.sequence)
            if recent.count - start > count { start += 1 }
            if start >= 4096 && start * 2 >= recent.count {
                recent.removeFirst(start)
                start = 0
            }
        }
        return try bypassingDamage(toIndexOf: info, from: 1, through: sequence) { () throws(EventLogError) in
            let found = try storage.read { txn in
                try storage.index.firstOfLatest(txn, stream: info.id, count: count, atOrBefore: sequence)?.sequence
            }
            // As in `lastSequence`: the checked walk's answer, from the block before the one found.
            try storage.forEachCheckedItem(stream: info.id, around: found, from: 1, through: sequence, keep)
            return start < recent.count ? recent[start] : nil
        } scanned: { entries throws(EventLogError) in
            (recent, start) = ([], 0)
            try entries.forEachItem { item in
                keep(item)
                return true
            }
            return start < recent.count ? recent[start] : nil
        }
    }

    /// Where each of stream `name`'s actions from `from` through `through` was sent from (`send`'s file and line,
    /// such as `MyApp/CheckoutView.swift:42`), by sequence number; actions recorded without one are left out.
    /// Read from the stream index and the interned sites alone. Throws ``EventLogError/corruptEntry(sequence:reason:)``
    /// for an action whose site the log does not hold intact.
    public func callSites(stream name: String, from: UInt64 = 1, through: UInt64 = .max) throws(EventLogError) -> [UInt64: String] {
        guard let info = try storage.stream(named: name) else { throw .unknownStream(name: name) }
        var found: [UInt64: String] = [:]
        try storage.forEachIndexChunk(stream: info.id, from: from, through: through) { (chunk) throws(EventLogError) in
            for key in chunk where key.site != 0 { found[key.sequence] = try storage.siteText(key.site, of: key.sequence) }
        }
        return found
    }

    /// Whether any action of the log may record a call site: the log holds some, or has no `sites` database at all. Every
    /// writer makes one, so a log without it is one of the first releases', whose actions name no site, or one whose main
    /// database lost its record to a bad bit: the actions' site numbers in the streams' indexes then tell, and a lookup
    /// of one throws, rather than a listing leaving every site out without a word.
    public func hasCallSites() throws(EventLogError) -> Bool {
        guard storage.sites != nil else { return true }
        return try storage.highestSiteNumber() > 0
    }

    /// Where the action numbered `sequence` was sent from, or `nil` (another kind of entry, or none recorded); a site
    /// the log does not hold intact throws, as in ``callSites(stream:from:through:)``.
    public func callSite(at sequence: UInt64) throws(EventLogError) -> String? {
        guard let entry = try entry(at: sequence) else { return nil }
        return try callSite(of: entry)
    }

    /// Where `entry`, an action read from this log, was sent from, or `nil`: one index lookup.
    public func callSite(of entry: LogEntry) throws(EventLogError) -> String? {
        guard entry.kind == .action, let info = try storage.stream(named: entry.stream) else { return nil }
        return try storage.callSite(stream: info.id, sequence: entry.sequence)
    }

    /// The entries of stream `name` that entry `action` caused (the mutations and effect errors of its effect), in
    /// order, at most `limit`. They are read in place after it, each copied only when it names `action`, up to the
    /// stream's next resumption: a later run of the app, whose effects cannot name it.
    public func entries(causedBy action: UInt64, stream name: String, limit: Int = .max) throws -> [LogEntry] {
        struct Enough: Error {}
        var found: [LogEntry] = []
        guard limit > 0 else { return found }
        do {
            try forEachEntry(EntryQuery(from: action + 1, stream: name)) { view in
                if view.kind == .streamResumed { throw Enough() }
                guard view.cause == action else { return }
                found.append(LogEntry(copying: view))
                if found.count == limit { throw Enough() }
            }
        } catch is Enough {}
        return found
    }

    /// The sequence numbers of stream `name`'s entries of `kinds` from `from` through `through`, read from the
    /// stream index: no entry is decoded, so listing a million steps takes milliseconds. Only where the index leaves
    /// out a stretch of the log are entries read (the first few of the stretch, and the one at the next block's
    /// key), so that a block whose key was moved to another number is refused, not listed as other numbers. When
    /// the index is damaged, the entries are read instead.
    public func sequences(stream name: String, kinds: Set<EntryKind>, from: UInt64 = 1, through: UInt64 = .max) throws(EventLogError) -> [UInt64] {
        guard let info = try storage.stream(named: name) else { throw .unknownStream(name: name) }
        let wanted = KindMask(kinds)
        return try bypassingDamage(toIndexOf: info, kinds: kinds, from: from, through: through) { () throws(EventLogError) in
            var found: [UInt64] = []
            try storage.forEachIndexChunk(stream: info.id, from: from, through: through) { chunk in
                for key in chunk where wanted.contains(key.kind) { found.append(key.sequence) }
            }
            return found
        } scanned: { entries throws(EventLogError) in
            var found: [UInt64] = []
            try entries.forEachItem { item in
                found.append(item.sequence)
                return true
            }
            return found
        }
    }

    /// How many entries stream `name` holds and its first and last sequence numbers, read from the stream
    /// index alone (no entry is decoded), or from the entries when the index is damaged.
    public func statistics(stream name: String) throws(EventLogError) -> StreamStatistics {
        guard let info = try storage.stream(named: name) else { throw .unknownStream(name: name) }
        var statistics = StreamStatistics()
        // Counted by kind byte, not in the dictionary: hashing every entry's kind was a third of `info`'s time.
        var counts = [Int](repeating: 0, count: 256)
        try bypassingDamage(toIndexOf: info, from: 1, through: .max) { () throws(EventLogError) in
            try storage.forEachIndexChunk(stream: info.id) { chunk in
                statistics.entries += chunk.count
                if statistics.first == nil { statistics.first = chunk.first?.sequence }
                statistics.last = chunk.last?.sequence ?? statistics.last
                for key in chunk { counts[Int(key.kind)] += 1 }
            }
        } scanned: { entries throws(EventLogError) in
            (statistics, counts) = (StreamStatistics(), [Int](repeating: 0, count: 256))
            try entries.forEachItem { item in
                statistics.entries += 1
                statistics.first = statistics.first ?? item.sequence
                statistics.last = item.sequence
                counts[Int(item.kind)] += 1
                return true
            }
        }
        for kind in EntryKind.allCases where counts[Int(kind.rawValue)] > 0 {
            statistics.kinds[kind] = counts[Int(kind.rawValue)]
        }
        return statistics
    }

    /// The latest snapshot of stream `name` at or before `sequence` (one seek), or `nil`.
    ///
    /// With `passingOverDamage`, damage ``verify(progress:)`` reports (a snapshot's record, or the keys around it)
    /// does not stop the read: the latest snapshot that reads serves instead, which rebuilds the same state from more
    /// mutations. It still throws when entries between that one and `sequence` are gone (trimmed, or a gap retention
    /// left), which only the damaged snapshot could bridge.
    public func latestSnapshot(stream name: String, atOrBefore sequence: UInt64, passingOverDamage: Bool = false) throws(EventLogError) -> Snapshot? {
        guard let info = try storage.stream(named: name) else { throw .unknownStream(name: name) }
        return try latestSnapshot(stream: info, atOrBefore: sequence, orEarlier: passingOverDamage)
    }

    /// The snapshot of stream `name` stored at exactly `sequence`, or `nil` when there is none: one lookup of its key,
    /// so damage elsewhere among the stream's snapshots does not stop it. Throws
    /// ``EventLogError/corruptSnapshot(stream:sequence:reason:)`` when its record is damaged. When its key is not
    /// there, one seek tells whether the keys around it are damaged, and only then are they read to find it under a
    /// key of the wrong length, where its record places it.
    public func snapshot(stream name: String, at sequence: UInt64) throws(EventLogError) -> Snapshot? {
        guard let info = try storage.stream(named: name) else { throw .unknownStream(name: name) }
        return try storage.read { txn in
            let key = KeyCoding.streamSequence(info.id, sequence)
            func decode(_ record: UnsafeRawBufferPointer) throws(EventLogError) -> Snapshot {
                try SnapshotRecord.decode(streamID: info.id, sequence: sequence, streamName: info.name, record: record)
            }
            if let record = try txn.get(storage.snapshots, key: key) { return try decode(record) }
            return try txn.withCursor(storage.snapshots) { cursor -> Snapshot? in
                var keys = StreamKeyCursor(cursor, stream: info.id, .records("snapshot"))
                do {
                    _ = try keys.seek(atOrBefore: sequence)
                    return nil
                } catch EventLogError.corruptKeys {
                    let found = try keys.scan(atOrBefore: sequence, placing: SnapshotRecord.recordedPosition).found.first
                    guard let found, found.sequence == sequence else { return nil }
                    return try decode(found.value)
                }
            }
        }
    }

    /// A snapshot under a key of the wrong length is read where its record places it: when every key reads or is
    /// placed so, the latest is the one a sound tree gives. With `orEarlier`, other damage that `verify` reports
    /// (snapshot keys out of order, a snapshot's record) does not stop a rebuild either: the latest intact snapshot a
    /// read of every key finds serves instead, since replaying more mutations from an earlier one rebuilds the same
    /// state, unless entries on the way are gone (a trim's, or a gap retention left), which only the damaged snapshot
    /// could bridge. The damage passed over so is kept (``passedOverSnapshotDamage``).
    func latestSnapshot(stream info: StreamInfo, atOrBefore sequence: UInt64, orEarlier: Bool = false) throws(EventLogError) -> Snapshot? {
        try storage.read { txn in
            try txn.withCursor(storage.snapshots) { cursor -> Snapshot? in
                var keys = StreamKeyCursor(cursor, stream: info.id, .records("snapshot"))
                func decode(_ found: StreamKeyCursor.Found) throws(EventLogError) -> Snapshot {
                    try SnapshotRecord.decode(streamID: info.id, sequence: found.sequence, streamName: info.name, record: found.value)
                }
                do {
                    guard let found = try keys.seek(atOrBefore: sequence) else { return nil }
                    return try decode(found)
                } catch var damage as EventLogError {
                    let keysDamaged = if case .corruptKeys = damage { true } else { false }
                    guard keysDamaged || orEarlier else { throw damage }
                    let scan = try keys.scan(atOrBefore: sequence, placing: SnapshotRecord.recordedPosition)
                    if keysDamaged, scan.isWhole, !orEarlier { return try scan.found.first.map(decode) }
                    guard orEarlier else { throw damage }
                    // The latest snapshot that reads, each decoded once. With every key read or placed, the keys are a
                    // sound tree's: what counts is then the latest record's damage, as under a sound key (a trimmed
                    // stream's base then costs the states before the next).
                    var earlier: Snapshot?
                    // What the rebuild passes over: a snapshot that does not read, or keys that hide where the latest is.
                    var passedOver = keysDamaged && !scan.isWhole ? damage : nil
                    for (index, found) in scan.found.enumerated() {
                        do throws(EventLogError) {
                            earlier = try decode(found)
                            break
                        } catch {
                            if index == 0, keysDamaged, scan.isWhole { damage = error }
                            passedOver = passedOver ?? error
                        }
                    }
                    let gaps = try storage.gapRanges(txn, stream: info.id)
                    let from = earlier?.sequence ?? 0
                    if earlier == nil && info.sequenceFloor > 0 || gaps.contains(where: { $0.lowerBound > from && $0.lowerBound <= sequence }) {
                        throw damage
                    }
                    if let passedOver { storage.notePassedOver(passedOver, stream: info.id) }
                    return earlier
                }
            }
        }
    }

    /// Damage among snapshots that rebuilds of this log in this process passed over, rebuilding from an earlier snapshot
    /// instead (``recoveryPoint(stream:atOrBefore:)``): the first found in each stream, in order of stream id. Every state
    /// so rebuilt is the one the damaged snapshot held; what it costs is time. ``verify(progress:)`` reports all of it.
    public var passedOverSnapshotDamage: [EventLogError] {
        storage.passedOverSnapshotDamage
    }

    /// The sequence numbers of every snapshot of stream `name`, in order.
    ///
    /// A snapshot under a key of the wrong length (which ``verify(progress:)`` names) is listed where its record places
    /// it. Other damage among the keys (out of order, or of the wrong length with a damaged record) throws
    /// ``EventLogError/corruptKeys(streamID:records:reason:)``, so that a list is never cut short unnoticed. With
    /// `passingOverDamage`, every key is read in the order of the database's pages instead, and the snapshot under a
    /// key that neither reads nor is placed is the only one left out.
    public func snapshotSequences(stream name: String, passingOverDamage: Bool = false) throws(EventLogError) -> [UInt64] {
        guard let info = try storage.stream(named: name) else { throw .unknownStream(name: name) }
        let listing = try snapshotListing(of: info)
        if let damage = listing.damage, !passingOverDamage { throw damage }
        return listing.sequences
    }

    /// The first snapshot of trimmed stream `name`, its base, where replay starts: the list's first. Where keys damaged
    /// past placing hide some snapshots, the first that reads, when it lies before the stream's first entry: a trim
    /// keeps one snapshot there, the base, and none earlier, so what is hidden lies after it; the damage is then kept as
    /// passed over (``passedOverSnapshotDamage``). Otherwise the base may be among the hidden, and the keys' damage is
    /// thrown. `nil` where the stream has none.
    package func firstSnapshot(ofTrimmed name: String) throws(EventLogError) -> UInt64? {
        guard let info = try storage.stream(named: name) else { throw .unknownStream(name: name) }
        let listing = try snapshotListing(of: info)
        guard let damage = listing.damage else { return listing.sequences.first }
        var entries = entries(EntryQuery(limit: 1, stream: name))
        guard let base = listing.sequences.first, let first = ((try? entries.next()) ?? nil)?.sequence, base < first else {
            throw damage
        }
        storage.notePassedOver(damage, stream: info.id)
        return base
    }

    /// Stream `name`'s snapshots, as ``snapshotSequences(stream:passingOverDamage:)`` lists them, with the damage among
    /// their keys and where the snapshots under keys that neither read nor are placed may lie. For a reader that
    /// compares every recorded state it can, and names the steps whose recorded state it could not (divergence), or
    /// counts what it leaves out (`info`, `export`).
    package func snapshotListing(stream name: String) throws(EventLogError) -> SnapshotListing {
        guard let info = try storage.stream(named: name) else { throw .unknownStream(name: name) }
        return try snapshotListing(of: info)
    }

    /// Stream `info`'s snapshots: those a walk of their keys finds; where damage stops the walk, every key read in the
    /// order of the database's pages, one of the wrong length where its record places it, with that damage unless
    /// every key was read or placed so (the list is then whole), and where the keys that neither read nor are placed
    /// may lie. One walk of the keys, and one scan more only where they are damaged.
    func snapshotListing(of info: StreamInfo) throws(EventLogError) -> SnapshotListing {
        try storage.read { txn in
            try txn.withCursor(storage.snapshots) { cursor in
                var keys = StreamKeyCursor(cursor, stream: info.id, .records("snapshot"))
                do {
                    var sequences: [UInt64] = []
                    var item = try keys.seek(atOrAfter: 0)
                    while let current = item {
                        sequences.append(current.sequence)
                        item = try keys.next()
                    }
                    return SnapshotListing(sequences)
                } catch let damage as EventLogError {
                    guard case .corruptKeys = damage else { throw damage }
                    let scan = try keys.scan(atOrBefore: .max, placing: SnapshotRecord.recordedPosition)
                    return SnapshotListing(scan.ascendingOnce.map(\.sequence), damage: scan.isWhole ? nil : damage, hidden: scan.hidden)
                }
            }
        }
    }

    /// Where to start rebuilding stream `name`'s state right after `sequence`: the latest snapshot at or
    /// before it, or the initial state. Reduce the stream's mutations after ``RecoveryPoint/sequence``
    /// through `sequence` onto it.
    ///
    /// When damage (which ``verify(progress:)`` reports) hides the latest snapshot or spoils its record, an earlier
    /// intact one serves, or the initial state: the same state, rebuilt from more mutations. When entries on the way
    /// from there are gone (trimmed, or a gap retention left), the damage is thrown instead. The damage passed over is
    /// kept in ``passedOverSnapshotDamage``.
    public func recoveryPoint(stream name: String, atOrBefore sequence: UInt64) throws(EventLogError) -> RecoveryPoint {
        guard let info = try storage.stream(named: name) else { throw .unknownStream(name: name) }
        return try recoveryPoint(stream: info, atOrBefore: sequence)
    }

    func recoveryPoint(stream info: StreamInfo, atOrBefore sequence: UInt64) throws(EventLogError) -> RecoveryPoint {
        if let snapshot = try latestSnapshot(stream: info, atOrBefore: sequence, orEarlier: true) {
            return RecoveryPoint(sequence: snapshot.sequence, codec: snapshot.codec, state: snapshot.state)
        }
        return RecoveryPoint(sequence: 0, codec: info.initialStateCodec, state: info.initialState)
    }

    /// The entries `query` selects, then every later one as it is committed, by this process or another.
    ///
    /// The sequence ends when the query's limit or upper bound is reached, when the consumer stops
    /// iterating (the task is cancelled), or with an error. New entries are found by polling with short
    /// read transactions: at most `pollInterval` apart while idle, at once while entries keep coming. A query of a
    /// stream the log does not have yet waits for it, and gives its entries from its first once it begins. A log removed
    /// or replaced at its path while followed (a new recording made in its place) ends it with
    /// ``EventLogError/replacedWhileOpen(path:)``, rather than wait for entries the former file will never get.
    public func follow(_ query: EntryQuery = EntryQuery(), pollInterval: Duration = .milliseconds(50)) -> AsyncThrowingStream<LogEntry, any Error> {
        let storage = storage
        return AsyncThrowingStream { continuation in
            let task = Task {
                var iterator = EntryIterator(storage: storage, query: query)
                var idle = Duration.milliseconds(1)
                do {
                    while !Task.isCancelled {
                        var progressed = false
                        while let entry = try iterator.next() {
                            continuation.yield(entry)
                            progressed = true
                        }
                        if iterator.isComplete { break }
                        if !progressed, !storage.holdsFilesAt(storage.path) { throw EventLogError.replacedWhileOpen(path: storage.path) }
                        iterator = iterator.resumed()
                        idle = progressed ? .milliseconds(1) : min(idle * 2, pollInterval)
                        try await Task.sleep(for: idle)
                    }
                    continuation.finish()
                } catch is CancellationError {
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

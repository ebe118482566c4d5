import Foundation
import LMDB

extension EventLog {
    // MARK: Pins

    /// Keeps the entries numbered `range` through retention (``RetentionPolicy``), with the state each stream
    /// needs to replay them: an incident's window. The range may reach past the last entry, to keep what follows.
    public func pin(_ range: ClosedRange<UInt64>, reason: String) throws(EventLogError) {
        _ = try requireWriter()
        try storage.write { txn in try writePin(range, reason: reason, in: txn) }
    }

    private func writePin(_ range: ClosedRange<UInt64>, reason: String, in txn: Transaction) throws {
        try storage.writePin(LogPin(range: range, reason: reason, createdAt: WallClock.now()), txn)
    }

    /// Records `pin` as its source log recorded it, its time kept (``pin(_:reason:)`` takes the present): for tools
    /// that rebuild a log from elsewhere, as `reactorlog import` does.
    public func restorePin(_ pin: LogPin) throws(EventLogError) {
        _ = try requireWriter()
        try storage.write { txn in try storage.writePin(pin, txn) }
    }

    /// Pins `before` entries before `sequence` and `after` entries after it: the window around an action, an
    /// error or an API call.
    public func pin(around sequence: UInt64, before: UInt64 = 500, after: UInt64 = 500, reason: String) throws(EventLogError) {
        try pin((sequence > before ? sequence - before : 1)...(sequence &+ after), reason: reason)
    }

    /// Every pin, in order of their first sequence number. A pin whose record is damaged is among them, marked
    /// (``LogPin/isDamaged``), with the window retention keeps in its place.
    public func pins() throws(EventLogError) -> [LogPin] {
        try storage.read { txn in try pins(in: txn) }
    }

    private func pins(in txn: Transaction) throws -> [LogPin] {
        try pinRecords(in: txn).map(\.pin)
    }

    /// Every pin record, with the key it is stored under.
    private func pinRecords(in txn: Transaction) throws -> [(key: [UInt8], pin: LogPin)] {
        guard let pins = storage.pins else { return [] }
        return try txn.withCursor(pins) { cursor in
            var found: [(key: [UInt8], pin: LogPin)] = []
            var item = try cursor.first()
            while let current = item {
                found.append((Array(current.key), PinRecord.decode(key: current.key, record: current.value)))
                item = try cursor.next()
            }
            return found
        }
    }

    /// Removes a pin, a damaged one too (as ``pins()`` lists it); retention may then remove its entries.
    public func unpin(_ pin: LogPin) throws(EventLogError) {
        _ = try requireWriter()
        guard let pins = storage.pins else { return }
        try storage.write { txn in
            guard pin.isDamaged else {
                _ = try txn.delete(pins, key: PinRecord.key(pin.range))
                return
            }
            // A damaged record's key may not be the one its window gives: find it by what it reads as.
            for record in try pinRecords(in: txn) where record.pin == pin { _ = try txn.delete(pins, key: record.key) }
        }
    }

    // MARK: Gaps

    /// Where retention removed entries from the middle of stream `name`, in order. A gap whose record is damaged
    /// is read from the stream's entries: from just after its last entry before the gap's snapshot
    /// (``verify(progress:)`` names the damage).
    public func gaps(stream name: String) throws(EventLogError) -> [StreamGap] {
        guard let info = try storage.stream(named: name) else { throw .unknownStream(name: name) }
        return try storage.read { txn in try storage.gapRanges(txn, stream: info.id) }.map { StreamGap(stream: name, removed: $0) }
    }

    /// Removes the entries numbered `range` the way ``trim(before:)`` removes a log's oldest ones: in each
    /// stream with a snapshot inside the range, its entries from the range's start up to its latest such
    /// snapshot, whose state is kept so the entries after it still replay. The stream then has a *gap*
    /// (``gaps(stream:)``): its states from the range's start up to that snapshot are gone. Streams without a
    /// snapshot in the range keep their entries. The log becomes format version 2.
    @discardableResult
    public func removeEntries(_ range: Range<UInt64>) throws(EventLogError) -> TrimReport {
        // What is queued (snapshots among it) counts: commit it first.
        try requireWriter().flush()
        guard storage.gaps != nil else { throw .invalidArgument("This log cannot record gaps.") }
        return try storage.write { txn in try removeStretch(range, streams: streams(), in: txn) }
    }

    /// ``removeEntries(_:)`` of `streams` (every stream of the log) inside `txn`: what retention does between
    /// commits, in the writer's own transaction.
    private func removeStretch(_ range: Range<UInt64>, streams: [StreamInfo], in txn: Transaction) throws -> TrimReport {
        guard storage.gaps != nil else { throw EventLogError.invalidArgument("This log cannot record gaps.") }
        var results: [TrimReport.StreamResult] = []
        var removedEntries = 0, removedSnapshots = 0
        for info in streams {
            guard range.upperBound > range.lowerBound, range.lowerBound >= 1,
                  let base = try storage.latestSnapshotSequence(txn, stream: info.id, atOrBefore: range.upperBound - 1), base >= range.lowerBound
            else {
                results.append(.init(stream: info.name, replaysFrom: nil, removedEntries: 0))
                continue
            }
            // A gap this one reaches into loses its snapshot: the two become one.
            let merged = try storage.gapRanges(txn, stream: info.id).filter { $0.upperBound >= range.lowerBound && $0.upperBound <= base }
            let first = min(range.lowerBound, merged.map(\.lowerBound).min() ?? range.lowerBound)
            try storage.deleteGaps(txn, stream: info.id, endingIn: range.lowerBound...base)
            try storage.recordGap(txn, stream: info.id, removed: first...base)
            let removed = try storage.deleteEntries(txn, stream: info.id, from: range.lowerBound, through: base)
            removedSnapshots += try storage.deleteSnapshots(txn, stream: info.id, from: range.lowerBound, before: base)
            removedEntries += removed
            results.append(.init(stream: info.name, replaysFrom: base, removedEntries: removed))
        }
        return TrimReport(before: range.upperBound, removedEntries: removedEntries, removedSnapshots: removedSnapshots, streams: results)
    }

    // MARK: Enforcing the policy

    /// One step of retention, on the writer thread: pins around new errors, then removes about `limit` of the
    /// oldest entries beyond the policy's bounds, around pins: more when no stream has a snapshot that close, up to
    /// 65,536, since a stream is cut at its snapshots. Returns whether more remains to remove. It runs inside the
    /// writer's commit transaction `txn`; when it throws (a damaged index block in its way, say), the writer undoes
    /// all it did by running the commit again without it, and the next step tries again: retention never stops the
    /// log, and never leaves half a removal behind.
    func retentionStep(in txn: Transaction, removingAtMost limit: Int) throws -> Bool {
        guard let policy = configuration.retention else { return false }
        let streams = try self.streams()
        if let window = policy.pinAroundErrors { try pinNewErrors(window: UInt64(window), streams: streams, in: txn) }
        let pinned = try pins(in: txn).map(\.range).sorted { $0.lowerBound < $1.lowerBound }
        var reach = limit
        while true {
            guard let cut = try retentionCut(policy, pinned: pinned, limit: reach, in: txn), let lowest = try lowestSequence(in: txn), cut > lowest else {
                return false
            }
            var removed = 0
            var start = lowest
            for pin in pinned + [cut...cut] where start < cut {
                let end = min(pin.lowerBound, cut)
                if end > start {
                    removed += start == lowest ? try removeOldest(before: end, streams: streams, in: txn).removedEntries
                        : try removeStretch(start..<end, streams: streams, in: txn).removedEntries
                }
                start = max(start, pin.upperBound &+ 1)
            }
            if removed > 0 { return try retentionCut(policy, pinned: pinned, limit: limit, in: txn) != nil }
            guard reach < 65_536 else { return false }
            reach *= 4
        }
    }

    /// The sequence number retention should remove entries below, looking at most `limit` entries ahead and
    /// stepping over `pinned` windows; `nil` when the log is within every bound.
    private func retentionCut(_ policy: RetentionPolicy, pinned: [ClosedRange<UInt64>], limit: Int, in txn: Transaction) throws -> UInt64? {
        var pages = 0
        for database in [storage.meta, storage.entries, storage.streams, storage.index.database, storage.snapshots] + [storage.gaps, storage.pins, storage.sites, storage.schemas].compactMap({ $0 }) {
            pages += try txn.pages(database)
        }
        let liveBytes = pages * storage.environment.pageSize
        let overBytes = policy.maxBytes.map { liveBytes > $0 / 10 * 6 } ?? false
        // Counting walks the log's records: only when a bound that needs the count may be passed.
        let entries = overBytes || policy.maxEntries != nil ? try storage.entryCount(txn) : (try storage.lowestEntry(txn) == nil ? 0 : 1)
        guard entries > 0 else { return nil }
        var excess = 0
        if let maxBytes = policy.maxBytes, overBytes {
            let perEntry = max(1, liveBytes / entries)
            excess = max(excess, (liveBytes - maxBytes / 2) / perEntry)
        }
        if let maxEntries = policy.maxEntries, entries > maxEntries { excess = max(excess, entries - maxEntries) }
        let oldest = policy.maxAge.map { WallClock.now() - Int64($0.components.seconds) * 1_000_000_000 - $0.components.attoseconds / 1_000_000_000 }
        guard excess > 0 || oldest != nil else { return nil }
        // Walk the oldest unpinned entries: past `excess` of them and past those older than `oldest`, `limit` at most.
        return try txn.withCursor(storage.entries) { cursor in
            var entries = EntryCursor(cursor)
            var entry = try entries.first()
            var walked = 0
            while let current = entry, walked < limit {
                let sequence = current.sequence
                if let pin = pinned.first(where: { $0.contains(sequence) }) {
                    guard pin.upperBound < .max else { break }
                    entry = try entries.seek(atOrAfter: pin.upperBound + 1)
                    continue
                }
                let old = oldest.map { current.header.timestamp < $0 } ?? false
                if walked >= excess && !old { return walked == 0 ? nil : sequence }
                walked += 1
                entry = try entries.next()
            }
            return walked == 0 ? nil : entry?.sequence
        }
    }

    /// The lowest sequence number the log holds, as `txn` sees it.
    private func lowestSequence(in txn: Transaction) throws -> UInt64? {
        try storage.lowestEntry(txn)
    }

    /// Pins `window` entries around each effect error appended since the last step, as `txn` sees them: the
    /// entries of the commit under way included, since the step may remove those too.
    private func pinNewErrors(window: UInt64, streams: [StreamInfo], in txn: Transaction) throws {
        let from = retentionScan.withLock { $0 } + 1
        guard let highest = try storage.highestEntry(txn), highest >= from else {
            return
        }
        for info in streams {
            var errors: [UInt64] = []
            try storage.index.forEach(txn, stream: info.id, from: from, through: highest) { item in
                if item.kind == EntryKind.effectError.rawValue { errors.append(item.sequence) }
                return true
            }
            for error in errors {
                try writePin((error > window ? error - window : 1)...(error + window), reason: "effect error #\(error) of '\(info.name)'", in: txn)
            }
        }
        retentionScan.withLock { $0 = highest }
    }
}

import Foundation
import LMDB

extension EventLog {
    /// Checks the whole log: metadata, stream descriptors, every entry's checksum, header and sequence
    /// number, the stream index against the entries, every snapshot's checksum, and whether snapshots
    /// are where the snapshot policy says (warnings). Reads in short transactions, so it can run on a
    /// live log. `progress` is called with the number of entries checked so far, every 65,536 entries.
    public func verify(progress: ((Int) -> Void)? = nil) throws(EventLogError) -> VerifyReport {
        var report = VerifyReport()
        // A log being written keeps growing while it is checked, chunk by chunk in short read transactions.
        // Everything is checked up to the highest entry committed now: entries and their index entries are
        // committed together, so that bound gives every check the same, consistent view.
        let bound: UInt64
        do {
            bound = try highestSequence()
        } catch {
            report.error(error.description)
            return report
        }
        let meta: LogMetadata
        do {
            meta = try storage.storedMetadata().metadata
        } catch {
            report.error(error.description)
            return report
        }
        let streamsByID: [UInt32: StreamInfo]
        do {
            streamsByID = try storage.reloadStreams()
        } catch {
            report.error(error.description)
            return report
        }
        report.streams = streamsByID.count
        try verifyMetadataSeal(formatVersion: meta.formatVersion, report: &report)
        verifyStreams(streamsByID, floor: meta.sequenceFloor, report: &report)
        try verifyStreamKeys(streamsByID, report: &report)
        let gaps = try verifyGaps(streams: streamsByID, report: &report)
        try verifySchemaEras(streams: streamsByID, formatVersion: meta.formatVersion, report: &report)
        try verifyPins(report: &report)
        var counts: [UInt32: Int] = [:]
        try verifyEntries(
            streams: streamsByID, through: bound, floor: meta.sequenceFloor, gaps: gaps.values.flatMap { $0 }.sorted { $0.lowerBound < $1.lowerBound },
            counts: &counts, report: &report, progress: progress)
        // Read after the entries, which name the descriptors lost past the last record.
        for (id, damage) in storage.damagedDescriptors.sorted(by: { $0.key < $1.key }) {
            report.error(Self.descriptorDamage(id: id, damage, entries: counts[id] ?? 0))
        }
        try verifyIndex(streams: streamsByID, through: bound, counts: counts, report: &report)
        try verifySnapshots(streams: streamsByID, through: bound, policy: meta.snapshotPolicy, report: &report)
        try verifySnapshotKeys(streams: streamsByID, through: bound, gaps: gaps, report: &report)
        // After the records: where a bad bit made both, the record it damaged is the first problem named.
        verifyPagesForWriters(report: &report)
        // What damaged entries leave: read again past each, only when something is damaged.
        if !report.isHealthy { report.unreadable = try unreadableStretches() }
        return report
    }

    /// A page of the data file that only a writer trips on (its opening checked what readers need), so that a log
    /// writers are refused is not called healthy: a record's flags a bad bit set, say, which readers pass over. Not
    /// beside a live writer, whose pages change under the walk; a writer of this log checked them when it opened.
    private func verifyPagesForWriters(report: inout VerifyReport) {
        guard !WriterLock.isHeld(directory: path), let problem = LogStorage.pageTreeProblem(path: path, forWriting: true),
              !WriterLock.isHeld(directory: path, tryingTheLock: true)
        else { return }
        report.error("the log's " + problem)
    }

    /// The metadata's seal matches its keys and values; a log of format version 6 or more has one.
    private func verifyMetadataSeal(formatVersion: Int, report: inout VerifyReport) throws(EventLogError) {
        let records = try storage.read { txn in try MetaRecords(txn, storage.meta) }
        if let damaged = records.damagedRecords { report.error("the metadata has \(damaged)") }
        switch records.seal {
        case .intact:
            // Sealed here, but an import carried the values over from a log whose seal did not vouch for them.
            if let reason = records.values[LogLayout.MetaKey.unvouched] {
                report.warning("the metadata's \(LogMetadata.importedUnvouched(because: reason)): its creation time, snapshot policy and sequence floor may not be what that log was written with")
            }
        case .missing:
            if formatVersion >= LogLayout.sealedMetadataFormatVersion {
                report.error("the metadata has no checksum, but the log says format version \(formatVersion), whose metadata is sealed by one")
            }
        case .broken(let stored, let computed):
            report.error("the metadata is damaged: its checksum says \(stored), but its keys and values give \(computed)")
        }
    }

    /// Every pin record reads: its checksum, its key and its bounds match (``PinRecord``).
    private func verifyPins(report: inout VerifyReport) throws(EventLogError) {
        for pin in try pins() where pin.isDamaged {
            let (first, last) = (pin.range.lowerBound, pin.range.upperBound)
            let window = last < .max ? "#\(first)…#\(last)" : first > 1 ? "#\(first) onward" : "every entry"
            report.error("a pin record is damaged (its checksum, key or bounds do not match): its reason is lost, and retention keeps \(window), every window it may have meant, until it is unpinned")
        }
    }

    /// Each gap record is intact, names a stream the log describes, and ends at a snapshot of that stream, with
    /// none of the stream's entries left inside it. Returns the gaps by stream id, a damaged record's as readers
    /// take it (``LogStorage/gap(_:stream:at:record:after:)``).
    private func verifyGaps(streams: [UInt32: StreamInfo], report: inout VerifyReport) throws(EventLogError) -> [UInt32: [ClosedRange<UInt64>]] {
        guard let database = storage.gaps else { return [:] }
        let (gaps, problems): ([UInt32: [ClosedRange<UInt64>]], [(String, UInt64?)]) = try storage.read { txn in
            var gaps: [UInt32: [ClosedRange<UInt64>]] = [:]
            var problems: [(String, UInt64?)] = []
            _ = try txn.withCursor(database) { cursor in
                try LogStorage.forEachPlaced(cursor, placing: GapRecord.key(of:)) { placement, current in
                    let key: (stream: UInt32, sequence: UInt64)
                    switch placement {
                    case .key(let stream, let sequence), .damagedSize(let stream, let sequence):
                        key = (stream, sequence)
                    case .record:
                        // Readers take it: its removed entries are no damage.
                        guard let gap = GapRecord.decode(current.value) else { return }
                        if streams[gap.stream] != nil { gaps[gap.stream, default: []].append(gap.removed) }
                        let name = Self.named(gap.stream, in: streams)
                        problems.append((
                            "a gap record's key is \(current.key.count) bytes, not 12: readers take it as its record says, the gap of \(name) #\(gap.removed.lowerBound)…#\(gap.removed.upperBound)",
                            nil
                        ))
                        return
                    case .none:
                        problems.append(("a gap record's key is \(current.key.count) bytes, not 12: its record is damaged too, so readers leave it out", nil))
                        return
                    }
                    guard let info = streams[key.stream] else {
                        // A stream whose descriptor is damaged is named once, with its entries.
                        if !storage.hasDamagedDescriptor(key.stream) {
                            problems.append(("a gap names stream id \(key.stream), which the log does not describe", key.sequence))
                        }
                        return
                    }
                    let previousEnd = gaps[key.stream]?.last?.upperBound ?? 0
                    guard let gap = try storage.gap(txn, stream: key.stream, at: key.sequence, record: current.value, after: previousEnd) else {
                        let owner = GapRecord.decode(current.value).map { "stream id \($0.stream)" } ?? "another stream"
                        problems.append(("a gap record is damaged: it is stored under stream '\(info.name)', but is the gap of \(owner)", key.sequence))
                        return
                    }
                    let (first, last) = (gap.removed.lowerBound, gap.removed.upperBound)
                    if case .damagedSize = placement {
                        problems.append((
                            "a gap record's key is \(current.key.count) bytes, not 12: its size is damaged, so its record is read from the wrong bytes: readers take the gap of stream '\(info.name)' up to #\(last) as #\(first)…#\(last), from the stream's entries",
                            nil
                        ))
                    } else if gap.isDamaged {
                        problems.append(("the gap record of stream '\(info.name)' is damaged (its checksum, key or bounds do not match): readers take the gap as #\(first)…#\(last), from the stream's entries", key.sequence))
                    }
                    gaps[key.stream, default: []].append(gap.removed)
                    if try txn.get(storage.snapshots, key: KeyCoding.streamSequence(key.stream, last)) == nil {
                        problems.append(("the gap of stream '\(info.name)' from #\(first) ends here, but the stream has no snapshot here to replay from", last))
                    }
                    var inside: UInt64?
                    // A damaged block is reported with the index.
                    _ = try? storage.index.forEach(txn, stream: key.stream, from: first, through: last) { item in
                        inside = item.sequence
                        return false
                    }
                    if let inside {
                        problems.append(("stream '\(info.name)' still holds this entry, inside its gap #\(first)…#\(last)", inside))
                    }
                }
            }
            return (gaps.mapValues { $0.sorted { $0.lowerBound < $1.lowerBound } }, problems)
        }
        for (message, sequence) in problems { report.error(message, at: sequence) }
        return gaps
    }

    /// Each schema era record is intact, names a stream the log describes, and is in a log of format version 3 or
    /// more.
    private func verifySchemaEras(streams: [UInt32: StreamInfo], formatVersion: Int, report: inout VerifyReport) throws(EventLogError) {
        guard let database = storage.schemas else { return }
        let problems: [(String, UInt64?)] = try storage.read { txn in
            var problems: [(String, UInt64?)] = []
            _ = try txn.withCursor(database) { cursor in
                try LogStorage.forEachPlaced(cursor, placing: SchemaEraRecord.key(of:)) { placement, current in
                    let (stream, through): (UInt32, UInt64)
                    let size = "a schema era record's key is \(current.key.count) bytes, not 12"
                    switch placement {
                    case .key(let id, let sequence), .damagedSize(let id, let sequence):
                        (stream, through) = (id, sequence)
                    case .record:
                        guard let found = SchemaEraRecord.decode(current.value) else { return }
                        let name = Self.named(found.stream, in: streams)
                        problems.append(("\(size): readers take it as its record says, the era of \(name) through #\(found.era.through) written by '\(found.era.fingerprint)'", nil))
                        return
                    case .none:
                        problems.append(("\(size): its record is damaged too, so readers leave it out", nil))
                        return
                    }
                    guard let info = streams[stream] else {
                        if !storage.hasDamagedDescriptor(stream) {
                            problems.append(("a schema era names stream id \(stream), which the log does not describe", through))
                        }
                        return
                    }
                    guard let (era, isDamaged) = SchemaEraRecord.read(stream: stream, through: through, record: current.value) else {
                        let owner = SchemaEraRecord.decode(current.value).map { "stream id \($0.stream)" } ?? "another stream"
                        problems.append(("a schema era record is damaged: it is stored under stream '\(info.name)', but is the era of \(owner)", through))
                        return
                    }
                    let known = era.fingerprint == SchemaHistory.unknownFingerprint
                        ? "the types that wrote the era are not known, so migrations refuse its payloads"
                        : "it is read as its record says, written by '\(era.fingerprint)'"
                    if case .damagedSize = placement {
                        problems.append(("\(size): its size is damaged, so its record is read from the wrong bytes: readers take it as the era of stream '\(info.name)' through #\(through), and \(known)", nil))
                    } else if isDamaged {
                        problems.append(("the schema era record of stream '\(info.name)' through #\(era.through) is damaged (its checksum, key or text do not match): \(known)", through))
                    }
                    if formatVersion < LogLayout.schemaErasFormatVersion {
                        problems.append(("stream '\(info.name)' has a schema era, but the log says format version \(formatVersion); eras need version 3", era.through))
                    }
                }
            }
            return problems
        }
        for (message, sequence) in problems { report.error(message, at: sequence) }
    }

    /// Every stream descriptor's key is a stream id: one that is not is named with what readers take instead
    /// (``LogStorage``'s reading of descriptors places a sound record by the id it holds).
    private func verifyStreamKeys(_ streams: [UInt32: StreamInfo], report: inout VerifyReport) throws(EventLogError) {
        let problems: [String] = try storage.read { txn in
            try txn.withCursor(storage.streams) { cursor in
                var problems: [String] = []
                var item = try cursor.first()
                while let current = item {
                    if KeyCoding.decodeStream(current.key) == nil, let id = StreamRecord.recordedID(current.value) {
                        let underOwnKey = try txn.get(storage.streams, key: KeyCoding.stream(id)) != nil
                        let taken = underOwnKey
                            ? "readers take the descriptor under id \(id)'s own key"
                            : "readers take it as its record says, the descriptor of stream '\(streams[id]?.name ?? "?")' (id \(id))"
                        problems.append("a stream descriptor's key is \(current.key.count) bytes, not 4: \(taken)")
                    }
                    item = try cursor.next()
                }
                return problems
            }
        }
        for message in problems { report.error(message) }
    }

    /// Stream `id` as a verify message names it: `stream 'shop'`, or `stream id 7` when the log does not describe it.
    private static func named(_ id: UInt32, in streams: [UInt32: StreamInfo]) -> String {
        streams[id].map { "stream '\($0.name)'" } ?? "stream id \(id)"
    }

    /// What a damaged descriptor costs: a sentence for ``verify(progress:)``, naming how many `entries` it leaves
    /// without a stream.
    private static func descriptorDamage(id: UInt32, _ damage: EventLogError, entries: Int) -> String {
        guard id != 0, case .corruptStream(_, let reason) = damage else {
            return "a stream descriptor's key is not a stream id and its record is damaged: if it described a stream, that stream's entries read as damaged"
        }
        let lost = switch entries {
        case 0: "none of its entries is left"
        case 1: "its one entry cannot be named, so readers leave it out"
        default: "its \(entries) entries cannot be named, so readers leave them out"
        }
        return "the descriptor of stream id \(id) is damaged (\(reason)): \(lost), with its snapshots; the other streams read on"
    }

    /// Stream names are unique, and a stream's trim floor never exceeds the log's (which a trim records first).
    private func verifyStreams(_ streams: [UInt32: StreamInfo], floor: UInt64, report: inout VerifyReport) {
        var seen: [String: UInt32] = [:]
        for info in streams.values.sorted(by: { $0.id < $1.id }) {
            if let other = seen[info.name] {
                report.error("streams \(other) and \(info.id) are both named '\(info.name)'; a name belongs to one stream")
            }
            seen[info.name] = info.id
            if info.sequenceFloor > floor {
                report.error("stream '\(info.name)' records a trim floor of #\(info.sequenceFloor), but the log's floor is \(floor == 0 ? "absent" : "#\(floor)"); a trim records the log's first")
            }
        }
    }

    /// Every snapshot key names a stream the log describes, and an entry of that stream (or, for the base of a
    /// trimmed stream, one the trim removed).
    private func verifySnapshotKeys(
        streams: [UInt32: StreamInfo], through bound: UInt64, gaps: [UInt32: [ClosedRange<UInt64>]], report: inout VerifyReport
    ) throws(EventLogError) {
        let problems: [(String, UInt64?)] = try storage.read { txn in
            try txn.withCursor(storage.entries) { entryCursor in
            var entries = EntryCursor(entryCursor)
            return try txn.withCursor(storage.snapshots) { cursor in
                var problems: [(String, UInt64?)] = []
                var oldest: Set<UInt32> = []
                _ = try LogStorage.forEachPlaced(cursor, placing: SnapshotRecord.recordedPosition) { placement, current in
                    let size = "a snapshot key is \(current.key.count) bytes, not 12"
                    let key: (stream: UInt32, sequence: UInt64)
                    switch placement {
                    case .key(let stream, let sequence):
                        key = (stream, sequence)
                    case .record(let stream, let sequence):
                        problems.append(("\(size): readers take it as its record says, the snapshot of \(Self.named(stream, in: streams)) at #\(sequence)", nil))
                        return
                    case .damagedSize(let stream, let sequence):
                        let name = Self.named(stream, in: streams)
                        problems.append(("\(size): its size is damaged: readers take it as the snapshot of \(name) at #\(sequence), whose record is read from the wrong bytes, so they leave it out", nil))
                        return
                    case .none:
                        problems.append(("\(size): its record is damaged too, so readers leave it out", nil))
                        return
                    }
                    guard key.sequence <= bound else { return }
                    guard let info = streams[key.stream] else {
                        if !storage.hasDamagedDescriptor(key.stream) {
                            problems.append(("a snapshot names stream id \(key.stream), which the log does not describe", key.sequence))
                        }
                        return
                    }
                    let isOldest = oldest.insert(key.stream).inserted
                    // A damaged entry is reported by the walk over the entries, not here.
                    let entry: EntryCursor.Found?
                    do { entry = try entries.entry(key.sequence) } catch { return }
                    guard let entry else {
                        let endsGap = gaps[key.stream]?.contains { $0.upperBound == key.sequence } ?? false
                        if !(isOldest && key.sequence <= info.sequenceFloor) && !endsGap {
                            problems.append(("the snapshot of stream '\(info.name)' describes this entry, which the log does not hold", key.sequence))
                        }
                        return
                    }
                    if entry.header.streamID != key.stream {
                        let owner = streams[entry.header.streamID]?.name ?? "id \(entry.header.streamID)"
                        problems.append(("the snapshot of stream '\(info.name)' describes an entry of stream '\(owner)'", key.sequence))
                    }
                }
                return problems
            }
            }
        }
        for (message, sequence) in problems { report.error(message, at: sequence) }
    }

    /// Walks `entries` in chunks: checksum, header, sequence order, known stream, sane cause. A damaged block is
    /// reported once, at its key, and the walk goes on after it. Mutations logged without their values are no damage:
    /// one warning a stream names the first and counts them.
    private func verifyEntries(
        streams: [UInt32: StreamInfo], through bound: UInt64, floor: UInt64, gaps: [ClosedRange<UInt64>], counts: inout [UInt32: Int],
        report: inout VerifyReport, progress: ((Int) -> Void)?
    ) throws(EventLogError) {
        var position: UInt64 = 0
        var resume: UInt64 = 0
        var done = false
        // The log's last block with its key damaged upwards stays last in the tree: the numbers it records, which the
        // walk finds missing where they belong, are its damage, reported once where the walk meets it, not as a gap.
        let hidden = try storage.read { txn in try txn.withCursor(storage.entries) { try EntryCursor.lastDamagedUpwards($0)?.numbers } }
        let gaps = hidden.map { hidden in (gaps + [hidden]).sorted { $0.lowerBound < $1.lowerBound } } ?? gaps
        var notRecorded: [NotRecorded: (first: UInt64, count: Int)] = [:]
        while !done {
            typealias Chunk = (
                problems: [VerifyReport.Problem], counts: [UInt32: Int], notRecorded: [NotRecorded: (first: UInt64, count: Int)],
                checked: Int, last: UInt64, resume: UInt64, done: Bool
            )
            let chunk: Chunk = try storage.read { txn in
                try txn.withCursor(storage.entries) { causeCursor in
                    var causes = EntryCursor(causeCursor)
                    return try txn.withCursor(storage.entries) { cursor in try txn.withCursor(storage.entries) { lookups in
                        var problems: [VerifyReport.Problem] = []
                        var counts: [UInt32: Int] = [:]
                        var notRecorded: [NotRecorded: (first: UInt64, count: Int)] = [:]
                        var checked = 0
                        var last = position
                        var resumeAt = resume
                        /// After a damaged record, whose entries are unknown, the next number is not checked for a gap.
                        var afterDamage = false
                        func problem(_ message: String, at sequence: UInt64) {
                            problems.append(.init(severity: .error, sequence: sequence, message: message))
                        }
                        // Order and gaps, for the entry numbered `sequence`.
                        func place(_ sequence: UInt64) {
                            if checked > 0 || position > 0, sequence <= last {
                                problem("it is stored after #\(last), out of order", at: sequence)
                            } else if !afterDamage, sequence > last + 1, sequence - 1 > floor,
                                      !Self.covers(gaps, max(last + 1, floor + 1)...(sequence - 1)) {
                                // Numbers are gapless except below the trim floor, where a trim removed entries, and in
                                // the gaps retention removed.
                                let first = max(last + 1, floor + 1)
                                let missing = first == sequence - 1 ? "#\(first) is" : "#\(first)…#\(sequence - 1) are"
                                problem("entries \(missing) missing before it (a gap no trim explains)", at: sequence)
                            }
                            afterDamage = false
                            checked += 1
                            last = max(last, sequence)
                        }
                        func check(_ header: EntryRecord.Header, in bytes: UnsafeRawBufferPointer) throws {
                            let sequence = header.sequence
                            // A stream made since the descriptors were read is found; one an entry names but no record
                            // gives is kept as a descriptor lost (``LogStorage/stream(id:)``).
                            let id = header.streamID
                            if streams[id] == nil && (try? storage.stream(id: id)) == nil && !storage.hasDamagedDescriptor(id) {
                                problem("it names stream id \(id), which the log does not describe", at: sequence)
                            } else {
                                counts[id, default: 0] += 1
                            }
                            let caseName = ByteReader(bytes: bytes).string(header.caseRange)
                            if caseName == nil { problem("its case name is not valid UTF-8", at: sequence) }
                            for message in try ruleProblems(header, caseName: caseName, record: bytes, sequence: sequence, causes: &causes) {
                                problem(message, at: sequence)
                            }
                            if header.kind == .mutation && header.kind.lacksValue(codec: header.codec) {
                                let key = NotRecorded(stream: header.streamID, missing: MissingValue(caseName: caseName ?? ""))
                                notRecorded[key, default: (sequence, 0)].count += 1
                            }
                        }
                        // From the tree's first record where it tells no number (a node a zeroed sector wiped), which a
                        // seek passes; a block whose key lost bytes, sorted first, is reported where the walk ends
                        // (`hidden`).
                        var item: KeyValue?
                        if resume == 0, let first = try cursor.first(), EntryKey.number(first) == nil, EntryBlock.recordedFirst(first.value) == nil {
                            item = first
                        } else {
                            item = try EntryKey.seek(atOrAfter: resume, cursor)
                        }
                        while let current = item, checked < 65_536 {
                            guard let key = KeyCoding.decodeSequence(current.key) else {
                                if let number = EntryKey.damagedSizeNumber(current) {
                                    // It stays where its number puts it: the walk goes on after it.
                                    problem(EntryKey.damagedSizeReason(current.key.count), at: number)
                                    afterDamage = true
                                    resumeAt = number &+ 1
                                    item = try cursor.next()
                                    continue
                                }
                                // A record that tells no number (a node a zeroed sector wiped) holds the entries after
                                // the last one read (past the key of a damaged record before it), or first in the tree
                                // those from the first the index lists: named by the first of them, and the walk goes on
                                // after it.
                                let following = try cursor.next()
                                let start = try storage.wipedStart(txn, current, from: last + 1, before: following.flatMap(EntryKey.number))
                                problem(EntryKey.numberlessReason(current.key.count), at: start ?? (resumeAt > 0 ? max(last + 1, resumeAt) : max(last, floor) + 1))
                                afterDamage = true
                                item = following
                                continue
                            }
                            resumeAt = key &+ 1
                            if key > bound {
                                // A newer entry, committed by a live writer since the bound was read, ends the walk; a
                                // damaged key only looks like one, and is reported.
                                guard let reason = Self.damage(key: key, record: current.value) else {
                                    return (problems, counts, notRecorded, checked, last, resumeAt, true)
                                }
                                // A block whose key alone is damaged is named by the first number it records.
                                problem(reason, at: EntryBlock.recordedFirst(current.value) ?? key)
                                afterDamage = true
                                item = try cursor.next()
                                continue
                            }
                            // A search for the number after the record lands past it: a bad bit in a key of the tree's
                            // branch pages (which the walk does not read) sends searches to the leaf before, where
                            // LMDB takes the next leaf's first record (`EntryKey.misrouted`).
                            if key < .max, let landed = try KeyCoding.withSequence(key + 1, { k throws(LMDBError) in try lookups.seek(atOrAfter: k) }),
                               let number = KeyCoding.decodeSequence(landed.key), number <= key {
                                problem("a search for #\(key + 1) lands on #\(number): a key of the entries' branch pages is damaged, which sends searches to the wrong page (reads step forward to the entries)", at: number)
                            }
                            if EntryBlock.isBlock(current.value) {
                                do {
                                    var reader = try EntryBlock.Reader(key: key, block: current.value)
                                    while let header = try reader.next(), header.sequence <= bound {
                                        place(header.sequence)
                                        try check(header, in: current.value)
                                    }
                                } catch EventLogError.corruptEntry(let sequence, let reason) {
                                    problem(reason, at: sequence)
                                    afterDamage = true
                                }
                            } else {
                                place(key)
                                do {
                                    try check(try EntryRecord.header(key: key, record: current.value), in: current.value)
                                } catch EventLogError.corruptEntry(_, let reason) {
                                    problem(reason, at: key)
                                }
                            }
                            item = try cursor.next()
                        }
                        return (problems, counts, notRecorded, checked, last, resumeAt, item == nil)
                    } }
                }
            }
            report.problems += chunk.problems
            counts.merge(chunk.counts, uniquingKeysWith: +)
            notRecorded.merge(chunk.notRecorded) { ($0.first, $0.count + $1.count) }
            report.entries += chunk.checked
            position = chunk.last
            resume = chunk.resume
            done = chunk.done
            progress?(report.entries)
        }
        // An `unwritten` entry's pin counts what it stands for (a damaged pin record is named by `verifyPins`).
        let pins = notRecorded.keys.contains { $0.missing == .unwritten } ? (try? self.pins()) ?? [] : []
        for (key, found) in notRecorded.sorted(by: { $0.value.first < $1.value.first }) {
            let stream = "stream '\(streams[key.stream]?.name ?? "id \(key.stream)")'"
            let counted = pins.first { $0.range == found.first...found.first }.map { "; its pin: \($0.reason)" } ?? ""
            let message = switch (key.missing, found.count == 1) {
            case (.unencodable, true):
                "\(stream) has a mutation logged without its value: it could not be encoded when it was recorded, so the stream's states from it to its next snapshot cannot be rebuilt"
            case (.unencodable, false):
                "\(stream) has \(found.count) mutations logged without their values, the first here: they could not be encoded when they were recorded, so the stream's states from each to its next snapshot cannot be rebuilt"
            case (.unwritten, true):
                "\(stream) has a stretch the log could not record (a write failure stopped it, and this entry stands for what the stream appended until it wrote again\(counted)), so the stream's states from here to its next snapshot cannot be rebuilt"
            case (.unwritten, false):
                "\(stream) has \(found.count) stretches the log could not record, the first here (a write failure stopped it, and an `unwritten` entry stands for each), so the stream's states from each to its next snapshot cannot be rebuilt"
            }
            report.warning(message, at: found.first)
        }
    }

    /// What is wrong with the record stored under `key` in `entries`, a block or an entry of its own, or `nil`.
    private static func damage(key: UInt64, record: UnsafeRawBufferPointer) -> String? {
        do throws(EventLogError) {
            if EntryBlock.isBlock(record) {
                var reader = try EntryBlock.Reader(key: key, block: record)
                while try reader.next() != nil {}
            } else {
                _ = try EntryRecord.header(key: key, record: record)
            }
            return nil
        } catch {
            if case .corruptEntry(_, let reason) = error { return reason }
            return error.description
        }
    }

    /// Whether the ranges `gaps` (sorted by their start) together cover every number of `missing`.
    static func covers(_ gaps: [ClosedRange<UInt64>], _ missing: ClosedRange<UInt64>) -> Bool {
        var next = missing.lowerBound
        for gap in gaps where gap.lowerBound <= next && gap.upperBound >= next {
            if gap.upperBound >= missing.upperBound { return true }
            next = gap.upperBound + 1
        }
        return false
    }

    /// The rules of docs/FORMAT.md an entry breaks: causes, markers, codec 0, JSON and binary payloads.
    private func ruleProblems(
        _ header: EntryRecord.Header, caseName: String?, record: UnsafeRawBufferPointer, sequence: UInt64, causes: inout EntryCursor
    ) throws -> [String] {
        var problems: [String] = []
        let payload = record[header.payloadRange]
        switch header.kind {
        case .action:
            if header.cause != 0 { problems.append("it is an action with a cause (#\(header.cause)); actions have none") }
        case .mutation, .effectError:
            guard header.cause != 0 else { break }
            if header.cause >= sequence {
                problems.append("its cause #\(header.cause) is not an earlier entry")
            } else if let causing = try? causes.entry(header.cause)?.header {
                // A damaged cause is reported where the walk reaches it.
                if causing.kind != .action { problems.append("its cause #\(header.cause) is a \(causing.kind), not an action") }
                if causing.streamID != header.streamID { problems.append("its cause #\(header.cause) is an action of another stream") }
            }
        case .streamOpened, .streamResumed, .streamClosed:
            if header.cause != 0 { problems.append("it is a \(header.kind) marker with a cause") }
            if caseName != nil && caseName != header.kind.description {
                problems.append("it is a \(header.kind) marker named '\(caseName ?? "")'")
            }
        }
        if header.codec == .none && !payload.isEmpty {
            problems.append("its codec is none but it holds a \(payload.count)-byte payload")
        }
        // The readers' own scanner, not Foundation's parser, which takes a trailing comma and a byte-order mark they refuse.
        if header.codec == .json && !JSONScanner.isDocument(UnsafeRawBufferPointer(rebasing: payload)) {
            problems.append("its JSON payload is not valid JSON (or holds a number JSON cannot express)")
        }
        if header.codec == .binary {
            do {
                _ = try BinaryPayload.json(UnsafeRawBufferPointer(rebasing: payload))
            } catch {
                problems.append("its binary payload is not well formed (\(error.reason) at byte \(error.offset))")
            }
        }
        return problems
    }

    /// Checks that the stream index lists exactly the entries of each stream.
    private func verifyIndex(streams: [UInt32: StreamInfo], through bound: UInt64, counts: [UInt32: Int], report: inout VerifyReport) throws(EventLogError) {
        let sites = try storage.callSites()
        for info in streams.values.sorted(by: { $0.id < $1.id }) {
            var indexed = 0
            var previous: UInt64 = 0
            var problem: (String, UInt64)?
            var damagedBlocks: [UInt64?: String] = [:]
            try storage.forEachIndexChunk(stream: info.id, damaged: { error in
                // The first reason a block is told with: keys out of order after it follow from what that said.
                if case .corruptIndex(_, let block, let reason) = error, damagedBlocks[block] == nil { damagedBlocks[block] = reason }
            }) { (all) throws(EventLogError) in
                let chunk = all.filter { $0.sequence <= bound }
                indexed += chunk.count
                guard problem == nil else { return }
                // Each key in order, naming an entry of this stream and of the kind it records: a key damaged into
                // another number would otherwise send a stream's readers to the wrong entry.
                // Read as a stream's readers read them: through one cursor (`EntryCursor`).
                problem = try storage.read { txn in
                    try txn.withCursor(storage.entries) { cursor in
                        var entries = EntryCursor(cursor)
                        for key in chunk {
                            defer { previous = key.sequence }
                            if key.sequence <= previous { return ("stream '\(info.name)' lists this entry out of order, after #\(previous)", key.sequence) }
                            let entry: EntryCursor.Found?
                            do { entry = try entries.entry(key.sequence) } catch { continue }
                            guard let header = entry?.header else {
                                return ("stream '\(info.name)' lists this entry, but it is missing", key.sequence)
                            }
                            if header.streamID != info.id || header.kind.rawValue != key.kind {
                                return ("stream '\(info.name)' lists this entry as one of its \(EntryKind(rawValue: key.kind)?.description ?? "unknown") entries, but it is not", key.sequence)
                            }
                            if key.site != 0 && sites[key.site] == nil {
                                return ("stream '\(info.name)' gives this entry call site number \(key.site), which the log does not hold intact", key.sequence)
                            }
                        }
                        return nil
                    }
                }
            }
            for (block, reason) in damagedBlocks.sorted(by: { ($0.key ?? 0) < ($1.key ?? 0) }) {
                if let block, block <= bound {
                    report.error("the index block of stream '\(info.name)' from this entry is damaged: \(reason)", at: block)
                } else if let block {
                    // Its key is damaged into a number the log has not reached, and what it was cannot be told.
                    report.error("an index block of stream '\(info.name)' is damaged: \(reason); its key reads #\(block), past the log's last entry")
                } else {
                    report.error("the index of stream '\(info.name)' is damaged: \(reason)")
                }
            }
            if let (message, sequence) = problem {
                report.error(message, at: sequence)
            }
            let stored = counts[info.id] ?? 0
            if indexed != stored {
                report.error("stream '\(info.name)' has \(stored) entries but its index lists \(indexed)")
            }
        }
    }

    /// Checks every snapshot's record, and warns where the policy expected a snapshot and none was written.
    private func verifySnapshots(streams: [UInt32: StreamInfo], through bound: UInt64, policy: SnapshotPolicy?, report: inout VerifyReport) throws(EventLogError) {
        for info in streams.values.sorted(by: { $0.id < $1.id }) {
            // Each record is decoded where the walk finds it, past the bound too: a newer snapshot a live writer
            // committed since is passed over, but a damaged key only looks like one, and a lookup by that key would
            // not find it among keys no longer in order.
            let found: [(sequence: UInt64, problem: String?)] = try storage.read { txn in
                try txn.withCursor(storage.snapshots) { cursor in
                    var found: [(UInt64, String?)] = []
                    var item = try cursor.seek(atOrAfter: KeyCoding.streamSequence(info.id, 0))
                    while let current = item, let key = KeyCoding.decodeStreamSequence(current.key), key.stream == info.id {
                        do throws(EventLogError) {
                            _ = try SnapshotRecord.decode(streamID: info.id, sequence: key.sequence, streamName: info.name, record: current.value)
                            found.append((key.sequence, nil))
                        } catch {
                            guard case .corruptSnapshot(_, _, let reason) = error else { throw error }
                            // A sound record under a damaged key is named where it says it belongs, not by a number
                            // the log may never reach.
                            if let recorded = SnapshotRecord.recordedPosition(current.value), recorded.stream == info.id {
                                found.append((recorded.sequence, "it is stored under a damaged key, #\(key.sequence), where readers do not look for it"))
                            } else {
                                found.append((key.sequence, reason))
                                report.damagedSnapshots.append(error)
                            }
                        }
                        item = try cursor.next()
                    }
                    return found
                }
            }
            for (sequence, problem) in found {
                if let problem {
                    report.error("the snapshot of stream '\(info.name)' is corrupt: \(problem)", at: sequence)
                } else if sequence <= bound {
                    report.snapshots += 1
                }
            }
            let snapshots = found.filter { $0.sequence <= bound }.map(\.sequence)
            let interval: Int? = switch policy {
            case .every(let n): n
            case .everyMutation: 1
            default: nil
            }
            if let interval {
                try checkSnapshotGaps(info, snapshots: Set(snapshots), through: bound, interval: interval, report: &report)
            }
        }
    }

    /// Warns about the first run of more than `interval` mutations without a snapshot, and counts the others.
    /// Walks the stream index's kind bytes, so damaged entries (reported elsewhere) do not stop it.
    private func checkSnapshotGaps(
        _ info: StreamInfo, snapshots: Set<UInt64>, through bound: UInt64, interval: Int, report: inout VerifyReport
    ) throws(EventLogError) {
        var since = 0
        var gaps = 0
        var first: UInt64?
        try storage.forEachIndexChunk(stream: info.id, damaged: { _ in }) { chunk in
            for key in chunk where key.sequence <= bound {
                if key.kind == EntryKind.mutation.rawValue { since += 1 }
                if since > interval {
                    gaps += 1
                    if first == nil { first = key.sequence }
                    since = 1
                }
                if snapshots.contains(key.sequence) { since = 0 }
            }
        }
        if let first {
            report.warning(
                "stream '\(info.name)' has \(gaps) run\(gaps == 1 ? "" : "s") of more than \(interval) mutations without a snapshot (the first ends here); time travel there needs the reducer for longer",
                at: first)
        }
    }
}

/// What verify counts apart of a stream's mutations logged without their values: by stream and by why.
private struct NotRecorded: Hashable {
    let stream: UInt32
    let missing: MissingValue
}

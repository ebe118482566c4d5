import EventLogKit
import Foundation
import TimeTravel

/// Writes a log, or the steps `from` through `through` of it, as an export that replays exactly: each stream
/// starts from a state the export carries (its initial state, or a snapshot right before its first exported
/// entry), every entry keeps its sequence number, time and cause, and the log's floor and snapshot policy come
/// along. `export` and `pack` use it; `import` reads it back.
struct ExportWriter {
    let session: Session
    /// The streams to export: every stream, or the one `stream` names.
    let streams: [StreamInfo]
    /// The stream chosen with `--stream`, whose entries are read through its index; `nil` reads the whole log in order.
    let stream: String?
    let from: UInt64
    let through: UInt64
    let redaction: Redaction

    /// Where a stream's part of the export starts.
    struct Start {
        let info: StreamInfo
        /// Every entry of the stream above this number is exported; 0 means from the stream's beginning.
        let after: UInt64
        /// The state right after `after`, when it is above 0.
        let state: SnapshotJSON?
        /// The damage that left the stream's entries up to `after` out: its base, the snapshot a trim left that they
        /// replay from, cannot be read, and the stream starts from the next snapshot that can.
        var lostBase: EventLogError?
    }

    /// What was written.
    struct Summary {
        var entries = 0
        var starts: [Start] = []
        /// What is wrong with the metadata's seal, whose values the header carries as stored (``ExportHeader/metadataDamage``).
        var metadataDamage: EventLogError?
        /// The actions written without their call sites, kept in a damaged stream index (``CallSiteLookup/leftOut``).
        var leftOutSites = DamageTally()
        /// The snapshots left out because their records are damaged: the first damage, and how many. The export
        /// replays the same without them, from an earlier state and more of its entries.
        var leftOutSnapshots = DamageTally()
        /// Damage among the snapshots' keys: they were read past it, the snapshot under a key that does not read left out.
        var snapshotKeyDamage: EventLogError?
        /// The entries left out because their streams' descriptors are damaged, by stream id: the first damage, and how
        /// many. The export holds the other streams whole.
        var leftOutStreams: [UInt32: DamageTally] = [:]

        /// Throws, after the export is written, the damage that left call sites or snapshots out of it (exit 5), or
        /// nothing when none was; `rest` says what was done with the others ("written", "packed").
        func requireWhole(rest: String) throws {
            var done: [String] = []
            if metadataDamage != nil { done.append("the header's metadata was written as stored, and says so") }
            if leftOutSites.count > 0 { done.append(CallSiteLookup.leftOutClause(leftOutSites.count)) }
            switch leftOutSnapshots.count {
            case 0: break
            case 1: done.append("a damaged snapshot was left out")
            case let count: done.append("\(count) damaged snapshots were left out")
            }
            if snapshotKeyDamage != nil { done.append("the snapshots were read past a damaged key") }
            if let clause = ReadableEntries.undescribedClause(leftOutStreams) { done.append(clause) }
            let lostBases = starts.filter { $0.lostBase != nil }
            for start in lostBases {
                done.append("the entries of '\(start.info.name)' up to #\(start.after) were left out, the snapshot a trim left for them damaged")
            }
            let streamDamage = leftOutStreams.keys.min().flatMap { leftOutStreams[$0]?.first } ?? lostBases.first?.lostBase
            guard let damage = metadataDamage ?? streamDamage ?? leftOutSites.first ?? leftOutSnapshots.first ?? snapshotKeyDamage else { return }
            throw InspectorFailure.readPast(["\(done.joined(separator: "; ")), the rest \(rest)"], damage: damage)
        }
    }

    /// Each stream's start: right before `from`, with the state the stream's reducer rebuilds when this inspector
    /// knows it, else the nearest recorded state before `from` (the export then holds the entries after it too).
    func starts() throws -> [Start] {
        try streams.compactMap { info in
            guard try session.log.lastSequence(stream: info.name, atOrBefore: through) != nil else { return nil }
            return try start(of: info)
        }
    }

    private func start(of info: StreamInfo) throws -> Start {
        let log = session.log
        let (base, lostBase) = info.sequenceFloor > 0 ? try base(of: info) : (nil, nil)
        let earliest = base?.sequence ?? 0
        func recorded(_ sequence: UInt64) throws -> Start {
            guard sequence > 0, let snapshot = try log.latestSnapshot(stream: info.name, atOrBefore: sequence, passingOverDamage: true) else {
                return Start(info: info, after: 0, state: nil)
            }
            return Start(info: info, after: snapshot.sequence, state: snapshotJSON(snapshot, stream: info.name))
        }
        guard from > 1, let before = try log.lastSequence(stream: info.name, atOrBefore: from - 1), before > earliest else {
            guard let base else { return Start(info: info, after: 0, state: nil) }
            return Start(info: info, after: base.sequence, state: snapshotJSON(base, stream: info.name), lostBase: lostBase)
        }
        let machine = try session.machine(for: info)
        if machine.canReduce, let entry = try log.entry(at: before) {
            let state = redaction.apply(try machine.json(at: before))
            return Start(info: info, after: before, state: SnapshotJSON(
                stream: info.name, sequence: before, timestamp: entry.timestamp, timestampNanoseconds: String(entry.timestamp), codec: CodecID.json.description,
                state: state, stateBase64: nil))
        }
        return try recorded(before)
    }

    /// The oldest snapshot of trimmed stream `info` that can be read, and the damage that left it out when the stream's
    /// entries before it cannot be replayed: the trim's base, which they replay from, is damaged (its record, or a key
    /// that does not place it). When no snapshot reads, the first damage is thrown.
    private func base(of info: StreamInfo) throws -> (Snapshot?, EventLogError?) {
        var damage: EventLogError?
        for sequence in try snapshotSequences(of: info.name, damage: &damage) {
            do {
                guard let snapshot = try session.log.snapshot(stream: info.name, at: sequence) else { continue }
                // The base describes an entry the trim removed: an entry at or before this one was replayed from another.
                let lost = try session.log.lastSequence(stream: info.name, atOrBefore: sequence) != nil
                return (snapshot, lost ? damage : nil)
            } catch {
                guard case .corruptSnapshot = error else { throw error }
                damage = damage ?? error
            }
        }
        if let damage { throw damage }
        return (nil, nil)
    }

    /// Writes the export to `sink`: JSON lines as the log is read, or one document. `command` names it in a refusal
    /// (`export`, `pack`).
    func write(format: Export.Format, to sink: OutputSink, command: String) throws -> Summary {
        var reached = from
        do {
            return try writeRange(format: format, to: sink, reached: &reached)
        } catch let error as EventLogError {
            throw refusal(error, command: command, reached: reached)
        } catch TimeTravelError.stepUnreadable(_, _, let damage, _) {
            // A stream's state before `from` is rebuilt through the damage.
            throw refusal(damage, command: command, reached: 1)
        } catch let error as TimeTravelError {
            // Or through a mutation logged without its value: the range may start at it, or after the snapshot after it.
            guard case .valueNotRecorded(_, _, let mutation, _, let readableFrom) = error else { throw error }
            let after = readableFrom.map { " or after the snapshot at #\($0) (--from \($0 + 1))" } ?? ""
            let hint = "\(command == "export" ? "An" : "A") \(command) starts from each stream's state before its range: start it at that mutation (--from \(mutation))\(after)."
            throw InspectorFailure(error.line(hint: hint), exit: .invalidArgument)
        }
    }

    /// Damage in the range, or before it where a stream's starting state is rebuilt through it: an export holds every
    /// entry of its range, so the hint names the ranges on either side of the damage that can be exported, and
    /// `compact`, which copies the whole log, damage and all. `reached` is the first number not read yet, where the
    /// stretch that cannot be read is looked for (a damaged key may name a number far from it).
    private func refusal(_ error: EventLogError, command: String, reached: UInt64) -> any Error {
        guard case .corruptEntry(let sequence, _) = error else { return error }
        var entries = session.log.entries(EntryQuery(from: min(max(reached, 1), sequence), stream: stream))
        let stretch = ((try? entries.skip(past: error)) ?? nil) ?? sequence...sequence
        var ranges: [String] = []
        // A range before the damage, where it holds an entry: a trim may have removed every number below it.
        var before = session.log.entries(EntryQuery(from: max(from, 1), through: stretch.lowerBound &- 1, limit: 1, stream: stream))
        if stretch.lowerBound > max(from, 1), ((try? before.next()) ?? nil) != nil {
            ranges.append("before the damage (--to \(stretch.lowerBound - 1))")
        }
        if let after = firstStart(after: stretch), after <= min(through, (try? session.log.highestSequence()) ?? 0) {
            ranges.append("after \(ranges.isEmpty ? "the damage" : "it") (--from \(after))")
        }
        let part = ranges.isEmpty ? "" : "\(command) the entries \(ranges.joined(separator: " or ")), or "
        let article = command == "export" ? "An" : "A"
        let hint = "\(article) \(command) holds every entry of its range and each stream's state before it: \(part)copy the whole log, damage and all, with `reactorlog compact LOG COPY`."
        return InspectorFailure(error.line(hint: hint), exit: .corrupt)
    }

    /// The first `--from` past `stretch`, entries that cannot be read, that every exported stream's start
    /// (``start(of:)``) can be found for: the step after, for each stream with entries in the stretch, its first entry
    /// after the stretch whose state is known again (``EventLog/unreadablePart(of:in:)``, as `verify` names it), or
    /// without its reducer the first snapshot after the stretch, which the export would start from; `nil` where one
    /// of them has none (no snapshot after the damage, or no entry after it).
    private func firstStart(after stretch: ClosedRange<UInt64>) -> UInt64? {
        let log = session.log
        guard stretch.upperBound < .max else { return nil }
        var start = stretch.upperBound + 1
        for info in streams {
            guard let part = log.unreadablePart(of: info.name, in: stretch) else { continue }
            var known = max(stretch.upperBound + 1, part.statesUnknown.last?.upperBound ?? 0)
            if (try? session.machine(for: info))?.canReduce != true {
                known = (try? log.snapshotSequences(stream: info.name).first { $0 >= known }) ?? nil ?? .max
            }
            guard known < .max else { return nil }
            var after = log.entries(EntryQuery(from: known, stream: info.name))
            guard let entry = (try? after.next()) ?? nil else { return nil }
            start = max(start, entry.sequence + 1)
        }
        return start
    }

    /// The log's pins whose window meets the range; `nil` when none does.
    private func pins() throws -> [ExportPin]? {
        let pins = try session.log.pins().filter { $0.range.overlaps(from...max(from, through)) }
        return pins.isEmpty ? nil : pins.map {
            ExportPin(from: $0.range.lowerBound, through: $0.range.upperBound, reason: $0.reason, createdAt: $0.createdAt, createdAtNanoseconds: String($0.createdAt), damaged: $0.isDamaged ? true : nil)
        }
    }

    /// Writes the range; `reached` follows the first number not read yet.
    private func writeRange(format: Export.Format, to sink: OutputSink, reached: inout UInt64) throws -> Summary {
        let starts = try starts()
        // Metadata its seal does not vouch for is written as stored, the header saying why, and named at the end.
        let (metadata, sealDamage) = try session.log.storedMetadata()
        let metadataDamage = sealDamage.map { metadata.unvouched ?? $0.unvouchedClause }
        let header = ExportHeader(
            formatVersion: metadata.formatVersion, library: EventLog.libraryVersion,
            streams: try starts.map(streamHeader), createdAt: metadata.createdAt, createdAtNanoseconds: metadata.createdAt.map(String.init), createdBy: metadata.createdBy, snapshotPolicy: metadata.snapshotPolicy?.description,
            sequenceFloor: min(metadata.sequenceFloor, through),
            range: from > 1 || through < .max ? ExportRange(from: from, through: through) : nil,
            redacted: redaction.isEmpty ? nil : redaction.keys.sorted(),
            exportVersion: metadataDamage == nil ? ExportHeader.vouchedExportVersion : ExportHeader.currentExportVersion,
            pins: try pins(), metadataDamage: metadataDamage)
        var summary = Summary(starts: starts, metadataDamage: sealDamage)
        let after = Dictionary(uniqueKeysWithValues: starts.map { ($0.info.name, $0.after) })
        let first = starts.map { $0.after + 1 }.min().map { min($0, from) } ?? from
        let query = EntryQuery(from: first, through: through, stream: stream)
        var entries: [EntryJSON] = []
        var snapshots = starts.compactMap(\.state)
        if format == .jsonl {
            try sink.write(jsonString(ExportLine(reactorlog: header), pretty: false))
            for state in snapshots { try sink.write(jsonString(ExportLine(snapshot: state), pretty: false)) }
            snapshots = []
        }
        // Read in place: nothing is copied out of the log but the line itself.
        var sites = try CallSiteLookup(log: session.log, streams: starts.map(\.info.name), following: false)
        reached = first
        try session.log.forEachEntry(query, undescribed: { _, damage in
            guard case .corruptStream(let id, _) = damage else { return }
            summary.leftOutStreams[id, default: DamageTally()].add(damage)
        }) { entry in
            reached = entry.sequence + 1
            guard let start = after[entry.stream], entry.sequence > start else { return }
            let site = entry.kind == .action ? try sites.json(at: entry.sequence) : nil
            if format == .jsonl {
                try sink.writeLine { EntryLine.append(entry, wrapped: true, callSiteJSON: site, redaction: redaction, to: &$0) }
            } else {
                var line: [UInt8] = []
                EntryLine.append(entry, wrapped: false, callSiteJSON: site, redaction: redaction, to: &line)
                entries.append(try JSONDecoder().decode(EntryJSON.self, from: Data(line)))
            }
            summary.entries += 1
            if summary.entries % 65_536 == 0 { session.terminal.showProgress("export: \(summary.entries) entries") }
        }
        // A key that lost bytes can hide the log's last block, and the walk then ends before it without an error.
        if let (numbers, damage) = try session.log.hiddenTail(stream: stream), numbers.lowerBound <= through {
            reached = numbers.lowerBound
            throw damage
        }
        for start in starts {
            for sequence in try snapshotSequences(of: start.info.name, damage: &summary.snapshotKeyDamage) where sequence > start.after && sequence <= through {
                guard let snapshot = try snapshot(of: start.info.name, at: sequence, leftOut: &summary.leftOutSnapshots) else { continue }
                let line = snapshotJSON(snapshot, stream: start.info.name)
                if format == .jsonl { try sink.write(jsonString(ExportLine(snapshot: line), pretty: false)) } else { snapshots.append(line) }
            }
        }
        if format == .json {
            try sink.write(jsonString(ExportDocument(reactorlog: header, entries: entries, snapshots: snapshots), pretty: true))
        }
        session.terminal.endProgress()
        summary.leftOutSites = sites.leftOut
        return summary
    }

    private func streamHeader(_ start: Start) throws -> ExportHeader.Stream {
        let info = start.info
        let gaps = try session.log.gaps(stream: info.name)
            .filter { $0.removed.upperBound > start.after && $0.removed.lowerBound <= through }
            .map { ExportRange(from: $0.removed.lowerBound, through: $0.removed.upperBound) }
        // An era that ends past the export's end holds everything the export has of it from there: it ends there.
        let eras = try session.log.schemaHistory(stream: info.name).eras
            .map { ExportSchemaEra(fingerprint: $0.fingerprint, through: min($0.through, through)) }
        let state = exported(info.initialState, codec: info.initialStateCodec)
        var stream = ExportHeader.Stream(
            name: info.name, reactorType: info.reactorType, schemaFingerprint: info.schemaFingerprint,
            createdAt: info.createdAt, createdAtNanoseconds: String(info.createdAt), initialStateCodec: info.initialStateCodec.description, initialState: state.json,
            initialStateBase64: state.base64,
            sequenceFloor: max(start.after, min(info.sequenceFloor, through)), startsAfter: start.after, gaps: gaps.isEmpty ? nil : gaps)
        stream.schemaEras = eras.isEmpty ? nil : eras
        return stream
    }

    /// The numbers of `stream`'s snapshots; when keys among them are damaged, every other one, the damage kept in
    /// `damage`: the export then lacks the snapshot under the damaged key, and says so.
    private func snapshotSequences(of stream: String, damage: inout EventLogError?) throws -> [UInt64] {
        let listing = try session.log.snapshotListing(stream: stream)
        if let found = listing.damage { damage = damage ?? found }
        return listing.sequences
    }

    /// The snapshot of `stream` stored at `sequence`, or `nil` when its record is damaged, which `leftOut` counts:
    /// the export replays the same without it.
    private func snapshot(of stream: String, at sequence: UInt64, leftOut: inout DamageTally) throws -> Snapshot? {
        do {
            return try session.log.snapshot(stream: stream, at: sequence)
        } catch {
            guard case .corruptSnapshot = error else { throw error }
            leftOut.add(error)
            return nil
        }
    }

    private func snapshotJSON(_ snapshot: Snapshot, stream: String) -> SnapshotJSON {
        let state = exported(snapshot.state, codec: snapshot.codec)
        return SnapshotJSON(
            stream: stream, sequence: snapshot.sequence, timestamp: snapshot.timestamp, timestampNanoseconds: String(snapshot.timestamp), codec: snapshot.codec.description,
            state: state.json, stateBase64: state.base64)
    }

    /// A recorded state as an export holds it: JSON, redacted, for the JSON and binary codecs; base64 for any other.
    private func exported(_ state: Data, codec: CodecID) -> (json: JSONValue?, base64: String?) {
        let json = ((try? JSONValue(payload: state, codec: codec)) ?? nil).map(redaction.apply)
        return (json, json == nil ? state.base64EncodedString() : nil)
    }
}

import EventLogKit
import Foundation
import TimeTravel

/// Rebuilds a log from an export (``ExportWriter``), keeping every sequence number, time and cause, each stream's
/// starting state and floors, and the snapshot policy. It refuses an export that would replay differently from its
/// source: a stream that starts neither at its opening nor right after a state the export carries.
struct ExportImporter {
    let log: EventLog
    let header: ExportHeader
    let file: String
    private var created: Set<String> = []
    private var startsFound: Set<String> = []
    private var lastSequence: UInt64 = 0
    private var gapEnd: UInt64 = 0
    private(set) var count = 0

    /// What an import made.
    struct Imported {
        /// The entries the new log holds.
        let count: Int
        /// Why its metadata is unvouched, when the export's header says so (``ExportHeader/metadataDamage``).
        let metadataDamage: String?
        /// The export's last line, cut short, where the import read the lines before it (`readingPastCutShortEnd`).
        let cutShortLine: Int?
    }

    /// Imports the export `reader` reads into a new log at `path`. With `readingPastCutShortEnd`, a last line cut short
    /// ends the export rather than the import (for a command that reads it, and says so).
    static func importAll(_ reader: LineReader, file: String, into path: String, readingPastCutShortEnd: Bool = false) throws -> Imported {
        var lines = try ExportLines(reader: reader, file: file)
        lines.readsPastCutShortEnd = readingPastCutShortEnd
        var configuration = EventLogConfiguration()
        if let policy = lines.header.snapshotPolicy.flatMap(SnapshotPolicy.init) { configuration.snapshotPolicy = policy }
        let target = try EventLog.open(at: path, configuration: configuration)
        var importer = ExportImporter(log: target, header: lines.header, file: file)
        if let createdAt = try lines.header.createdAt.map({ try importer.exactTime($0, lines.header.createdAtNanoseconds, "createdAt", line: 1) }) {
            // A version is a short run of letters, digits, dots, pluses and hyphens; anything else is not kept.
            let version = lines.header.createdBy.flatMap { version in
                version.count <= 40 && version.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".+-".contains($0)) } ? version : nil
            }
            try target.restoreCreation(at: createdAt, by: version)
        }
        while let (number, line) = try lines.next() {
            if let entry = line.entry { try importer.add(entry, line: number) }
            if let snapshot = line.snapshot { try importer.add(snapshot, line: number) }
            if line.entry == nil && line.snapshot == nil {
                throw importer.bad(number, "it is neither an entry nor a snapshot")
            }
        }
        try importer.finish()
        // Values the source's seal did not vouch for stay unvouched here, though this log's own seal covers them.
        if let damage = lines.header.metadataDamage { try target.markMetadataUnvouched(because: damage) }
        try target.flush()
        // The last word: a log that `verify` would call damaged is never left behind.
        if let problem = try target.verify().problems.first(where: { $0.severity == .error }) {
            throw InspectorFailure("\(file) cannot be imported: the log it describes would be inconsistent (\(problem.description)). Nothing was imported.", exit: .invalidArgument)
        }
        try target.close()
        return Imported(count: importer.count, metadataDamage: lines.header.metadataDamage, cutShortLine: lines.cutShortLine)
    }

    init(log: EventLog, header: ExportHeader, file: String) {
        self.log = log
        self.header = header
        self.file = file
    }

    mutating func add(_ entry: EntryJSON, line: Int) throws {
        guard let kind = EntryKind(name: entry.kind) else { throw bad(line, "its kind '\(entry.kind)' is unknown") }
        if entry.sequence <= lastSequence {
            let what = entry.sequence == lastSequence ? "repeats" : "goes back from"
            throw bad(line, "its entry #\(entry.sequence) \(what) #\(lastSequence): an export lists each entry once, in order")
        }
        let stream = try describe(entry.stream, line: line)
        let after = stream.startsAfter ?? 0
        if entry.sequence <= after {
            throw bad(line, "its entry #\(entry.sequence) lies before #\(after), where the export starts stream '\(entry.stream)'")
        }
        if !created.contains(entry.stream) {
            if after == 0 && kind != .streamOpened {
                throw bad(line, "stream '\(entry.stream)' starts at #\(entry.sequence) with neither its opening nor the state before it, so it cannot replay as it did; export the whole stream, or export the range again with this version, which carries the starting state")
            }
            try create(stream)
        }
        if entry.sequence > lastSequence + 1 { gapEnd = entry.sequence - 1 }
        lastSequence = entry.sequence
        try log.restoreEntry(EntryDraft(
            kind: kind, caseName: entry.case, payload: try payload(entry.payload, entry.payloadBase64, codec: entry.codec, line: line),
            codec: try codec(entry.codec, line: line), cause: entry.cause, timestamp: try exactTime(entry.timestamp, entry.timestampNanoseconds, "timestamp", line: line), callSite: entry.callSite),
            sequence: entry.sequence, stream: entry.stream)
        count += 1
    }

    /// A time of the export: its exact digits (`…Nanoseconds`), which a tool that reads numbers as doubles keeps (jq,
    /// which rounds the number to 17 digits), else the number (`field`, of `owner` where the line holds more than one).
    /// Refused when the two differ by more than such a rounding: one was edited without the other, and neither can be
    /// taken for the time.
    func exactTime(_ number: Int64, _ digits: String?, _ field: String, of owner: String? = nil, line: Int) throws -> Int64 {
        guard let digits else { return number }
        let (its, of) = owner.map { ("the", " of \($0)") } ?? ("its", "")
        guard let exact = Int64(digits) else {
            throw bad(line, "\(its) \(field)Nanoseconds '\(digits)'\(of) is not a whole number of nanoseconds")
        }
        let (difference, overflow) = exact.subtractingReportingOverflow(number)
        guard !overflow, difference.magnitude <= exact.magnitude >> 50 + 1 else {
            throw bad(line, "\(its) \(field) \(number) and \(field)Nanoseconds \(digits)\(of) disagree by more than a rounding: set both to the same time")
        }
        return exact
    }

    mutating func add(_ snapshot: SnapshotJSON, line: Int) throws {
        let stream = try describe(snapshot.stream, line: line)
        let after = stream.startsAfter ?? 0
        if snapshot.sequence == after && after > 0 {
            startsFound.insert(stream.name)
        } else if snapshot.sequence <= after || snapshot.sequence > lastSequence {
            throw bad(line, "its snapshot at #\(snapshot.sequence) describes an entry of stream '\(snapshot.stream)' the export does not hold")
        }
        if !created.contains(stream.name) { try create(stream) }
        try log.restoreSnapshot(
            stream: stream.name, sequence: snapshot.sequence,
            timestamp: try exactTime(snapshot.timestamp, snapshot.timestampNanoseconds, "timestamp", line: line),
            state: try payload(snapshot.state, snapshot.stateBase64, codec: snapshot.codec, line: line), codec: try codec(snapshot.codec, line: line))
    }

    /// Checks that every stream that starts from a state has it, and raises the log's floor over the numbers the
    /// export leaves out.
    func finish() throws {
        for stream in header.streams where created.contains(stream.name) {
            if let after = stream.startsAfter, after > 0, !startsFound.contains(stream.name) {
                throw InspectorFailure("\(file) cannot be imported: it starts stream '\(stream.name)' after #\(after) but lacks its state there, so the stream cannot replay. Export it again.", exit: .invalidArgument)
            }
        }
        let streamFloors = header.streams.filter { created.contains($0.name) }.map(floor)
        try log.raiseSequenceFloor(to: max(gapEnd, header.sequenceFloor ?? 0, streamFloors.max() ?? 0))
        for pin in header.pins ?? [] {
            guard pin.from <= pin.through else { throw bad(1, "its pin #\(pin.from)…#\(pin.through) is not a range") }
            // A pin damaged in the source log keeps its window here, pinned anew and saying so.
            try log.restorePin(pin.damaged == true
                ? LogPin(range: pin.from...pin.through, reason: Self.damagedPinReason, createdAt: Int64(Date().timeIntervalSince1970 * 1e9))
                : LogPin(range: pin.from...pin.through, reason: pin.reason, createdAt: try exactTime(
                    pin.createdAt, pin.createdAtNanoseconds, "createdAt", of: "pin #\(pin.from)…#\(pin.through)", line: 1)))
        }
    }

    /// The reason of a pin restored for one whose record was damaged in the source log.
    static let damagedPinReason = "kept for a pin whose record was damaged (its reason was lost)"

    private func floor(_ stream: ExportHeader.Stream) -> UInt64 {
        max(stream.startsAfter ?? 0, stream.sequenceFloor ?? 0)
    }

    private func describe(_ name: String, line: Int) throws -> ExportHeader.Stream {
        guard let stream = header.streams.first(where: { $0.name == name }) else {
            throw bad(line, "it names stream '\(name)', which the header does not describe")
        }
        return stream
    }

    private mutating func create(_ stream: ExportHeader.Stream) throws {
        try log.restoreStream(StreamInfo(
            id: 0, name: stream.name, reactorType: stream.reactorType, schemaFingerprint: stream.schemaFingerprint,
            createdAt: try exactTime(stream.createdAt, stream.createdAtNanoseconds, "createdAt", of: "stream '\(stream.name)'", line: 1),
            initialStateCodec: try codec(stream.initialStateCodec, line: 1),
            initialState: try payload(stream.initialState, stream.initialStateBase64, codec: stream.initialStateCodec, line: 1),
            sequenceFloor: floor(stream)))
        created.insert(stream.name)
        for gap in stream.gaps ?? [] {
            guard gap.from >= 1, gap.from <= gap.through else {
                throw bad(1, "its gap #\(gap.from)…#\(gap.through) of stream '\(stream.name)' is not a range")
            }
            try log.restoreGap(StreamGap(stream: stream.name, removed: gap.from...gap.through))
        }
        for era in stream.schemaEras ?? [] {
            guard !era.fingerprint.isEmpty, era.fingerprint.utf8.count <= 4096 else {
                throw bad(1, "a schema era of stream '\(stream.name)' has no fingerprint, or one longer than 4096 bytes")
            }
            try log.restoreSchemaEra(SchemaHistory.Era(fingerprint: era.fingerprint, through: era.through), stream: stream.name)
        }
    }

    /// The bytes a line gives for a payload of `codec`: JSON for `json`, JSON or base64 (a payload that was
    /// not well formed) for `binary`, nothing for `none`, base64 for the others.
    private func payload(_ json: JSONValue?, _ base64: String?, codec: String, line: Int) throws -> Data {
        switch (codec, json, base64) {
        case ("json", nil, _): throw bad(line, "its codec is json but it has no JSON payload")
        case ("binary", let json?, _):
            guard json.isExpressibleAsJSON else { throw bad(line, "its JSON holds a number JSON cannot express (such as 1e999)") }
            do {
                return try CodecID.binary.payload(fromJSON: json.data)
            } catch {
                throw bad(line, "its payload cannot be written in the binary codec (\(error))")
            }
        case ("none", _?, _), ("none", _, _?): throw bad(line, "its codec is none but it has a payload")
        case (_, nil, nil) where codec != "none": throw bad(line, "its codec is \(codec) but it has no base64 payload")
        default: break
        }
        if let json {
            guard json.isExpressibleAsJSON else { throw bad(line, "its JSON holds a number JSON cannot express (such as 1e999)") }
            return json.data
        }
        guard let base64 else { return Data() }
        guard let data = Data(base64Encoded: base64) else { throw bad(line, "its base64 payload does not decode") }
        return data
    }

    private func codec(_ name: String, line: Int) throws -> CodecID {
        switch name {
        case "none": return .none
        case "json": return .json
        case "binary": return .binary
        default:
            guard name.hasPrefix("codec-"), let byte = UInt8(name.dropFirst(6)) else { throw bad(line, "its codec '\(name)' is unknown") }
            return CodecID(rawValue: byte)
        }
    }

    func bad(_ line: Int, _ reason: String) -> InspectorFailure {
        InspectorFailure("\(file) line \(line) cannot be imported: \(reason).", exit: .invalidArgument)
    }
}

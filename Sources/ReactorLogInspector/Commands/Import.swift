import ArgumentParser
import EventLogKit
import Foundation
import TimeTravel

/// `reactorlog import`.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Build a new log from an export (JSON lines or one JSON document).",
        discussion: """
            Entries keep their order, times, causes and payloads; snapshots are restored. An export of a whole log \
            gets the same sequence numbers back. Import is all or nothing: any line that is not valid UTF-8 and JSON \
            of the export's shape, and any entry whose sequence number is not above the one before, refuses the \
            whole file, naming the line. The log is built in a private directory beside LOG and moved into place \
            only when the import succeeds; a failed or interrupted import leaves nothing behind.
            """)

    @Argument(help: "The export to read.") var file: String
    @Argument(help: "The new log's directory; must not exist.") var log: String

    func run() async throws {
        try await inspect {
            guard !FileManager.default.fileExists(atPath: log) else {
                throw InspectorFailure("\(log) already exists. Import builds a new log: choose a new path.", exit: .invalidArgument)
            }
            guard let reader = LineReader(path: file) else {
                throw InspectorFailure("Cannot read \(file). Check the path.", exit: .cannotOpen)
            }
            let staging = try StagingDirectory(beside: log)
            let interrupts = staging.removeOnInterrupt()
            defer { interrupts.forEach { $0.cancel() } }
            do {
                let count = try importAll(reader, into: staging.path)
                try FileManager.default.moveItem(atPath: staging.path, toPath: log)
                try printLine("Imported \(count) entries into \(log).")
            } catch {
                staging.remove()
                throw error
            }
        }
    }

    private func importAll(_ reader: LineReader, into path: String) throws -> Int {
        var lines = try ExportLines(reader: reader, file: file)
        let target = try EventLog.open(at: path)
        var importer = Importer(log: target, header: lines.header, file: file)
        while let (number, line) = try lines.next() {
            if let entry = line.entry { try importer.add(entry, line: number) }
            if let snapshot = line.snapshot { try importer.add(snapshot, line: number) }
            if line.entry == nil && line.snapshot == nil {
                throw importer.bad(number, "it is neither an entry nor a snapshot")
            }
        }
        try target.close()
        return importer.count
    }
}

/// Appends exported entries to a new log, remapping sequence numbers and causes.
struct Importer {
    let log: EventLog
    let header: ExportHeader
    let file: String
    private var streams: [String: LogStream] = [:]
    private var mapped: [UInt64: UInt64] = [:]
    private var lastSequence: UInt64?
    private(set) var count = 0

    init(log: EventLog, header: ExportHeader, file: String) {
        self.log = log
        self.header = header
        self.file = file
    }

    mutating func add(_ entry: EntryJSON, line: Int) throws {
        guard let kind = EntryKind(name: entry.kind) else { throw bad(line, "its kind '\(entry.kind)' is unknown") }
        if let lastSequence, entry.sequence <= lastSequence {
            let what = entry.sequence == lastSequence ? "repeats" : "goes back from"
            throw bad(line, "its entry #\(entry.sequence) \(what) #\(lastSequence): an export lists each entry once, in order")
        }
        lastSequence = entry.sequence
        let stream = try open(entry.stream, line: line, timestamp: kind == .streamOpened ? entry.timestamp : nil)
        let sequence: UInt64
        if kind == .streamOpened && !stream.wasResumed && mapped.values.contains(stream.markerSequence) == false {
            sequence = stream.markerSequence
        } else {
            sequence = try stream.append(EntryDraft(
                kind: kind, caseName: entry.case, payload: try payload(entry.payload, entry.payloadBase64, codec: entry.codec, line: line),
                codec: try codec(entry.codec, line: line), cause: entry.cause.flatMap { mapped[$0] }, timestamp: entry.timestamp))
        }
        mapped[entry.sequence] = sequence
        count += 1
    }

    mutating func add(_ snapshot: SnapshotJSON, line: Int) throws {
        guard let sequence = mapped[snapshot.sequence] else {
            throw bad(line, "its snapshot at #\(snapshot.sequence) describes an entry the export does not hold")
        }
        try open(snapshot.stream, line: line).writeSnapshot(
            try payload(snapshot.state, snapshot.stateBase64, codec: snapshot.codec, line: line), codec: try codec(snapshot.codec, line: line), at: sequence)
    }

    private mutating func open(_ name: String, line: Int, timestamp: Int64? = nil) throws -> LogStream {
        if let stream = streams[name] { return stream }
        guard let info = header.streams.first(where: { $0.name == name }) else {
            throw bad(line, "it names stream '\(name)', which the header does not describe")
        }
        let stream = try log.openStream(
            named: name, reactorType: info.reactorType, schemaFingerprint: info.schemaFingerprint,
            initialState: try payload(info.initialState, info.initialStateBase64, codec: info.initialStateCodec, line: 1), codec: try codec(info.initialStateCodec, line: 1),
            timestamp: timestamp ?? info.createdAt)
        streams[name] = stream
        return stream
    }

    /// The bytes a line gives for a payload of `codec`: JSON for `json`, nothing for `none`, base64 for the others.
    private func payload(_ json: JSONValue?, _ base64: String?, codec: String, line: Int) throws -> Data {
        switch (codec, json, base64) {
        case ("json", nil, _): throw bad(line, "its codec is json but it has no JSON payload")
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
        default:
            guard name.hasPrefix("codec-"), let byte = UInt8(name.dropFirst(6)) else { throw bad(line, "its codec '\(name)' is unknown") }
            return CodecID(rawValue: byte)
        }
    }

    func bad(_ line: Int, _ reason: String) -> InspectorFailure {
        InspectorFailure("\(file) line \(line) cannot be imported: \(reason).", exit: .invalidArgument)
    }
}

/// The lines of an export, whichever its format: a header, then entries and snapshots. Every line must be
/// valid UTF-8 and decode as an export line; the first that does not stops the import, named by its number.
struct ExportLines {
    let header: ExportHeader
    private var pending: [ExportLine]?
    private let reader: LineReader
    private let file: String
    private var number = 1
    private let decoder = JSONDecoder()

    init(reader: LineReader, file: String) throws {
        self.reader = reader
        self.file = file
        guard let first = try reader.nextLine(file: file, number: 1) else {
            throw InspectorFailure("\(file) is empty. Give it a file written by `\(ReactorLogInspector.commandName) export`.", exit: .invalidArgument)
        }
        if let line = try? decoder.decode(ExportLine.self, from: Data(first.utf8)), let header = line.reactorlog {
            self.header = header
            self.pending = nil
        } else {
            var text = first
            var count = 1
            while let line = try reader.nextLine(file: file, number: count + 1) {
                text += "\n" + line
                count += 1
            }
            let document: ExportDocument
            do {
                document = try decoder.decode(ExportDocument.self, from: Data(text.utf8))
            } catch {
                throw InspectorFailure("\(file) is not a ReactorLog export: it starts with neither a header line nor a whole export document (\(Self.reason(error))). Write it with `\(ReactorLogInspector.commandName) export`.", exit: .invalidArgument)
            }
            self.header = document.reactorlog
            self.pending = document.entries.map { ExportLine(entry: $0) } + document.snapshots.map { ExportLine(snapshot: $0) }
        }
        guard header.formatVersion <= EventLog.formatVersion else {
            throw InspectorFailure("\(file) was exported from log format version \(header.formatVersion), but this ReactorLog reads versions up to \(EventLog.formatVersion). Upgrade ReactorLog to import it.", exit: .newerFormat)
        }
    }

    /// The next line and its number, `nil` at the end.
    mutating func next() throws -> (Int, ExportLine)? {
        if pending != nil {
            guard let line = pending?.first else { return nil }
            pending?.removeFirst()
            number += 1
            return (number, line)
        }
        while let line = try reader.nextLine(file: file, number: number + 1) {
            number += 1
            guard !line.isEmpty else { continue }
            do {
                return (number, try decoder.decode(ExportLine.self, from: Data(line.utf8)))
            } catch {
                throw InspectorFailure("\(file) line \(number) cannot be imported: \(Self.reason(error)). Nothing was imported.", exit: .invalidArgument)
            }
        }
        return nil
    }

    /// A decoding error in a few words.
    static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            return "it is not valid JSON" + (context.codingPath.isEmpty ? "" : " at \(path(context.codingPath))")
        case DecodingError.keyNotFound(let key, let context):
            return "it lacks '\(key.stringValue)'" + (context.codingPath.isEmpty ? "" : " in \(path(context.codingPath))")
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(path(context.codingPath)) has the wrong type"
        default:
            return "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

/// Reads a text file line by line, a buffer at a time; a line that is not valid UTF-8 is an error.
final class LineReader {
    private let handle: FileHandle
    private var buffer = Data()
    private var atEnd = false

    init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        self.handle = handle
    }

    deinit {
        try? handle.close()
    }

    /// The next line, without its newline; `nil` at the end.
    func nextLine(file: String, number: Int) throws -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                return try text(line, file: file, number: number)
            }
            if atEnd {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return try text(buffer, file: file, number: number)
            }
            let chunk = (try? handle.read(upToCount: 1 << 16)) ?? nil
            if let chunk, !chunk.isEmpty { buffer.append(chunk) } else { atEnd = true }
        }
    }

    private func text(_ bytes: Data, file: String, number: Int) throws -> String {
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            throw InspectorFailure("\(file) line \(number) cannot be imported: it is not valid UTF-8. Nothing was imported.", exit: .invalidArgument)
        }
        return text
    }
}

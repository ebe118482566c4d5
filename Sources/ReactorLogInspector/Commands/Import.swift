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
            gets the same sequence numbers back. The log is written to a temporary directory and moved into place \
            only when the import succeeds, so a failed import leaves nothing behind.
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
            let staging = log + ".importing-\(ProcessInfo.processInfo.processIdentifier)"
            do {
                let count = try importAll(reader, into: staging)
                try FileManager.default.moveItem(atPath: staging, toPath: log)
                try printLine("Imported \(count) entries into \(log).")
            } catch {
                try? FileManager.default.removeItem(atPath: staging)
                throw error
            }
        }
    }

    private func importAll(_ reader: LineReader, into path: String) throws -> Int {
        let lines = try ExportLines(reader: reader, file: file)
        let target = try EventLog.open(at: path)
        var importer = Importer(log: target, header: lines.header, file: file)
        for (number, line) in lines {
            if let entry = line.entry { try importer.add(entry, line: number) }
            if let snapshot = line.snapshot { try importer.add(snapshot, line: number) }
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
    private(set) var count = 0

    init(log: EventLog, header: ExportHeader, file: String) {
        self.log = log
        self.header = header
        self.file = file
    }

    mutating func add(_ entry: EntryJSON, line: Int) throws {
        guard let kind = EntryKind(name: entry.kind) else { throw bad(line, "its kind '\(entry.kind)' is unknown") }
        let stream = try open(entry.stream, line: line, timestamp: kind == .streamOpened ? entry.timestamp : nil)
        let sequence: UInt64
        if kind == .streamOpened && !stream.wasResumed && mapped.values.contains(stream.markerSequence) == false {
            sequence = stream.markerSequence
        } else {
            sequence = try stream.append(EntryDraft(
                kind: kind, caseName: entry.case, payload: try payload(entry.payload, entry.payloadBase64, line: line),
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
            try payload(snapshot.state, snapshot.stateBase64, line: line), codec: try codec(snapshot.codec, line: line), at: sequence)
    }

    private mutating func open(_ name: String, line: Int, timestamp: Int64? = nil) throws -> LogStream {
        if let stream = streams[name] { return stream }
        guard let info = header.streams.first(where: { $0.name == name }) else {
            throw bad(line, "it names stream '\(name)', which the header does not describe")
        }
        let stream = try log.openStream(
            named: name, reactorType: info.reactorType, schemaFingerprint: info.schemaFingerprint,
            initialState: try payload(info.initialState, info.initialStateBase64, line: 1), codec: try codec(info.initialStateCodec, line: 1),
            timestamp: timestamp ?? info.createdAt)
        streams[name] = stream
        return stream
    }

    private func payload(_ json: JSONValue?, _ base64: String?, line: Int) throws -> Data {
        if let json { return json.data }
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

    private func bad(_ line: Int, _ reason: String) -> InspectorFailure {
        InspectorFailure("\(file) line \(line) cannot be imported: \(reason).", exit: .invalidArgument)
    }
}

/// The lines of an export, whichever its format: a header, then entries and snapshots.
struct ExportLines: Sequence {
    let header: ExportHeader
    private let document: ExportDocument?
    private let reader: LineReader

    init(reader: LineReader, file: String) throws {
        self.reader = reader
        let decoder = JSONDecoder()
        guard let first = reader.nextLine() else {
            throw InspectorFailure("\(file) is empty. Give it a file written by `\(ReactorLogInspector.commandName) export`.", exit: .invalidArgument)
        }
        if let line = try? decoder.decode(ExportLine.self, from: Data(first.utf8)), let header = line.reactorlog {
            self.header = header
            self.document = nil
        } else {
            var text = first
            while let line = reader.nextLine() { text += "\n" + line }
            guard let document = try? decoder.decode(ExportDocument.self, from: Data(text.utf8)) else {
                throw InspectorFailure("\(file) is not a ReactorLog export: it starts with neither a header line nor a whole export document. Write it with `\(ReactorLogInspector.commandName) export`.", exit: .invalidArgument)
            }
            self.header = document.reactorlog
            self.document = document
        }
        guard header.formatVersion <= EventLog.formatVersion else {
            throw InspectorFailure("\(file) was exported from log format version \(header.formatVersion), but this ReactorLog reads versions up to \(EventLog.formatVersion). Upgrade ReactorLog to import it.", exit: .newerFormat)
        }
    }

    func makeIterator() -> AnyIterator<(Int, ExportLine)> {
        if let document {
            var lines = document.entries.map { ExportLine(entry: $0) } + document.snapshots.map { ExportLine(snapshot: $0) }
            var number = 1
            return AnyIterator {
                guard !lines.isEmpty else { return nil }
                number += 1
                return (number, lines.removeFirst())
            }
        }
        var number = 1
        let decoder = JSONDecoder()
        return AnyIterator { [reader] in
            while let line = reader.nextLine() {
                number += 1
                guard !line.isEmpty else { continue }
                return (number, (try? decoder.decode(ExportLine.self, from: Data(line.utf8))) ?? ExportLine())
            }
            return nil
        }
    }
}

/// Reads a text file line by line, a buffer at a time.
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

    func nextLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                return String(decoding: line, as: UTF8.self)
            }
            if atEnd {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            let chunk = (try? handle.read(upToCount: 1 << 16)) ?? nil
            if let chunk, !chunk.isEmpty { buffer.append(chunk) } else { atEnd = true }
        }
    }
}

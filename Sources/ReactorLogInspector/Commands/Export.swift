import ArgumentParser
import EventLogKit
import Foundation
import SystemPackage
import TimeTravel

/// The text form of a log: a header, then entries, then snapshots (docs/INSPECTOR.md).
struct ExportHeader: Codable {
    struct Stream: Codable {
        let name: String
        let reactorType: String
        let schemaFingerprint: String
        let createdAt: Int64
        let initialStateCodec: String
        let initialState: JSONValue?
        let initialStateBase64: String?
    }

    let formatVersion: Int
    let library: String
    let streams: [Stream]
}

/// A snapshot in an export.
struct SnapshotJSON: Codable {
    let stream: String
    let sequence: UInt64
    let timestamp: Int64
    let codec: String
    let state: JSONValue?
    let stateBase64: String?
}

/// One line of a JSON-lines export: exactly one of the three.
struct ExportLine: Codable {
    var reactorlog: ExportHeader?
    var entry: EntryJSON?
    var snapshot: SnapshotJSON?
}

/// A whole-document export.
struct ExportDocument: Codable {
    let reactorlog: ExportHeader
    let entries: [EntryJSON]
    let snapshots: [SnapshotJSON]
}

/// `reactorlog export`.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a log as text (JSON lines or one JSON document), to attach to a bug report or keep as a fixture.",
        discussion: "`reactorlog import` turns it back into a log. Use jsonl for large logs: it is written as it is read.")

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case jsonl, json
    }

    @OptionGroup var log: LogArgument
    @Option(name: .long, help: "jsonl (one JSON object per line) or json (one document).") var format: Format = .jsonl
    @Option(name: .shortAndLong, help: "Write to this new file instead of standard output (with the log's permissions).") var output: String?
    @Flag(name: .long, help: "Replace the --output file if it exists (never a symbolic link).") var force = false
    @Option(name: .long, help: "Only this stream.") var stream: String?
    @Option(name: .long, help: "From this sequence number.") var from: UInt64 = 1
    @Option(name: .long, help: "Up to this sequence number.") var to: UInt64?

    func run() async throws {
        try await inspect {
            let session = try Session.open(log.log)
            let streams = try session.log.streams().filter { stream == nil || $0.name == stream }
            if let stream, streams.isEmpty { throw EventLogError.unknownStream(name: stream) }
            let header = ExportHeader(
                formatVersion: EventLog.formatVersion, library: EventLog.libraryVersion,
                streams: streams.map { info in
                    let json = info.initialStateCodec == .json ? try? JSONValue(parsing: info.initialState) : nil
                    return .init(
                        name: info.name, reactorType: info.reactorType, schemaFingerprint: info.schemaFingerprint,
                        createdAt: info.createdAt, initialStateCodec: info.initialStateCodec.description, initialState: json,
                        initialStateBase64: json == nil ? info.initialState.base64EncodedString() : nil)
                })
            let sink = try OutputSink(path: output, force: force, mode: session.fileMode)
            var entries: [EntryJSON] = []
            if format == .jsonl { try sink.write(jsonString(ExportLine(reactorlog: header), pretty: false)) }
            var count = 0
            let query = EntryQuery(from: from, through: to ?? .max, stream: stream)
            if format == .jsonl {
                // Read in place: nothing is copied out of the log but the line itself.
                try session.log.forEachEntry(query) { entry in
                    try sink.writeLine { EntryLine.append(entry, wrapped: true, to: &$0) }
                    count += 1
                    if count % 65_536 == 0 { session.terminal.showProgress("export: \(count) entries") }
                }
            } else {
                var iterator = session.log.entries(query)
                while let entry = try iterator.next() { entries.append(EntryJSON(entry)) }
            }
            var snapshots: [SnapshotJSON] = []
            for info in streams {
                for sequence in try session.log.snapshotSequences(stream: info.name) where sequence >= from && sequence <= (to ?? .max) {
                    guard let snapshot = try session.log.latestSnapshot(stream: info.name, atOrBefore: sequence) else { continue }
                    let json = snapshot.codec == .json ? try? JSONValue(parsing: snapshot.state) : nil
                    let line = SnapshotJSON(
                        stream: info.name, sequence: sequence, timestamp: snapshot.timestamp, codec: snapshot.codec.description,
                        state: json, stateBase64: json == nil ? snapshot.state.base64EncodedString() : nil)
                    if format == .jsonl { try sink.write(jsonString(ExportLine(snapshot: line), pretty: false)) } else { snapshots.append(line) }
                }
            }
            if format == .json {
                try sink.write(jsonString(ExportDocument(reactorlog: header, entries: entries, snapshots: snapshots), pretty: true))
            }
            try sink.commit()
            session.terminal.endProgress()
        }
    }
}

/// Standard output or a new file (``OutputFile``).
final class OutputSink {
    private let file: OutputFile?

    init(path: String?, force: Bool, mode: FilePermissions) throws {
        file = try path.map { try OutputFile(path: $0, force: force, mode: mode) }
    }

    private var pending: [UInt8] = []

    /// Writes a line of JSON made by an encoder, escaped as ``writeJSONLine(_:)`` escapes it.
    func write(_ line: String) throws {
        try writeLine { $0.append(contentsOf: terminalSafeJSON(line).utf8) }
    }

    /// Writes the line `body` appends, already terminal-safe (``EntryLine``): to the file, or to standard output,
    /// in blocks of about a megabyte.
    func writeLine(_ body: (inout [UInt8]) -> Void) throws {
        if let file { return try file.writeLine(body) }
        body(&pending)
        pending.append(UInt8(ascii: "\n"))
        if pending.count >= 1 << 20 { try flushStandardOutput() }
    }

    private func flushStandardOutput() throws {
        guard !pending.isEmpty else { return }
        defer { pending.removeAll(keepingCapacity: true) }
        try writeStandardOutput(pending)
    }

    func commit() throws {
        try flushStandardOutput()
        try file?.commit()
    }
}

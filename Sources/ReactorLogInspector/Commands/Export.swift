import ArgumentParser
import EventLogKit
import Foundation
import SystemPackage
import TimeTravel

/// `reactorlog export`.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a log as text (JSON lines or one JSON document), to attach to a bug report or keep as a fixture.",
        discussion: """
            `reactorlog import` turns it back into a log with the same sequence numbers, times, causes, snapshots and \
            snapshot policy. A range (--from, --to) carries each stream's state right before it, so the imported \
            log replays the same states; every command also opens an export directly. Use jsonl for large logs: \
            it is written as it is read.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case jsonl, json
    }

    @OptionGroup var log: LogArgument
    @Option(name: .long, help: "jsonl (one JSON object per line) or json (one document).") var format: Format = .jsonl
    @Option(name: [.short, .customLong("out"), .customLong("output")], help: ArgumentHelp("Write to this new file instead of standard output (with the log's permissions). --output is another name for it.", valueName: "out")) var out: String?
    @Flag(name: .long, help: "Replace the --out file if it exists (never a symbolic link).") var force = false
    @Option(name: .long, help: "Only this stream.") var stream: String?
    @Option(name: .long, help: "From this sequence number.", transform: StepArgument.parse) var from: UInt64 = 1
    @Option(name: .long, help: "Up to this sequence number.", transform: StepArgument.parse) var to: UInt64?
    @Option(name: .long, help: "Mask the values of this object key in payloads and states (repeat for more keys).") var redact: [String] = []

    func validate() throws {
        try StepRange.validate(from: from, to: to)
    }

    func run() async throws {
        try await inspect(opening: log.log) { session in
            if let stream { _ = try session.stream(stream) }
            let streams = try session.log.streams().filter { stream == nil || $0.name == stream }
            let writer = ExportWriter(session: session, streams: streams, stream: stream, from: from, through: to ?? .max, redaction: Redaction(keys: redact))
            if from > 1 || to != nil { try StepRange.requireEntries(in: session.log, stream: stream, from: from, through: to ?? .max) }
            let sink = try OutputSink(path: out, force: force, mode: session.fileMode, option: "--out")
            let summary = try writer.write(format: format, to: sink, command: "export")
            try sink.commit()
            if let warning = writer.redaction.unmatchedWarning { printDiagnostic(warning) }
            try summary.requireWhole(rest: "written")
        }
    }
}

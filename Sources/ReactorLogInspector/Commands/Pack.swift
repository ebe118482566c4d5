import ArgumentParser
import EventLogKit
import Foundation
import TimeTravel

/// `reactorlog pack`.
struct Pack: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the last minutes (or a range) of a log into one small file to attach to a bug report.",
        discussion: """
            The pack is a JSON-lines export of the range: each stream's state right before it, then its entries \
            with their sequence numbers, times, causes and markers, its snapshots, the schema fingerprints and \
            the snapshot policy. Every command opens it directly (`reactorlog state bug.pack --at N`) or after \
            `reactorlog import`, and shows exactly the original's states and diffs for those steps. --redact masks \
            a key's values everywhere. Without --last, --since, --until, --from or --to, the pack holds the whole log.
            """)

    @OptionGroup var log: LogArgument
    @Option(name: .long, help: "Only this stream.") var stream: String?
    @Option(name: .long, help: "Only the entries of this long before the last one, such as 90s, 15m, 2h, 1h30m or 1d.", transform: { try LengthOfTime.parse($0) }) var last: LengthOfTime?
    @Option(name: .long, help: "From the first entry at or after this time: ISO 8601, a local date and time (2026-11-21 22:37:55), a date (2026-11-21: from its start), or HH:MM[:SS[.sss]] on the day of the last entry, local time.") var since: String?
    @Option(name: .long, help: "Up to the last entry before the first one after this time, through its last digit (14:03 is up to 14:03:59.999…, 2026-11-21 up to that day's end).") var until: String?
    @Option(name: .long, help: "From this sequence number.", transform: StepArgument.parse) var from: UInt64?
    @Option(name: .long, help: "Up to this sequence number.", transform: StepArgument.parse) var to: UInt64?
    @Option(name: [.short, .long], help: "The file to write (default: LOG's name with .pack).") var out: String?
    @Flag(name: .long, help: "Replace the --out file if it exists (never a symbolic link).") var force = false
    @Option(name: .long, help: "Mask the values of this object key in payloads and states (repeat for more keys).") var redact: [String] = []

    func validate() throws {
        if [last != nil, since != nil, from != nil].filter({ $0 }).count > 1 { throw ValidationError("Give one of --last, --since and --from.") }
        if until != nil && to != nil { throw ValidationError("Give --until or --to, not both.") }
        try StepRange.validate(from: from, to: to)
    }

    func run() async throws {
        try await inspect(opening: log.log) { session in
            if let stream { _ = try session.stream(stream) }
            let streams = try session.log.streams().filter { stream == nil || $0.name == stream }
            let (start, through) = try range(in: session.log)
            let writer = ExportWriter(session: session, streams: streams, stream: stream, from: start, through: through, redaction: Redaction(keys: redact))
            if from != nil || to != nil { try StepRange.requireEntries(in: session.log, stream: stream, from: start, through: through) }
            let path = out ?? Self.defaultPath(for: log.log)
            let sink = try OutputSink(path: path, force: force, mode: session.fileMode, option: "--out")
            let summary = try writer.write(format: .jsonl, to: sink, command: "pack")
            try sink.commit()
            let size = Info.fileSize(path)
            try printLine("Packed \(counted(summary.entries, "entry", "entries")) of \(describe(summary.starts)) into \(path) (\(Self.bytes(size))).")
            if let warning = writer.redaction.unmatchedWarning { printDiagnostic(warning) }
            try summary.requireWhole(rest: "packed")
        }
    }

    /// The steps to pack: `--from` and `--to`, or the steps `--since` and `--until` select, or the entries (of
    /// `--stream`, if given) within `--last` of the last one.
    private func range(in log: EventLog) throws -> (from: UInt64, through: UInt64) {
        let times = try EntryFilters.steps(since: since, until: until, stream: stream, in: log)
        let through = times.through ?? to ?? .max
        var start = times.from ?? from ?? 1
        if let last {
            let lastSequence = try stream.map { try log.lastSequence(stream: $0, atOrBefore: through) } ?? min(try log.highestSequence(), through)
            if let lastSequence, let latest = try log.entry(at: lastSequence) {
                let since = latest.timestamp - last.nanoseconds
                start = try EntryFilters.firstEntry(in: log, stream: stream, since: since, through: through)?.sequence ?? latest.sequence
            }
        }
        return (start, through)
    }

    private func describe(_ starts: [ExportWriter.Start]) -> String {
        guard !starts.isEmpty else { return "no stream" }
        return starts.map { start in
            "'\(start.info.name)'" + (start.after > 0 ? " (from its state after #\(start.after))" : " (from its start)")
        }.joined(separator: ", ")
    }

    /// `LOG.pack` beside the working directory: `search.reactorlog` gives `search.pack`.
    static func defaultPath(for log: String) -> String {
        let name = URL(fileURLWithPath: log).standardizedFileURL.lastPathComponent
        return (name.hasSuffix(".reactorlog") ? String(name.dropLast(11)) : name) + ".pack"
    }

    static func bytes(_ count: Int) -> String {
        switch count {
        case ..<1000: "\(count) bytes"
        case ..<100_000: String(format: "%.1f kB", Double(count) / 1000)
        case ..<10_000_000: "\(count / 1000) kB"
        default: "\(count / 1_000_000) MB"
        }
    }
}

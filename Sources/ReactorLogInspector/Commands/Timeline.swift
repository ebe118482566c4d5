import ArgumentParser
import EventLogKit
import Foundation

/// `reactorlog timeline`.
struct Timeline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a stream's timeline as one self-contained HTML page: step through its states, diffs and blame in a browser.",
        discussion: """
            The page needs no network and no server: open it from a bug report's attachments. It holds at most \
            --limit entries (the last ones, or the first ones from --from or --since) and says so when the range has \
            more.
            """)

    @OptionGroup var log: LogArgument
    @OptionGroup var streamOption: StreamOption
    @Option(name: .long, help: "From this sequence number (default: the last --limit entries).", transform: StepArgument.parse) var from: UInt64?
    @Option(name: .long, help: "Up to this sequence number (default: the last).", transform: StepArgument.parse) var to: UInt64?
    @Option(name: .long, help: "From the first entry at or after this time: ISO 8601, a local date and time (2026-11-21 22:37:55), a date (2026-11-21: from its start), or HH:MM[:SS[.sss]] on the day of the last entry, local time.") var since: String?
    @Option(name: .long, help: "Up to the last entry before the first one after this time, through its last digit (14:03 is up to 14:03:59.999…, 2026-11-21 up to that day's end).") var until: String?
    @Option(name: .long, help: "The most entries the page holds.") var limit = 100_000
    @Option(name: [.short, .long], help: "The page to write (default: STREAM.timeline.html).") var out: String?
    @Flag(name: .long, help: "Replace the --out file if it exists (never a symbolic link).") var force = false

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1.") }
        if since != nil && from != nil { throw ValidationError("Give --since or --from, not both.") }
        if until != nil && to != nil { throw ValidationError("Give --until or --to, not both.") }
        try StepRange.validate(from: from, to: to)
    }

    func run() async throws {
        try await inspect(opening: log.log) { session in
            let stream = try session.stream(streamOption.stream)
            if from != nil || to != nil {
                try StepRange.requireEntries(in: session.log, stream: stream.name, from: from ?? 1, through: to ?? .max)
            }
            let times = try EntryFilters.steps(since: since, until: until, stream: stream.name, in: session.log)
            let (from, to) = (times.from ?? from, times.through ?? to)
            let machine = try session.machine(for: stream)
            var sites = try CallSiteLookup(log: session.log, streams: [stream.name], following: false)
            var readable = ReadableEntries()
            var document = try TimelineDocument.make(
                machine: machine, log: session.log, logName: log.log, from: from, through: to, limit: limit, sites: &sites, readable: &readable
            ) { count in session.terminal.showProgress("timeline: \(count) entries") }
            // The page names what its source lacks, as the command's last line does (a pack cut short, a log read
            // around damage to its meta pages), so that a page shared on its own says it too.
            let note = document.range.note
            if session.isReadAround { document.range.note = [note, session.whatWasRead].compactMap { $0 }.joined(separator: " ") }
            let path = out ?? Self.defaultName(stream: stream.name)
            let file = try OutputFile(path: path, force: force, mode: session.fileMode, option: "--out")
            try file.write(TimelinePage.html(document))
            try file.commit()
            session.terminal.endProgress()
            try printLine("Wrote \(path): \(counted(document.range.shown, "entry", "entries")) of stream '\(stream.name)', #\(document.range.first)…#\(document.range.last).")
            if let note { try printLine(note) }
            try readable.require(rest: "shown")
            try CallSiteLookup.require(sites.leftOut, rest: "shown")
        }
    }

    /// `STREAM.timeline.html`, with anything but letters, digits, `-` and `_` in the stream's name replaced.
    static func defaultName(stream: String) -> String {
        let safe = String(stream.unicodeScalars.map { scalar in
            CharacterSet.alphanumerics.contains(scalar) && scalar.isASCII || scalar == "-" || scalar == "_" ? Character(scalar) : "_"
        })
        return (safe.isEmpty ? "stream" : safe) + ".timeline.html"
    }
}

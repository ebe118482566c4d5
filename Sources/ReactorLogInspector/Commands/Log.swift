import ArgumentParser
import EventLogKit
import Foundation

/// `reactorlog log`.
struct Log: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List entries, one per line, mutations indented under the action that caused them.")

    @OptionGroup var log: LogArgument
    @Option(name: .long, help: "Only this stream.") var stream: String?
    @Option(name: .long, help: "From this sequence number.", transform: StepArgument.parse) var from: UInt64 = 1
    @Option(name: .long, help: "Up to this sequence number.", transform: StepArgument.parse) var to: UInt64?
    @Option(name: .long, help: "Only entries of this kind: action, mutation, error, opened, resumed or closed (repeat it, or separate kinds with commas).") var kind: [String] = []
    @Option(name: .customLong("case"), help: "Only entries with this case name, such as updateQuery.") var caseName: String?
    @Option(name: .long, help: "Only entries since this time: ISO 8601 (2026-11-21T22:37:55Z), a local date and time as show prints it (2026-11-21 22:37:55.383), a date (2026-11-21: from its start), or HH:MM[:SS[.sss]], local time on the day of the last entry, as a listing prints it.") var since: String?
    @Option(name: .long, help: "Only entries until this time, through its last digit (14:03 is up to 14:03:59.999…, 2026-11-21 up to that day's end).") var until: String?
    @Option(name: [.customShort("n"), .long], help: "At most this many entries, the first ones (as `git log -n`; `tail -n` shows the last).") var limit: Int?
    @Flag(name: .long, help: "Under each mutation, what it changed in its stream's state.") var changes = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        try StepRange.validate(from: from, to: to)
    }

    func run() async throws {
        try await inspect(opening: log.log) { session in
            let (since, until) = try EntryFilters.times(since: since, until: until, in: session.log, stream: stream)
            let query = try EntryQuery(
                from: from, through: to ?? .max, limit: try EntryFilters.count(limit, option: "--limit"), stream: stream, kinds: EntryFilters.kinds(kind),
                caseName: caseName, since: since, until: until)
            if let stream { _ = try session.stream(stream) }
            let width = try session.log.streams().map(\.name.shownColumns).max() ?? 0
            let formatter = EntryFormatter(terminal: session.terminal, streamWidth: width, sequenceWidth: "#\(try session.log.highestSequence())".count)
            if changes {
                let listed = try listChanges(session, query, formatter: formatter)
                if listed == 0 { try requireMatches(in: session.log) }
                return
            }
            var json = output.json ? try EntryJSONWriter(log: session.log, stream: stream, following: false) : nil
            var printed = false
            var readable = ReadableEntries()
            try readable.forEach(in: session.log, query) { entry in
                printed = true
                if json != nil {
                    try json?.write(entry)
                } else {
                    try formatter.printListed(entry)
                }
            }
            try readable.require(rest: "listed")
            try json?.requireCallSites()
            if !printed { try requireMatches(in: session.log) }
        }
    }

    /// After a listing with nothing in it, refuses a filter that matches nothing in the whole log (of `--stream`), which
    /// reads as a mistake rather than an answer: a case no entry has, or times when no entry was written (`--since
    /// 14:00` on a log whose last entry was written at 13:00). A filter that matches outside the range listed is an answer: none.
    private func requireMatches(in log: EventLog) throws {
        if let caseName { try Self.requireCase(caseName, stream: stream, in: log) }
        if since != nil || until != nil { _ = try EntryFilters.steps(since: since, until: until, stream: stream, in: log) }
    }

    /// Refuses a case name no entry has (a typo, `setQery`), which would otherwise read as a case with no entries in
    /// range, naming the cases there are. A case found outside the range is an answer: none in range. Only run when
    /// nothing was listed, so a match costs nothing.
    static func requireCase(_ caseName: String, stream: String?, in log: EventLog) throws {
        var anywhere = log.entries(EntryQuery(limit: 1, stream: stream, caseName: caseName))
        if try anywhere.next() != nil { return }
        var names = Set<String>()
        var all = log.entries(EntryQuery(stream: stream))
        while let entry = try all.next() {
            if !entry.caseName.isEmpty { names.insert(entry.caseName) }
        }
        let owner = stream.map { "stream '\($0)'" } ?? "the log"
        let sorted = names.sorted()
        let cases = "cases are \(sorted.joined(separator: ", "))"
        let said = sorted.isEmpty ? "it has no named cases"
            : UsageLine.nearest(to: caseName, among: sorted).map { "did you mean '\($0)'? Its \(cases)" } ?? "its \(cases)"
        throw InspectorFailure.lacking("No entry of \(owner) has the case '\(caseName)': \(said).")
    }
}

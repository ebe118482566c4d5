import ArgumentParser
import EventLogKit

/// `reactorlog tail`.
struct Tail: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the latest entries; with --follow, keep printing entries as another process writes them.")

    @OptionGroup var log: LogArgument
    @Option(name: [.customShort("n"), .long], help: "How many of the latest entries to show first.") var lines = 10
    @Option(name: .long, help: "Only this stream; with --follow, one the log does not have yet is waited for.") var stream: String?
    @Flag(name: .long, help: "Keep printing new entries until interrupted.") var follow = false
    @Flag(name: .long, help: "Under each mutation, what it changed in its stream's state.") var changes = false
    @OptionGroup var output: OutputOptions

    func run() async throws {
        // Followed, a log not begun yet is waited for, as a stream is below.
        try await inspect(opening: log.log, awaitingLog: follow) { session in
            if follow && session.isExport {
                throw InspectorFailure(
                    "\(log.log) is an export, which never grows: --follow needs a log directory that a process writes. Drop --follow to list its last entries.",
                    exit: .invalidArgument)
            }
            // Followed, a stream not yet in the log is waited for (a reactor that has not begun); listed, it is refused.
            if let stream { _ = try follow ? session.awaitedStream(stream) : session.stream(stream) }
            let highest = try session.log.highestSequence()
            let count = UInt64(try EntryFilters.count(lines, option: "--lines") ?? 0)
            // The latest entries of the stream asked for, wherever they lie among the others' (a stream that ended
            // long ago included); of the log, the last numbers.
            let start = if let stream {
                try session.log.firstOfLatest(Int(count), stream: stream, atOrBefore: highest) ?? highest + 1
            } else {
                highest > count ? highest - count + 1 : 1
            }
            let width = max(try session.log.streams().map(\.name.shownColumns).max() ?? 0, stream?.shownColumns ?? 0)
            let formatter = EntryFormatter(terminal: session.terminal, streamWidth: width, sequenceWidth: "#\(highest)".count)
            var json = output.json ? try EntryJSONWriter(log: session.log, stream: stream, following: follow) : nil
            var follower = changes ? ChangeFollower(session: session) : nil
            let emit = { (entry: LogEntry) throws -> Void in
                let change = entry.kind == .mutation ? try follower?.change(made: entry) : nil
                try Log.write(entry, change: change, formatter: formatter, json: &json)
            }
            let query = EntryQuery(from: start, stream: stream)
            if follow {
                // Each entry written at once, also into a pipe: the next may be a while coming.
                for try await entry in session.log.follow(query) {
                    try emit(entry)
                    try StandardOutput.flush()
                }
            } else {
                var readable = ReadableEntries()
                try readable.forEach(in: session.log, EntryQuery(from: start, through: highest, stream: stream), skipped: { follower?.skip($0) }, emit)
                readable.unshownStates = follower?.unshown
                try readable.require(rest: "listed")
                try json?.requireCallSites()
            }
        }
    }
}

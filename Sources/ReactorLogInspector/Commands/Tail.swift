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
        guard follow else {
            try await inspect(opening: log.log) { session in try await show(session, following: false) }
            return
        }
        // As `tail -F` follows a file: a log not begun yet is waited for, and one removed or replaced at its path is
        // followed on in the log now there, from its first entry, once the former is let go of.
        try await inspect {
            var replaced = false
            while true {
                let session = try await Session.openOnceBegun(log.log)
                do {
                    try await show(session, following: true, fromFirst: replaced)
                    return
                } catch EventLogError.replacedWhileOpen {
                    printDiagnostic("\(log.log) was removed or replaced: following the log at that path from its first entry.")
                    replaced = true
                }
            }
        }
    }

    /// The latest entries of `session`'s log (`fromFirst`, all of them), and while `following`, every entry written
    /// after them.
    private func show(_ session: Session, following: Bool, fromFirst: Bool = false) async throws {
        if following && session.isExport {
            throw InspectorFailure(
                "\(log.log) is an export, which never grows: --follow needs a log directory that a process writes. Drop --follow to list its last entries.",
                exit: .invalidArgument)
        }
        // Followed, a stream not yet in the log is waited for (a reactor that has not begun); listed, it is refused.
        if let stream { _ = try following ? session.awaitedStream(stream) : session.stream(stream) }
        let highest = try session.log.highestSequence()
        let count = UInt64(try EntryFilters.count(lines, option: "--lines") ?? 0)
        // The latest entries of the stream asked for, wherever they lie among the others' (a stream that ended
        // long ago included); of the log, the last numbers.
        let latest: UInt64 = if fromFirst {
            1
        } else if let stream {
            try session.log.firstOfLatest(Int(count), stream: stream, atOrBefore: highest) ?? highest + 1
        } else {
            highest > count ? highest - count + 1 : 1
        }
        // Listed, the latest that can be read: where damage leaves fewer in those numbers, from further back.
        let start = following || latest > highest
            ? latest : Self.start(ofLatest: Int(count), readableFrom: latest, through: highest, stream: stream, in: session.log)
        let width = max(try session.log.streams().map(\.name.shownColumns).max() ?? 0, stream?.shownColumns ?? 0)
        // Followed, numbers grow as the lines come: room for six characters (`#99999`) from the start, so that the
        // columns of a log followed from its beginning do not move at #10, #100, #1000 and #10000.
        let numbers = "#\(highest)".count
        let formatter = EntryFormatter(terminal: session.terminal, streamWidth: width, sequenceWidth: following ? max(numbers, 6) : numbers)
        var json = output.json ? try EntryJSONWriter(log: session.log, stream: stream, following: following) : nil
        var follower = changes ? ChangeFollower(session: session) : nil
        let emit = { (entry: LogEntry) throws -> Void in
            let change = entry.kind == .mutation ? try follower?.change(made: entry) : nil
            try Log.write(entry, change: change, formatter: formatter, json: &json)
        }
        let query = EntryQuery(from: start, stream: stream)
        if following {
            // Each entry written at once, also into a pipe: the next may be a while coming.
            for try await entry in session.log.follow(query) {
                try emit(entry)
                try StandardOutput.flush()
            }
        } else {
            var readable = ReadableEntries()
            try readable.forEach(in: session.log, EntryQuery(from: start, through: highest, stream: stream), skipped: { follower?.skip($0) }, emit)
            readable.unshownStates = follower?.unshown ?? DamageTally()
            try readable.require(rest: "listed")
            try json?.requireCallSites()
        }
    }

    /// Where the latest `count` entries that can be read begin, through `highest`: `start`, when its range holds that
    /// many, or else where a range reaching further back (twice as far each time, down to #1) finds them. Damage, or
    /// entries a trim or retention removed, can leave fewer in the last numbers: a log whose last block is damaged
    /// listed nothing before (2026-12-04), only what it left out. Damage the reading cannot pass leaves `start`, for the
    /// listing to name.
    static func start(ofLatest count: Int, readableFrom start: UInt64, through highest: UInt64, stream: String?, in log: EventLog) -> UInt64 {
        var (from, reach) = (start, max(highest - start + 1, 1))
        while count > 0 {
            var found: [UInt64] = []
            var iterator = log.entries(EntryQuery(from: from, through: highest, stream: stream))
            do {
                while let entry = try iterator.nextReadable(skipped: { _, _ in }) { found.append(entry.sequence) }
            } catch {
                return start
            }
            if found.count >= count { return found[found.count - count] }
            guard from > 1 else { return from }
            from = from > reach ? from - reach : 1
            reach = reach > UInt64.max / 2 ? .max : reach * 2
        }
        return start
    }
}

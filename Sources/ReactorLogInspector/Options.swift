import ArgumentParser
import EventLogKit

/// The log every command reads.
struct LogArgument: ParsableArguments {
    @Argument(help: "The log directory, such as demo.reactorlog.")
    var log: String
}

/// `--json`.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print JSON for scripts (stable field names, see docs/INSPECTOR.md).")
    var json = false
}

/// `--stream`.
struct StreamOption: ParsableArguments {
    @Option(name: .long, help: "The stream (default: the only stream, or the stream of the step asked about).")
    var stream: String?
}

/// `--from` and `--to`, checked the same way by every command that takes both.
enum StepRange {
    /// Refuses `--from` after `--to`, a range that holds nothing, before the log is opened.
    static func validate(from: UInt64?, to: UInt64?) throws {
        if let from, let to, from > to { throw ValidationError("--from \(from) is after --to \(to): give the earlier step first.") }
    }

    /// Refuses a range that holds no entry (of `stream`, when given), naming where the entries are: a pack, an
    /// export or a timeline of it would hold nothing to look at.
    static func requireEntries(in log: EventLog, stream: String?, from: UInt64, through: UInt64) throws {
        var inRange = log.entries(EntryQuery(from: from, through: through, limit: 1, stream: stream))
        do throws(EventLogError) {
            guard try inRange.next() == nil else { return }
        } catch {
            // Entries that cannot be read are entries: the command's own reading names the damage and what it can do.
            guard case .corruptEntry = error else { throw error }
            return
        }
        let owner = stream.map { "Stream '\($0)'" } ?? "The log"
        let range = through == .max ? "from #\(from) on" : "in #\(from)…#\(through)"
        guard let held = try held(in: log, stream: stream) else {
            throw InspectorFailure.lacking("\(owner) has no entries, so none \(range).")
        }
        throw InspectorFailure.lacking("\(owner) has no entry \(range): its entries run \(held). Choose --from and --to inside them.")
    }

    /// Where the entries (of `stream`, when given) run, `#20…#45`: a pack or a trimmed log starts past #1. `nil`
    /// when there are none.
    static func held(in log: EventLog, stream: String?) throws -> String? {
        var first = log.entries(EntryQuery(limit: 1, stream: stream))
        guard let start = try first.next()?.sequence else { return nil }
        let end = try stream.map { try log.highestSequence(stream: $0) } ?? log.highestSequence()
        return "#\(start)…#\(end)"
    }
}

extension Durability: ExpressibleByArgument {}

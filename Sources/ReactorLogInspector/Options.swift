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
}

extension Durability: ExpressibleByArgument {}

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

extension Durability: ExpressibleByArgument {}

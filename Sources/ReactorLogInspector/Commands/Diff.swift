import ArgumentParser
import EventLogKit
import TimeTravel

/// `reactorlog diff`.
struct Diff: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show what changed in a stream's state between two steps.")

    @OptionGroup var log: LogArgument
    @Argument(help: ArgumentHelp("The earlier step (0: the initial state).", valueName: "from"), transform: StepArgument.parse) var a: UInt64
    @Argument(help: ArgumentHelp("The later step.", valueName: "to"), transform: StepArgument.parse) var b: UInt64
    @OptionGroup var streamOption: StreamOption
    @OptionGroup var output: OutputOptions

    struct DiffJSON: Codable {
        let stream: String
        let from: UInt64
        let to: UInt64
        let changes: [ChangeJSON]
    }

    func run() async throws {
        try await inspect(opening: log.log) { session in
            let stream = try session.stream(streamOption.stream, step: b)
            // Without --stream, the steps name the stream: two steps of two streams leave it unsaid which one's
            // states to compare (the later step's would be taken, and the earlier one read as its initial state).
            if streamOption.stream == nil, a > 0, let first = try session.log.entry(at: a), first.stream != stream.name {
                throw InspectorFailure(
                    "#\(a) is an entry of stream '\(first.stream)' and #\(b) of '\(stream.name)': a diff compares one stream's states. Choose it with --stream.",
                    exit: .invalidArgument)
            }
            let diff = try session.machine(for: stream).diff(from: a, to: b)
            if output.json { return try printJSON(DiffJSON(stream: stream.name, from: a, to: b, changes: ChangeJSON.list(diff))) }
            try printLine(session.terminal.paint("\(stream.name): #\(a) → #\(b)", .bold))
            for line in diff.rendered() { try printLine(DiffColors.paint(line, session.terminal)) }
        }
    }
}

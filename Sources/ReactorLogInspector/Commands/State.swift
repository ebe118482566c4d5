import ArgumentParser
import EventLogKit
import TimeTravel

/// `reactorlog state`.
struct State: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a stream's state right after a step (0: the initial state), as JSON.")

    @OptionGroup var log: LogArgument
    @Argument(help: "The step: a sequence number (0: the initial state).", transform: StepArgument.parse) var step: UInt64?
    @Option(name: .long, help: ArgumentHelp("The step, as an option: `state LOG --at 29` is `state LOG 29`.", valueName: "step"), transform: StepArgument.parse)
    var at: UInt64?
    @OptionGroup var streamOption: StreamOption
    @Option(name: .long, help: "Only the value at this path, such as repos[3], user.name or repos.count.") var path: String?
    @OptionGroup var output: OutputOptions

    struct StateJSON: Codable {
        let stream: String
        let step: UInt64
        let path: String
        let value: JSONValue?
    }

    func validate() throws {
        switch (step, at) {
        case (nil, nil):
            throw ValidationError("Give the step whose state to print, as in '\(ReactorLogInspector.commandName) state \(log.log) 29' (0: the initial state; \(UsageLine.quotedStep)).")
        case let (step?, at?) where step != at:
            throw ValidationError("Two steps given, \(step) and --at \(at): give one.")
        default:
            break
        }
    }

    func run() async throws {
        // One of the two, as `validate()` checked.
        let at = step ?? at ?? 0
        try await inspect(opening: log.log) { session in
            let statePath = try path.map { try StatePath(parsing: $0) } ?? StatePath([])
            let stream = try session.stream(streamOption.stream, step: at)
            let state = try session.machine(for: stream).json(at: at)
            let value = state[statePath]
            if output.json {
                return try printJSON(StateJSON(stream: stream.name, step: at, path: statePath.description, value: value))
            }
            guard let value else {
                let missing = MissingPath(path: statePath, state: state)
                throw InspectorFailure(
                    "The state of '\(stream.name)' at #\(at) has nothing at '\(statePath)' (\(missing)). " + (missing.meant.map { "Did you mean '\($0)'?" } ?? "Check the path, or print the whole state to see its paths."),
                    exit: .invalidArgument)
            }
            try printLines(value.pretty())
        }
    }
}

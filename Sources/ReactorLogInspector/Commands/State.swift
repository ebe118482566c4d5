import ArgumentParser
import EventLogKit
import TimeTravel

/// `reactorlog state`.
struct State: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a stream's state right after a step (0: the initial state), as JSON.")

    @OptionGroup var log: LogArgument
    @Option(name: .long, help: "The step: a sequence number.") var at: UInt64
    @OptionGroup var streamOption: StreamOption
    @Option(name: .long, help: "Only the value at this path, such as repos[3], user.name or repos.count.") var path: String?
    @OptionGroup var output: OutputOptions

    struct StateJSON: Codable {
        let stream: String
        let step: UInt64
        let path: String
        let value: JSONValue?
    }

    func run() async throws {
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

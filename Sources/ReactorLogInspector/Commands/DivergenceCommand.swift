import ArgumentParser
import EventLogKit
import TimeTravel

/// `reactorlog divergence`.
struct DivergenceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "divergence",
        abstract: "Replay a stream with the current reducer and report the first step where it differs from the recorded states.")

    @OptionGroup var log: LogArgument
    @OptionGroup var streamOption: StreamOption
    @OptionGroup var output: OutputOptions

    struct DivergenceJSON: Codable {
        let stream: String
        let diverges: Bool
        let step: UInt64?
        let from: UInt64?
        let mutation: EntryJSON?
        let action: EntryJSON?
        let changes: [ChangeJSON]
    }

    func run() async throws {
        try await inspect(opening: log.log) { session in
            let stream = try session.stream(streamOption.stream)
            let machine = try session.machine(for: stream)
            guard machine.canReduce else {
                throw InspectorFailure(
                    "Divergence needs the reducer of \(stream.reactorType), which this inspector does not know. Build an inspector that registers it (docs/INSPECTOR.md).",
                    exit: .needsReducer)
            }
            let found = try machine.divergence(from: nil, through: .max)
            if output.json {
                try printJSON(DivergenceJSON(
                    stream: stream.name, diverges: found != nil, step: found?.step, from: found?.range.lowerBound,
                    mutation: found?.mutation.map { EntryJSON($0) }, action: found?.action.map { EntryJSON($0) },
                    changes: found.map { ChangeJSON.list($0.diff) } ?? []))
            } else if let found {
                try printLine(found.summary + " Recorded → replayed:")
                for line in found.diff.rendered() { try printLine("  " + line) }
            } else {
                try printLine("Replay reproduces every state recorded in stream \(stream.name).")
            }
            if found != nil { throw ExitCode(InspectorExit.finding.rawValue) }
        }
    }
}

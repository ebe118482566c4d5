import ArgumentParser
import EventLogKit
import TimeTravel

/// `reactorlog divergence`.
struct DivergenceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "divergence",
        abstract: "Replay a stream (or every stream) with the current reducer and report the first step where it differs from the recorded states.")

    @OptionGroup var log: LogArgument
    @Option(name: .long, help: "Only this stream (default: every stream of the log).") var stream: String?
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
            // One stream asked for, or the log's only one: its report alone, as before; else every stream's in turn.
            let all = try session.log.streams()
            let streams = try stream == nil && all.count > 1 ? all : [session.stream(stream)]
            let several = streams.count > 1
            var reports: [DivergenceJSON] = []
            var unchecked: [StreamInfo] = []
            for stream in streams {
                let machine = try session.machine(for: stream)
                guard machine.canReduce else {
                    unchecked.append(stream)
                    continue
                }
                let found = try machine.divergence(from: nil, through: .max)
                reports.append(DivergenceJSON(
                    stream: stream.name, diverges: found != nil, step: found?.step, from: found?.range.lowerBound,
                    mutation: found?.mutation.map { EntryJSON($0) }, action: found?.action.map { EntryJSON($0) },
                    changes: found.map { ChangeJSON.list($0.diff) } ?? []))
                guard !output.json else { continue }
                if let found {
                    try printLine((several ? "\(stream.name): " : "") + found.summary + " Recorded → replayed:")
                    for line in found.diff.rendered() { try printLine("  " + line) }
                } else {
                    try printLine(several ? "\(stream.name): Replay reproduces every recorded state." : "Replay reproduces every state recorded in stream \(stream.name).")
                }
            }
            if output.json, !reports.isEmpty {
                if several { try printJSON(reports) } else { try printJSON(reports[0]) }
            }
            // A divergence found is the answer (exit 1); the streams replay could not check are still named.
            let needs = unchecked.isEmpty ? nil : Self.needsReducers(unchecked, checked: reports.count)
            if reports.contains(where: \.diverges) {
                if let needs { printDiagnostic("warning: " + needs.message) }
                throw ExitCode(InspectorExit.finding.rawValue)
            }
            if let needs { throw needs }
        }
    }

    /// The streams whose reducer this inspector does not know, which replay cannot check: exit 6, after the others'
    /// reports, so that exit 0 always means every stream was replayed.
    private static func needsReducers(_ unchecked: [StreamInfo], checked: Int) -> InspectorFailure {
        let named = unchecked.map { "\($0.name) (\($0.reactorType))" }.joined(separator: ", ")
        let what = unchecked.count == 1 ? "the reducer of \(named)" : "the reducers of \(named)"
        let rest = checked == 0 ? "" : " The other streams were checked."
        return InspectorFailure(
            "Divergence needs \(what), which this inspector does not know.\(rest) Build an inspector that registers it (docs/INSPECTOR.md).",
            exit: .needsReducer)
    }
}

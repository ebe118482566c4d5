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
        /// The stretches left unchecked (absent in a sound log whose every mutation has its value).
        let unchecked: [Unchecked]?
        /// How many recorded states replay was compared with; 0 with `uncompared`, where nothing was checked.
        let compared: Int
        /// The steps that hold mutations but no recorded state to compare replay with, when none was compared.
        let uncompared: Range?

        /// Steps from `from` through `through`.
        struct Range: Codable {
            let from: UInt64
            let through: UInt64
        }

        /// Steps whose recorded states could not be compared, and why: `damage`, or `notRecorded` for a mutation the
        /// log holds without its value.
        struct Unchecked: Codable {
            let from: UInt64
            let through: UInt64
            let damage: String?
            let notRecorded: String?
        }
    }

    func run() async throws {
        try await inspect(opening: log.log) { session in
            // One stream asked for, or the log's only one: its report alone, as before; else every stream's in turn.
            let all = try session.log.streams()
            let streams = try stream == nil && all.count > 1 ? all : [session.stream(stream)]
            let several = streams.count > 1
            var reports: [DivergenceJSON] = []
            var withoutReducer: [StreamInfo] = []
            // Each stream's steps left unchecked, and why; the streams that recorded no state to compare replay with.
            var leftUnchecked: [(stream: String, stretches: [DivergenceReport.Unchecked])] = []
            var notCompared: [(stream: String, steps: ClosedRange<UInt64>)] = []
            for stream in streams {
                let machine = try session.machine(for: stream)
                guard machine.canReduce else {
                    withoutReducer.append(stream)
                    continue
                }
                // Around damage: the recorded states that can be compared are, the others named after the reports.
                let report = try machine.divergenceReport(from: nil, through: .max)
                let found = report.divergence
                if !report.unchecked.isEmpty { leftUnchecked.append((stream.name, report.unchecked)) }
                if let steps = report.uncompared { notCompared.append((stream.name, steps)) }
                reports.append(DivergenceJSON(
                    stream: stream.name, diverges: found != nil, step: found?.step, from: found?.range.lowerBound,
                    mutation: found?.mutation.map { EntryJSON($0) }, action: found?.action.map { EntryJSON($0) },
                    changes: found.map { ChangeJSON.list($0.diff) } ?? [],
                    unchecked: report.unchecked.isEmpty ? nil : report.unchecked.map {
                        .init(
                            from: $0.steps.lowerBound, through: $0.steps.upperBound, damage: $0.damage?.problem,
                            notRecorded: $0.damage == nil ? $0.problem : nil)
                    },
                    compared: report.compared, uncompared: report.uncompared.map { .init(from: $0.lowerBound, through: $0.upperBound) }))
                guard !output.json else { continue }
                let lead = several ? "\(stream.name): " : ""
                if let found {
                    try printLine(lead + found.summary + " Recorded → replayed:")
                    for line in found.diff.rendered() { try printLine("  " + line) }
                } else if report.uncompared != nil, report.unchecked.isEmpty {
                    // One stream's is the command's error alone.
                    if several { try printLine(lead + report.description) }
                } else if report.unchecked.isEmpty {
                    try printLine(several ? "\(stream.name): Replay reproduces every recorded state." : "Replay reproduces every state recorded in stream \(stream.name).")
                } else {
                    try printLine(lead + "Replay reproduces every recorded state it could check; \(Self.named(report.unchecked)) could not be checked.")
                }
            }
            if output.json, !reports.isEmpty {
                if several { try printJSON(reports) } else { try printJSON(reports[0]) }
            }
            // A divergence found is the answer (exit 1); the streams replay could not check, and the steps damage left
            // unchecked, are still named. Without one, damage is the answer (exit 5), then a reducer not known (6).
            let needs = withoutReducer.isEmpty && notCompared.isEmpty ? nil
                : Self.needsStates(withoutReducer, notCompared, checked: reports.count - notCompared.count)
            // Damage ends the command, named in the first stream it was met in (exit 5); a mutation held without its
            // value is no damage: a warning.
            let damage = leftUnchecked.lazy.compactMap { stream, stretches -> InspectorFailure? in
                let damaged = stretches.filter { $0.damage != nil }
                guard let first = damaged.first?.damage else { return nil }
                let lead = several ? "in stream \(stream), " : ""
                return InspectorFailure.readPast(["\(lead)\(Self.named(damaged)) could not be checked, the rest compared"], damage: first)
            }.first
            for (stream, stretches) in leftUnchecked {
                let notRecorded = stretches.filter { $0.damage == nil }
                guard let first = notRecorded.first else { continue }
                printDiagnostic("warning: " + (several ? "in stream \(stream), " : "") + "\(Self.named(notRecorded)) could not be checked: \(first.problem)")
            }
            if reports.contains(where: \.diverges) {
                for failure in [damage, needs].compactMap({ $0 }) { printDiagnostic("warning: " + failure.message) }
                throw ExitCode(InspectorExit.finding.rawValue)
            }
            if let damage {
                if let needs { printDiagnostic("warning: " + needs.message) }
                throw damage
            }
            if let needs { throw needs }
        }
    }

    /// The steps `stretches` name, as a phrase: `#4025…#4439`, `the recorded state at #4439`, then how many more, as
    /// blame names its stretches.
    private static func named(_ stretches: [DivergenceReport.Unchecked]) -> String {
        let first = stretches[0].steps
        return (first.count == 1 ? "the recorded state at \(first.named)" : first.named) + ClosedRange.more(stretches.count)
    }

    /// The streams replay could not check, whose reducer this inspector does not know (`unknown`) or which recorded no
    /// state to compare it with (`uncompared`): exit 6, after the others' reports, so that exit 0 always means every
    /// stream was replayed and compared.
    private static func needsStates(
        _ unknown: [StreamInfo], _ uncompared: [(stream: String, steps: ClosedRange<UInt64>)], checked: Int
    ) -> InspectorFailure {
        let rest = checked == 0 ? "" : " The other streams were checked."
        if let first = uncompared.first, unknown.isEmpty {
            let error = TimeTravelError.nothingToCompare(stream: first.stream, from: first.steps.lowerBound, through: first.steps.upperBound)
            let what = uncompared.count == 1 ? error.problem
                : "Streams \(uncompared.map(\.stream).joined(separator: ", ")) recorded no state after their start to compare replay with, so nothing was checked there."
            return InspectorFailure("\(what)\(rest) \(InspectorFailure.hint(for: error) ?? error.hint)", exit: .needsReducer)
        }
        let named = unknown.map { "\($0.name) (\($0.reactorType))" }.joined(separator: ", ")
        let what = unknown.count == 1 ? "the reducer of \(named)" : "the reducers of \(named)"
        let also = uncompared.isEmpty ? "" : " \(uncompared.map(\.stream).joined(separator: ", ")) recorded no state to compare replay with."
        return InspectorFailure(
            "Divergence needs \(what), which this inspector does not know.\(also)\(rest) Build an inspector that registers it (docs/INSPECTOR.md).",
            exit: .needsReducer)
    }
}

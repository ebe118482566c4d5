import ArgumentParser
import EventLogKit
import TimeTravel

/// `reactorlog show`.
struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show one entry in full: its payload, its cause, what it caused, and what a mutation changed.")

    @OptionGroup var log: LogArgument
    @Argument(help: "The entry's sequence number.") var sequence: UInt64
    @OptionGroup var output: OutputOptions

    struct ShowJSON: Codable {
        let entry: EntryJSON
        let cause: EntryJSON?
        let caused: [EntryJSON]
        /// What a mutation changed in its stream's state; absent for other kinds, or where the states around it
        /// cannot be rebuilt here.
        let change: [ChangeJSON]?
    }

    func run() async throws {
        try await inspect {
            let session = try Session.open(log.log)
            guard let entry = try session.log.entry(at: sequence) else {
                let held = try StepRange.held(in: session.log, stream: nil).map { "its entries run \($0)" } ?? "it holds no entries"
                throw InspectorFailure("The log has no entry #\(sequence) (\(held)). Run `\(ReactorLogInspector.commandName) log` to list them.", exit: .invalidArgument)
            }
            let cause = try entry.cause.flatMap { try session.log.entry(at: $0) }
            let caused = entry.kind == .action
                ? try session.log.entries(causedBy: sequence, stream: entry.stream, limit: 1000) : []
            let change = entry.kind == .mutation ? Result { try Self.change(made: entry, in: session) } : nil
            if output.json {
                return try printJSON(ShowJSON(
                    entry: EntryJSON(entry, callSite: try session.log.callSite(of: entry)),
                    cause: try cause.map { EntryJSON($0, callSite: try session.log.callSite(of: $0)) }, caused: caused.map { EntryJSON($0) },
                    change: (try? change?.get()).map(ChangeJSON.list)))
            }
            let formatter = EntryFormatter(terminal: session.terminal, streamWidth: 0)
            let t = session.terminal
            try printLine(t.paint("#\(entry.sequence)", .bold) + " \(entry.kind)" + (EntryFormatter.caseLabel(entry).map { " " + $0 } ?? ""))
            var rows = [
                ["stream", entry.stream],
                ["time", EntryFormatter.dateTime.string(from: entry.date)],
                ["codec", entry.codec.description],
            ]
            if let site = try session.log.callSite(of: entry) { rows.append(["sent from", site]) }
            rows.append(["cause", cause.map { "#\($0.sequence) \($0.kind) \(EntryFormatter.payload($0))" } ?? "none"])
            for line in Table.render(rows) { try printLine("  " + line) }
            if let value = (try? JSONValue(payload: entry.payload, codec: entry.codec)) ?? nil {
                try printLine("payload:")
                // `pretty(indent:)` indents every line after the first; the first takes the same indent here.
                try printLine("  " + value.pretty(indent: "  "))
            }
            switch change {
            case .success(let diff)?:
                try printLine("state change:")
                for line in diff.rendered() { try printLine("  " + DiffColors.paint(line, t)) }
            case .failure(let error)?:
                if case .needsReducer? = error as? TimeTravelError {
                    let type = (try? session.stream(entry.stream).reactorType) ?? "its reactor"
                    try printLine("state change: not shown: the states around it were not recorded, and rebuilding them needs an inspector that knows \(type).")
                } else {
                    try printLine("state change: not shown: " + InspectorFailure(error).message)
                }
            case nil:
                break
            }
            if !caused.isEmpty {
                try printLine("caused:")
                for child in caused { try printLine("  " + formatter.line(child, indent: false)) }
            }
        }
    }

    /// The difference a mutation made to its stream's state: from the state at the step before it to the state at it.
    private static func change(made mutation: LogEntry, in session: Session) throws -> StateDiff {
        let machine = try session.machine(for: try session.stream(mutation.stream))
        return try machine.diff(from: mutation.sequence - 1, to: mutation.sequence)
    }
}

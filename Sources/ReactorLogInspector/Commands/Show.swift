import ArgumentParser
import EventLogKit
import TimeTravel

/// `reactorlog show`.
struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show one entry in full: its payload, its cause and what it caused.")

    @OptionGroup var log: LogArgument
    @Argument(help: "The entry's sequence number.") var sequence: UInt64
    @OptionGroup var output: OutputOptions

    struct ShowJSON: Codable {
        let entry: EntryJSON
        let cause: EntryJSON?
        let caused: [EntryJSON]
    }

    func run() async throws {
        try await inspect {
            let session = try Session.open(log.log)
            guard let entry = try session.log.entry(at: sequence) else {
                let highest = try session.log.highestSequence()
                throw InspectorFailure("The log has no entry #\(sequence) (its entries run to #\(highest)). Run `\(ReactorLogInspector.commandName) log` to list them.", exit: .invalidArgument)
            }
            let cause = try entry.cause.flatMap { try session.log.entry(at: $0) }
            let caused = entry.kind == .action
                ? try session.log.entries(causedBy: sequence, stream: entry.stream, limit: 1000) : []
            if output.json {
                return try printJSON(ShowJSON(
                    entry: EntryJSON(entry, callSite: try session.log.callSite(of: entry)),
                    cause: try cause.map { EntryJSON($0, callSite: try session.log.callSite(of: $0)) }, caused: caused.map { EntryJSON($0) }))
            }
            let formatter = EntryFormatter(terminal: session.terminal, streamWidth: 0)
            let t = session.terminal
            let name = entry.caseName == entry.kind.description ? "" : " \(entry.caseName)"
            try printLine(t.paint("#\(entry.sequence)", .bold) + " \(entry.kind)\(name)")
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
            if !caused.isEmpty {
                try printLine("caused:")
                for child in caused { try printLine("  " + formatter.line(child, indent: false)) }
            }
        }
    }
}

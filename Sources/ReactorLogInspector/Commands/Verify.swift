import ArgumentParser
import EventLogKit

/// `reactorlog verify`.
struct Verify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a log's integrity: checksums, sequence order, headers, the stream index, snapshots.",
        discussion: "Exits 1 when anything is damaged, naming the first bad entry (or snapshot); warnings alone exit 0.")

    @OptionGroup var log: LogArgument
    @OptionGroup var output: OutputOptions

    struct ProblemJSON: Codable {
        let severity: String
        let sequence: UInt64?
        let message: String
    }

    struct VerifyJSON: Codable {
        let healthy: Bool
        let entries: Int
        let snapshots: Int
        let streams: Int
        let problems: [ProblemJSON]
        /// When entries cannot be read: each stretch, the streams' entries in it and the states it leaves unknown.
        let unreadable: [DamageSummary.Stretch]?
        /// Each snapshot that cannot be read, and the states it leaves unknown where it bridged entries that are gone.
        let unreadableSnapshots: [DamageSummary.Snapshot]?
    }

    func run() async throws {
        try await inspect(opening: log.log) { session in
            let report = try session.log.verify { checked in session.terminal.showProgress("verify: \(checked) entries checked") }
            session.terminal.endProgress()
            // What was checked of a log that LMDB refuses is what was read instead (its other meta page, a mended copy),
            // and of an export cut short the lines before the cut: the refusal, or the cut, is the first problem.
            let cutShort = session.cutShort.map { clause in
                ProblemJSON(
                    severity: VerifyReport.Problem.Severity.error.rawValue, sequence: nil,
                    message: "the file \(clause); copy or download the whole file again")
            }
            let readAroundProblem = cutShort ?? session.readAround.map { other in
                let message: String = switch other.commit {
                case .before:
                    "LMDB refuses the log as it is (\(other.problem)): what follows is the log as it stood one commit before its last, without what the last commit wrote; `\(ReactorLogInspector.commandName) compact` copies that into a sound log"
                case .lastWhole:
                    "LMDB refuses the log as it is (\(other.problem)): what follows is the log read whole from its sound meta page; `\(ReactorLogInspector.commandName) compact` copies it into a sound log"
                case .lastOrBefore:
                    "LMDB refuses the log as it is (\(other.problem)): what follows is the log as its one sound meta page records it, its last commit or the one before it (the damaged page, which would tell, is lost), so what the last commit wrote may be missing; `\(ReactorLogInspector.commandName) compact` copies it into a sound log"
                case .lastMended(let records, let pages) where pages > 0:
                    "LMDB refuses the log as it is (\(other.problem)): what follows is the log read from a copy with \(Session.leftOut(pages: pages, mended: records)); `\(ReactorLogInspector.commandName) compact` copies it into a sound file, which names the missing records as damage"
                case .lastMended(let records, _):
                    "LMDB refuses the log as it is (\(other.problem)): what follows is the log read whole from a copy with \(records == 1 ? "that record" : "those records") mended; `\(ReactorLogInspector.commandName) compact` copies it into a sound log"
                case .laterThanLMDBReads:
                    "LMDB reads the log as it stood one commit before its last (\(other.problem)): what follows is the log read from the other meta page, which holds the later commit; `\(ReactorLogInspector.commandName) compact` copies it into a sound log"
                case .lastWithoutCallSites:
                    "LMDB refuses the log as it is (\(other.problem)): the damaged pages are its call sites', so what follows is the log read whole without them; `\(ReactorLogInspector.commandName) export` and `import` copy it, without call sites, into a sound log"
                }
                return ProblemJSON(severity: VerifyReport.Problem.Severity.error.rawValue, sequence: nil, message: message)
            }
            let healthy = report.isHealthy && readAroundProblem == nil
            // On a damaged log, what the damage leaves unread, and so what can still be done with the rest.
            let damage = DamageSummary(report, log: session.log)
            if output.json {
                try printJSON(VerifyJSON(
                    healthy: healthy, entries: report.entries, snapshots: report.snapshots, streams: report.streams,
                    problems: (readAroundProblem.map { [$0] } ?? [])
                        + report.problems.map { ProblemJSON(severity: $0.severity.rawValue, sequence: $0.sequence, message: $0.message) },
                    unreadable: damage.stretches.isEmpty ? nil : damage.stretches,
                    unreadableSnapshots: damage.snapshots.isEmpty ? nil : damage.snapshots))
            } else {
                let t = session.terminal
                if let readAroundProblem { try printLine(t.paint("\(readAroundProblem.severity): \(readAroundProblem.message)", .red)) }
                for problem in report.problems {
                    try printLine(t.paint(problem.description, problem.severity == .error ? .red : .yellow))
                }
                let summary = report.checked
                if !healthy {
                    let first = readAroundProblem == nil ? report.firstError?.sequence : nil
                    // A damaged snapshot is named so: its number is an entry's, and that entry reads.
                    let named = first.map { first in
                        damage.snapshots.contains { $0.at == first } && !report.unreadable.contains { $0.entries.contains(first) }
                            ? "the first problem is the snapshot at #\(first)" : "the first bad entry is #\(first)"
                    }
                    try printLine(t.paint("DAMAGED: ", .red) + summary + "; " + (named ?? "the first problem is named above") + ".")
                    for line in damage.lines { try printLine(line) }
                } else {
                    try printLine(t.paint("OK: ", .green) + summary + ".")
                }
            }
            if !healthy { throw ExitCode(InspectorExit.finding.rawValue) }
        }
    }
}

import ArgumentParser
import EventLogKit
import Foundation
import TimeTravel
#if canImport(Glibc)
import Glibc
#endif

/// `reactorlog bisect`.
struct Bisect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find the first step whose state is bad, judged by a command, as `git bisect run` does.",
        discussion: """
            At each probe the state is given to CMD (run with /bin/sh -c) as JSON on standard input. CMD's exit \
            code is its verdict: 0 good, 125 skip (cannot judge), 1 to 124 bad, 126 or 127 (the command cannot \
            be run) and anything above 127 stop the bisect. The state at --from must be good and the state at \
            --to bad. CMD runs in a process group of its own: --timeout or Ctrl-C stops it and all it started. \
            --replay FILE repeats an earlier bisect from the probe lines it printed (edit a verdict to correct it), \
            as `git bisect replay` does: CMD then judges only the steps FILE lacks.
            """)

    @OptionGroup var log: LogArgument
    @Option(name: .long, help: "The command judging each state, such as 'python3 check.py'.") var run: String?
    @Option(name: .long, help: ArgumentHelp("An earlier bisect's probe lines (its standard error) or --json output, whose verdicts are used as given.", valueName: "file")) var replay: String?
    @OptionGroup var streamOption: StreamOption
    @Option(name: .long, help: "A step whose state is good (default: the initial state, or the oldest snapshot a trim kept).", transform: StepArgument.parse) var from: UInt64?
    @Option(name: .long, help: "A step whose state is bad (default: the stream's last mutation).", transform: StepArgument.parse) var to: UInt64?
    @Option(name: .long, help: "How long each run of CMD may take before it is stopped and the bisect with it: seconds (30), or with a unit (90s, 2m) (default: no limit).", transform: { try LengthOfTime.parse($0, bareSeconds: true).seconds }) var timeout: Double?
    @OptionGroup var output: OutputOptions

    struct BisectJSON: Codable {
        let stream: String
        let firstBad: UInt64?
        let candidates: [UInt64]
        let mutation: EntryJSON?
        let action: EntryJSON?
        let changes: [ChangeJSON]
        let probes: [BisectProbe]
        let reconstructions: Int
        /// Set when only recorded states could be judged: the last good and first bad recorded steps.
        let recordedGood: UInt64?
        let recordedBad: UInt64?
        /// Set when the state turned bad in a stretch retention removed: its first removed step and the snapshot after it.
        let removedFrom: UInt64?
        let removedThrough: UInt64?
    }

    func validate() throws {
        // An empty command succeeds in the shell for every state: the bisect would call everything good.
        if let run, run.allSatisfy(\.isWhitespace) { throw ValidationError("--run needs a command that judges a state, such as 'python3 check.py'.") }
        if run == nil && replay == nil { throw ValidationError("Give --run with a command that judges a state, such as 'python3 check.py', or --replay with an earlier bisect's probes.") }
        try StepRange.validate(from: from, to: to)
    }

    func run() async throws {
        try await inspect(opening: log.log) { session in
            signal(SIGPIPE, SIG_IGN)
            if let timeout, !(timeout > 0 && timeout <= 86_400 * 365) {
                throw InspectorFailure("--timeout is \(timeout) s, but a probe needs a length above 0 and at most a year: give one such as 30 or 2m.", exit: .invalidArgument)
            }
            let interrupts = JudgeProcess.stopOnInterrupt()
            defer { interrupts.forEach { $0.cancel() } }
            let replayed = try replay.map { file throws(InspectorFailure) in try BisectSession(file: file) }
            if let replay, let replayed {
                StandardError.writeLine("bisect: replaying \(counted(replayed.verdicts.count, "verdict")) from \(replay)")
            }
            let stream = try session.stream(streamOption.stream, step: to)
            if let to { try session.checkStep(to, stream: stream) }
            let machine = try session.machine(for: stream)
            var judged = Set<UInt64>()
            var lastVerdict: BisectVerdict?
            let bisected = Result { try machine.bisectJSON(from: from, through: to) { state, step in
                judged.insert(step)
                let verdict = try replayed?.verdicts[step] ?? judge(state, step: step)
                lastVerdict = verdict
                // Like git bisect's commit subject: what made the state judged (a mutation, but for the ends).
                let made: String
                do {
                    made = if step == 0 {
                        "the initial state"
                    } else if let entry = try session.log.entry(at: step) {
                        (entry.kind == .mutation ? "" : "\(entry.kind) ") + EntryFormatter.payload(entry)
                    } else {
                        "a recorded state, its entry not in this log"
                    }
                } catch EventLogError.corruptEntry {
                    // A state a snapshot holds inside a damaged block of entries is judged; its entry cannot be read.
                    made = "a recorded state, its entry in a block that cannot be read"
                }
                let verdictText = verdict.rawValue.padded(to: 4)
                StandardError.writeLine("bisect: #\(step) \(verdictText)  \(made)")
                return verdict
            } }
            // Where what was read may lack the log's last steps (a pack cut short, a log read one commit back), a last
            // state judged good says nothing of the steps not read: the bad state may be among them.
            if case .failure(let error) = bisected, case TimeTravelError.bisectPrecondition = error, lastVerdict == .good, to == nil,
               session.mayLackWhatWasAskedFor {
                throw InspectorFailure.lacking(InspectorFailure(error).message)
            }
            let result = try bisected.get()
            // The answer, then what damage kept from being judged (exit 5): the states rebuilt through it were skipped,
            // and the action that caused the first bad step may be in a block that cannot be read.
            let actionDamage = result.action == nil ? result.mutation?.cause.flatMap(session.log.damage(reading:)) : nil
            try printAnswer(result, judged: judged.count, actionDamaged: actionDamage != nil, stream: stream, session: session)
            // The states skipped unjudged, for either reason below.
            let skipped = result.probes.filter { $0.verdict == .skip && !judged.contains($0.step) }.map(\.step)
            // A mutation logged without its value is no damage: the answer stands, and a warning says what was skipped.
            if let notRecorded = result.valueNotRecorded, case .valueNotRecorded(_, _, let mutation, let missing, let readableFrom) = notRecorded {
                let unknown = readableFrom.map { "the states #\(mutation)…#\($0 - 1) cannot be rebuilt (a snapshot holds #\($0))" }
                    ?? "no state from #\(mutation) on can be rebuilt (no snapshot follows it)"
                StandardError.writeLine(
                    "reactorlog: warning: \(counted(skipped.count, "state")) skipped (\(skipped.map { "#\($0)" }.joined(separator: ", "))): mutation #\(mutation) is in the log without its value (\(missing)), so \(unknown).")
            }
            var done: [String] = []
            if result.unreadable != nil {
                let what = if let first = skipped.min(), let last = skipped.max(), skipped.count > 1 {
                    "\(skipped.count) states in \((first...last).named) were"
                } else {
                    "the state at #\(skipped.first ?? 0) was"
                }
                // Without a reducer a state is a snapshot: one that cannot be read.
                let why = machine.canReduce ? "rebuilt through entries that cannot be read" : "recorded in a snapshot that cannot be read"
                done.append("\(what) skipped, \(why)")
            }
            if actionDamage != nil, let firstBad = result.firstBad {
                done.append("the action that caused #\(firstBad) cannot be read, the answer given without it")
            }
            if let damage = result.unreadable ?? actionDamage {
                throw InspectorFailure.readPast(done, damage: damage)
            }
        }
    }

    /// The answer: the first bad step and its change, or the range bisect could not narrow; with `--json`, as JSON.
    /// `judged` is how many states the judge saw; `actionDamaged`, whether the action that caused the first bad step lies in a
    /// block of entries that cannot be read.
    private func printAnswer(_ result: BisectResult, judged: Int, actionDamaged: Bool, stream: StreamInfo, session: Session) throws {
        if output.json {
            return try printJSON(BisectJSON(
                stream: stream.name, firstBad: result.firstBad, candidates: result.candidates,
                mutation: result.mutation.map { EntryJSON($0) }, action: result.action.map { EntryJSON($0) },
                changes: result.diff.map(ChangeJSON.list) ?? [], probes: result.probes, reconstructions: result.reconstructions,
                recordedGood: result.recordedBounds?.lowerBound, recordedBad: result.recordedBounds?.upperBound,
                removedFrom: result.removed?.lowerBound, removedThrough: result.removed?.upperBound))
        }
        let t = session.terminal
        if let bounds = result.recordedBounds {
            try printRange(bounds, result, stream: stream, session: session)
            return
        }
        if let removed = result.removed {
            try printLine(t.paint("The state turned bad in #\(removed.lowerBound)…#\(removed.upperBound), a stretch retention removed", .bold) + " from stream \(stream.name): the mutations that did it are gone.")
            try printLine("  state change across it:")
            for line in result.diff?.rendered() ?? [] { try printLine("    " + DiffColors.paint(line, t)) }
            try printLine("Judged \(counted(judged, "state")). Pin windows around incidents (EventLog.pin) so retention keeps them.")
            return
        }
        guard let firstBad = result.firstBad else {
            try printLine("Bisect could not narrow it down: skipped states leave the first bad step among \(result.candidates.namedInRuns).")
            return
        }
        try printLine(t.paint("First bad step: #\(firstBad)", .bold) + " in stream \(stream.name)")
        try printLine("  mutation:  #\(firstBad) " + (result.mutation.map(EntryFormatter.payload) ?? "(in a block of entries that cannot be read)"))
        if let action = result.action {
            try printLine("  caused by: #\(action.sequence) action \(EntryFormatter.payload(action))")
        } else if let cause = result.mutation?.cause {
            try printLine("  caused by: #\(cause) action (\(actionDamaged ? "in a block of entries that cannot be read" : "no longer in the log"))")
        }
        try printLine("  state change:")
        for line in result.diff?.rendered() ?? [] { try printLine("    " + DiffColors.paint(line, t)) }
        try printLine("Judged \(counted(judged, "state")), rebuilt \(result.reconstructions).")
    }

    /// The answer from recorded states only: the range, its mutations, the change across it, and the hint.
    private func printRange(_ bounds: ClosedRange<UInt64>, _ result: BisectResult, stream: StreamInfo, session: Session) throws {
        let t = session.terminal
        let count = result.candidates.count
        try printLine(t.paint("The first bad state lies between recorded steps #\(bounds.lowerBound) (good) and #\(bounds.upperBound) (bad)", .bold) + " in stream \(stream.name)")
        try printLine("  \(count) mutation\(count == 1 ? "" : "s") between them, whose states were not recorded:")
        for sequence in result.candidates.prefix(10) {
            if let entry = try session.log.entry(at: sequence) { try printLine("    #\(sequence) \(EntryFormatter.payload(entry))") }
        }
        if count > 10 { try printLine("    … and \(count - 10) more") }
        try printLine("  state change across the range:")
        for line in result.diff?.rendered() ?? [] { try printLine("    " + DiffColors.paint(line, t)) }
        try printLine("Judged \(result.probes.count) recorded states. To narrow it to one mutation, run an inspector that knows \(stream.reactorType) (docs/INSPECTOR.md), or record snapshots more often.")
    }

    /// Runs the command on one state.
    private func judge(_ state: JSONValue, step: UInt64) throws -> BisectVerdict {
        guard let run else {
            throw InspectorFailure("\(replay ?? "The session") has no verdict for #\(step), which this bisect needs. Add --run to judge the steps it lacks.", exit: .bisectFailed)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["REACTORLOG_STEP"] = String(step)
        let limit = timeout.map { Duration.milliseconds(Int64(($0 * 1000).rounded(.up))) }
        switch try JudgeProcess.run(run, input: state.data, environment: environment, timeout: limit) {
        case .timedOut:
            throw InspectorFailure("The bisect command did not answer within \(timeout ?? 0) s at #\(step); it was stopped, and the bisect with it.", exit: .bisectFailed)
        case .signalled(let number):
            throw InspectorFailure("The bisect command was killed by signal \(number) at #\(step); bisect stopped.", exit: .bisectFailed)
        case .exited(let code):
            switch code {
            case 0: return .good
            case 125: return .skip
            case 126, 127:
                throw InspectorFailure("The bisect command cannot be run (exit \(code): \(code == 127 ? "command not found" : "not executable")): \(run)", exit: .bisectFailed)
            case 1...124: return .bad
            default:
                throw InspectorFailure("The bisect command aborted with exit code \(code) at #\(step); bisect stopped.", exit: .bisectFailed)
            }
        }
    }
}

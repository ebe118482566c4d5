import ArgumentParser
import EventLogKit
import TimeTravel

/// `reactorlog what-if`.
struct WhatIfCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "what-if",
        abstract: "Show how a stream's state would differ had some mutations (or an action's) never happened.",
        discussion: """
            Replays the stream with the reducer, leaving out each --skip: a mutation, or an action, which leaves \
            out every mutation it caused. Prints what would differ from the recorded state at --at (default: the \
            stream's last step); the log is not changed. Needs the reducer of the stream's reactor.
            """)

    @OptionGroup var log: LogArgument
    @Option(name: .long, help: "A mutation to leave out, or an action whose mutations to leave out (repeat for more).", transform: StepArgument.parse) var skip: [UInt64] = []
    @Option(name: .long, help: "The step whose state to compare (default: the stream's last).", transform: StepArgument.parse) var at: UInt64?
    @OptionGroup var streamOption: StreamOption
    @OptionGroup var output: OutputOptions

    struct WhatIfJSON: Codable {
        let stream: String
        let at: UInt64
        let skipped: [UInt64]
        let changes: [ChangeJSON]
        let state: JSONValue
    }

    func validate() throws {
        if skip.isEmpty { throw ValidationError("Give the mutation or action to leave out with --skip.") }
    }

    func run() async throws {
        try await inspect(opening: log.log) { session in
            // Each step read once; without --stream, the first one names the stream.
            let skipped = try skip.map { try entry($0, in: session.log) }
            let stream = try session.stream(streamOption.stream ?? skipped[0].stream)
            let at = try self.at ?? session.log.highestSequence(stream: stream.name)
            try session.checkStep(at, stream: stream)
            let machine = try session.machine(for: stream)
            guard machine.canReduce else {
                throw InspectorFailure(
                    "What-if replays the stream with the reducer of \(stream.reactorType), which this inspector does not know. Build an inspector that registers it (docs/INSPECTOR.md).",
                    exit: .needsReducer)
            }
            let left = try skipped.map { try leftOut($0, stream: stream, at: at, in: session.log) }
            let mutations = Set(left.flatMap { $0.mutations.map(\.sequence) })
            let outcome = try machine.whatIfJSON(skipping: mutations, through: at)
            if output.json {
                return try printJSON(WhatIfJSON(
                    stream: stream.name, at: at, skipped: mutations.sorted(), changes: ChangeJSON.list(outcome.diff),
                    state: outcome.state))
            }
            let t = session.terminal
            let names = left.map { Self.describe($0.entry, mutations: $0.mutations.count) }
            try printLine(t.paint("\(stream.name) at #\(at) without \(names.joined(separator: ", ")):", .bold))
            guard !outcome.diff.isEmpty else {
                return try printLine("No difference: the state would be the same as recorded.")
            }
            for line in outcome.diff.rendered() { try printLine(DiffColors.paint(line, t)) }
        }
    }

    /// How the header names a step left out: `#31 appendRepos(…)`, or an action with the count of its mutations.
    private static func describe(_ entry: LogEntry, mutations: Int) -> String {
        let name = "#\(entry.sequence) \(EntryFormatter.payload(entry))"
        guard entry.kind == .action else { return name }
        return name + (mutations == 0 ? " (which caused no mutation)" : " and its \(counted(mutations, "mutation", "mutations"))")
    }

    /// The entry at `step`, which must be one the log can read: what a damaged one did is not known.
    private func entry(_ step: UInt64, in log: EventLog) throws -> LogEntry {
        let read = try log.entry(
            at: step, neededSo: "what it did is not known and what-if cannot leave it out",
            hint: "Skip a mutation or an action the log can read; `\(ReactorLogInspector.commandName) verify` names every damaged entry.")
        guard let entry = read else {
            let held = try StepRange.held(in: log, stream: nil).map { ": its entries run \($0)" } ?? ""
            throw InspectorFailure("#\(step) is not an entry of the log\(held). Skip a mutation, or an action.", exit: .invalidArgument)
        }
        return entry
    }

    /// The mutations `entry` leaves out: itself, or every mutation the action caused up to `at`. Refuses an entry that
    /// is not a mutation or an action of `stream` at or before `at`.
    private func leftOut(_ entry: LogEntry, stream: StreamInfo, at: UInt64, in log: EventLog) throws -> (entry: LogEntry, mutations: [LogEntry]) {
        let step = entry.sequence
        guard entry.stream == stream.name else {
            throw InspectorFailure(
                "#\(step) is an entry of stream '\(entry.stream)', not of '\(stream.name)': what-if leaves out one stream's mutations.",
                exit: .invalidArgument)
        }
        guard step <= at else {
            throw InspectorFailure("#\(step) comes after --at \(at): leaving it out changes nothing there.", exit: .invalidArgument)
        }
        switch entry.kind {
        case .mutation:
            return (entry, [entry])
        case .action:
            // An effect's mutations may come after other actions': every mutation up to `at` is asked its cause.
            var caused: [LogEntry] = []
            var mutations = log.entries(EntryQuery(from: step + 1, through: at, stream: stream.name, kinds: [.mutation]))
            while let mutation = try mutations.next() {
                if mutation.cause == step { caused.append(mutation) }
            }
            return (entry, caused)
        default:
            throw InspectorFailure(
                "#\(step) is \(entry.kind == .effectError ? "an effect's error" : "the stream's '\(entry.kind)' marker"), which changes no state: what-if leaves out mutations, or an action's.",
                exit: .invalidArgument)
        }
    }
}

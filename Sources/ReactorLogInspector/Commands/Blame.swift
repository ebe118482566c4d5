import ArgumentParser
import EventLogKit
import TimeTravel

/// `reactorlog blame`.
struct Blame: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the mutations that changed the value at a path of a stream's state.")

    @OptionGroup var log: LogArgument
    @Argument(help: "The path, such as nextPage, repos.count, items[2].done.") var path: String
    @OptionGroup var streamOption: StreamOption
    @Option(name: .long, help: "From this step (default: the first whose state can be rebuilt).", transform: StepArgument.parse) var from: UInt64?
    @Option(name: .long, help: "Up to this step.", transform: StepArgument.parse) var to: UInt64?
    @Option(
        name: [.customShort("n"), .long],
        help: "Only the latest N changes, found walking back from --to: the cost is the distance back, not the log's length.")
    var latest: Int?
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let latest, latest < 1 { throw ValidationError("--latest must be at least 1.") }
        try StepRange.validate(from: from, to: to)
    }

    func run() async throws {
        try await inspect(opening: log.log) { session in
            let statePath = try StatePath(parsing: path)
            let stream = try session.stream(streamOption.stream, holding: statePath)
            let machine = try session.machine(for: stream)
            // By default, everything the log holds: in a trimmed stream or a pack, from its oldest state on.
            let from = try from ?? machine.earliestReplayableStep() + 1
            // Blame starts from the state before --from: past the end, that step is not the one to name.
            if case let last = try session.log.highestSequence(), from > last {
                throw InspectorFailure.lacking(
                    "--from \(from) is past the log's last step, #\(last), so there is nothing to blame. Pick --from and --to from 1 to #\(last).")
            }
            // Across a damaged block, the changes on either side of it and the value across it.
            let blame = try machine.blameReport(statePath, from: from, through: to ?? .max, latest: latest)
            let changes = blame.changes
            if changes.isEmpty, let start = try? machine.json(at: from), start[statePath] == nil {
                // With no change, the value at the path is the same at every step of the range: absent at its start, it
                // is absent throughout. What the state has at the range's end says what the path may have meant. Across
                // steps whose changes are not known (damage), it may have appeared there: a typo then is absent at the
                // end too, where the end's state is known.
                let end = max(from, min(to ?? .max, try session.log.highestSequence(stream: stream.name)))
                let atEnd = try? machine.json(at: end)
                let there = MissingPath(path: statePath, state: atEnd ?? start)
                let absentAtEnd = atEnd.map { $0[statePath] == nil } ?? blame.unknownStretches.isEmpty
                if blame.unknownStretches.isEmpty || absentAtEnd {
                    throw InspectorFailure(
                        "The state of '\(stream.name)' has nothing at '\(statePath)' from #\(from) to #\(end) (at #\(end), \(there)). " + (there.meant.map { "Did you mean '\($0)'?" } ?? "Check the path."),
                        exit: .invalidArgument)
                }
            }
            let unreadableActions = blame.unreadableActions(in: session.log)
            if output.json {
                try printJSON(blame.rows.map { BlameJSON($0, in: blame) })
                return try blame.requireReadable(unreadableActions: unreadableActions)
            }
            let t = session.terminal
            // With --latest, N changes found means earlier ones may exist unlisted; fewer are all there are.
            let atLeast = changes.count == latest ? "at least " : ""
            let changed = machine.canReduce
                ? " changed \(atLeast)\(counted(changes.count, "time"))"
                // Without the reducer a change is known only as a difference between two recorded states, which may
                // hide several: the header counts those pairs, not changes.
                : " changed between \(atLeast)\(counted(changes.count, "pair")) of recorded states"
            let header = changed + (atLeast.isEmpty ? "" : "; the latest:")
            let stretches = blame.unknownStretches
            let unknown = stretches.contains { $0.damage != nil } ? " where the log could be read"
                : stretches.isEmpty || !machine.canReduce ? "" : " where its states are known"
            // The empty path is the whole state.
            try printLine(t.paint("\(stream.name): \(statePath.components.isEmpty ? "the state" : statePath.description)", .bold) + header + unknown)
            let rows = blame.rows.map { row -> [String] in
                let change: BlameEntry
                switch row {
                case .change(let known): change = known
                case .unknown(let stretch):
                    return [
                        t.paint("-", .gray), stretch.steps.named, stretch.damage != nil ? "not readable" : "not recorded",
                        Self.describe(from: stretch.old, to: stretch.new, at: statePath), "(the changes between are not known)",
                    ]
                }
                let values = Self.describe(from: change.old, to: change.new, at: statePath)
                guard let range = change.range else {
                    return [
                        t.paint(ClockTime.dated(nanoseconds: change.mutation.timestamp), .gray), "#\(change.mutation.sequence)",
                        change.mutation.caseName, values,
                        change.action.map { "by #\($0.sequence) \(EntryFormatter.payload($0))" }
                            ?? change.mutation.cause.map { cause in
                                "by #\(cause) (\(unreadableActions[change.mutation.sequence] == nil ? "no longer in the log" : "cannot be read"))"
                            } ?? "",
                    ]
                }
                // A recorded state passed over in the range because its snapshot cannot be read made the range wider.
                let unreadable = blame.unreadableStates(in: range).map { "#\($0.step)" }
                let between = switch unreadable.count {
                case 0: "(states between were not recorded)"
                case 1: "(states between were not recorded; the one at \(unreadable[0]) cannot be read)"
                default: "(states between were not recorded; those at \(unreadable.joined(separator: ", ")) cannot be read)"
                }
                return [
                    t.paint(ClockTime.dated(nanoseconds: change.mutation.timestamp), .gray), "#\(range.lowerBound)…#\(range.upperBound)",
                    "one of \(change.mutationsInRange) mutations", values, between,
                ]
            }
            for line in Table.render(rows) { try printLine(line) }
            if changes.contains(where: { $0.range != nil }) {
                try printLine("To name the mutation in each range, run an inspector that knows \(stream.reactorType) (docs/INSPECTOR.md).")
            }
            try blame.requireReadable(unreadableActions: unreadableActions)
        }
    }

    /// The value across a stretch that could not be read, `old → new` as for a change, `?` for an end not known; where
    /// both ends are known and equal, `5 at both ends` (it may have changed and changed back).
    static func describe(from old: BlameReport.End, to new: BlameReport.End, at path: StatePath) -> String {
        switch (old, new) {
        case (.known(let old), .known(let new)):
            old == new ? "\(old.map(EntryFormatter.brief) ?? "absent") at both ends" : describe(from: old, to: new, at: path)
        case (.known(let old), .unknown): "\(old.map(EntryFormatter.brief) ?? "absent") → ?"
        case (.unknown, .known(let new)): "? → \(new.map(EntryFormatter.brief) ?? "absent")"
        case (.unknown, .unknown): "? → ?"
        }
    }

    /// `old → new` in brief; where the two read the same in brief (a list of five whose second item was ticked), the
    /// first line of the diff inside the value, its sign and whole path kept (`~ items[1].isDone: false → true`), and
    /// how many more lines the diff has.
    static func describe(from old: JSONValue?, to new: JSONValue?, at path: StatePath) -> String {
        let before = old.map(EntryFormatter.brief) ?? "absent", after = new.map(EntryFormatter.brief) ?? "absent"
        guard before == after, let old, let new else { return "\(before) → \(after)" }
        let lines = StateDiff(from: old, to: new, at: path).rendered()
        return lines.count == 1 ? lines[0] : "\(lines[0]) (and \(lines.count - 1) more)"
    }
}

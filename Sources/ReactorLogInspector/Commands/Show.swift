import ArgumentParser
import EventLogKit
import TimeTravel

/// `reactorlog show`.
struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show one entry in full: its payload, its cause, what it caused, and what a mutation changed.")

    @OptionGroup var log: LogArgument
    @Argument(help: "The entry's sequence number.", transform: StepArgument.parse) var sequence: UInt64
    @OptionGroup var output: OutputOptions

    struct ShowJSON: Codable {
        let entry: EntryJSON
        let cause: EntryJSON?
        let caused: [EntryJSON]
        /// What a mutation changed in its stream's state; absent for other kinds, or where the states around it
        /// cannot be rebuilt here.
        let change: [ChangeJSON]?
        /// The pins whose window holds the entry (what `info` lists); absent when none does.
        let pins: [Info.PinJSON]?
    }

    func run() async throws {
        try await inspect(opening: log.log) { session in
            let read = try session.log.entry(
                at: sequence, neededSo: "it cannot be shown",
                hint: "`\(ReactorLogInspector.commandName) log` lists the entries that can be read around it; `\(ReactorLogInspector.commandName) verify` names every damaged entry.")
            guard let entry = read else {
                let held = try StepRange.held(in: session.log, stream: nil).map { "its entries run \($0)" } ?? "it holds no entries"
                // Step 0 is a state, not an entry: the one `state` prints.
                let zero = sequence == 0 ? " Step 0 is a stream's initial state, which `\(ReactorLogInspector.commandName) state \(log.log) 0` prints." : ""
                throw InspectorFailure.lacking("The log has no entry #\(sequence) (\(held)).\(zero) Run `\(ReactorLogInspector.commandName) log` to list them.")
            }
            // What surrounds the entry is read apart from it: damage there (a damaged block of entries, a damaged
            // stream index) leaves that part out, says so, and ends the command with exit 5.
            let cause = Result { try entry.cause.flatMap { try session.log.entry(at: $0) } }
            let site = Result { try session.log.callSite(of: entry) }
            let causeSite = Result { try (try cause.get()).flatMap { try session.log.callSite(of: $0) } }
            let caused = Result { entry.kind == .action ? try session.log.entries(causedBy: sequence, stream: entry.stream, limit: 1000) : [] }
            let change = entry.kind == .mutation ? Result { try Self.change(made: entry, in: session) } : nil
            // An `unwritten` entry's pin says what it stands for, which its record has no room for.
            let pins = Result { try session.log.pins().filter { $0.range.contains(sequence) } }
            var unshown: [(part: String, error: any Error)] = []
            for (part, result) in [
                ("call site", site.map { _ in }), ("cause", cause.map { _ in }), ("effect's entries", caused.map { _ in }), ("pins", pins.map { _ in }),
            ] {
                if case .failure(let error) = result { unshown.append((part, error)) }
            }
            // A state change that needs the reducer, or that a mutation logged without its value leaves unknown, is not
            // damage: said so, exit 0.
            if case .failure(let error)? = change, !Self.needsReducer(error), Self.notRecorded(error) == nil {
                unshown.append(("state change", error))
            }
            if output.json {
                // Only the JSON shows the cause's call site.
                if case .success(_?) = cause, case .failure(let error) = causeSite { unshown.append(("cause's call site", error)) }
                try printJSON(ShowJSON(
                    entry: EntryJSON(entry, callSite: (try? site.get()) ?? nil),
                    cause: (try? cause.get())?.map { EntryJSON($0, callSite: (try? causeSite.get()) ?? nil) }, caused: ((try? caused.get()) ?? []).map { EntryJSON($0) },
                    change: (try? change?.get()).map(ChangeJSON.list),
                    pins: (try? pins.get()).flatMap { $0.isEmpty ? nil : $0.map(Info.PinJSON.init) }))
                return try Self.requireShown(unshown, sequence: sequence)
            }
            let formatter = EntryFormatter(terminal: session.terminal, streamWidth: 0)
            let t = session.terminal
            try printLine(t.paint("#\(entry.sequence)", .bold) + " \(entry.kind)" + (EntryFormatter.caseLabel(entry).map { " " + $0 } ?? ""))
            var rows = [
                ["stream", entry.stream],
                ["time", ClockTime.dateTime(nanoseconds: entry.timestamp)],
                ["codec", entry.codec.description],
            ]
            switch site {
            case .success(let site?): rows.append(["sent from", site])
            case .success(nil): break
            case .failure(let error): rows.append(["sent from", "not shown: " + InspectorFailure(error).message])
            }
            switch cause {
            case .success(let cause): rows.append(["cause", cause.map { "#\($0.sequence) \($0.kind) \(EntryFormatter.payload($0))" } ?? "none"])
            case .failure(let error): rows.append(["cause", "not shown: " + InspectorFailure(error).message])
            }
            switch pins {
            case .success(let pins):
                for pin in pins.map(Info.PinJSON.init) { rows.append(["pinned", "\(pin.said) (\(pin.window))"]) }
            case .failure(let error): rows.append(["pinned", "not shown: " + InspectorFailure(error).message])
            }
            for line in Table.render(rows) { try printLine("  " + line) }
            if let value = (try? JSONValue(payload: entry.payload, codec: entry.codec)) ?? nil {
                try printLine("payload:")
                // `pretty(indent:)` indents every line after the first; the first takes the same indent here.
                try printLines("  " + value.pretty(indent: "  "))
            } else if let missing = entry.missingValue {
                try printLine("payload: not in the log: \(missing)")
            }
            switch change {
            case .success(let diff)?:
                try printLine("state change:")
                for line in diff.rendered() { try printLine("  " + DiffColors.paint(line, t)) }
            case .failure(let error)?:
                if let notRecorded = Self.notRecorded(error) {
                    try printLine("state change: not known: " + notRecorded.problem)
                } else if Self.needsReducer(error) {
                    let type = (try? session.stream(entry.stream).reactorType) ?? "its reactor"
                    try printLine("state change: not shown: the states around it were not recorded, and rebuilding them needs an inspector that knows \(type).")
                } else {
                    try printLine("state change: not shown: " + InspectorFailure(error).message)
                }
            case nil:
                break
            }
            switch caused {
            case .success(let caused) where !caused.isEmpty:
                try printLine("caused:")
                for child in caused { try printLine("  " + formatter.line(child, indent: false)) }
            case .failure(let error):
                try printLine("caused: not shown: " + InspectorFailure(error).message)
            default:
                break
            }
            try Self.requireShown(unshown, sequence: sequence)
        }
    }

    private static func needsReducer(_ error: any Error) -> Bool {
        if case .needsReducer? = error as? TimeTravelError { return true }
        return false
    }

    /// `error` when it is a state rebuilt through a mutation the log holds without its value.
    private static func notRecorded(_ error: any Error) -> TimeTravelError? {
        if let error = error as? TimeTravelError, case .valueNotRecorded = error { return error }
        return nil
    }

    /// After the entry is shown: the damage that left parts around it out (exit 5), so that a part left out is never
    /// read as one that is not there.
    private static func requireShown(_ unshown: [(part: String, error: any Error)], sequence: UInt64) throws {
        guard let first = unshown.first else { return }
        let names = unshown.map(\.part)
        let parts = names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
        throw InspectorFailure.readPast(["#\(sequence) was shown without its \(parts)"], damage: first.error)
    }

    /// The difference a mutation made to its stream's state: from the state at the step before it to the state at it.
    /// Where neither can be had, damage is what it throws: without the reducer, the state before a mutation is seldom
    /// recorded, and that alone would hide a damaged snapshot holding the state after it.
    private static func change(made mutation: LogEntry, in session: Session) throws -> StateDiff {
        let machine = try session.machine(for: try session.stream(mutation.stream))
        let before = Result { try machine.json(at: mutation.sequence - 1) }, after = Result { try machine.json(at: mutation.sequence) }
        switch (before, after) {
        case (.success(let before), .success(let after)):
            return StateDiff(from: before, to: after)
        case (.failure(let error), .failure(let other)) where needsReducer(error) && !needsReducer(other):
            throw other
        case (.failure(let error), _), (_, .failure(let error)):
            throw error
        }
    }
}

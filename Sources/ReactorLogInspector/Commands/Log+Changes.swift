import EventLogKit
import TimeTravel

extension Log {
    /// Ends a walk once the listing has its `--limit` of entries.
    private struct Listed: Error {}

    /// `log --changes`: entries as `log` lists them, each mutation followed by what it changed in its stream's state,
    /// as TCA's `_printChanges()` prints them; the JSON adds `changes` to a mutation's line, and `changesSince` where
    /// the states before it are not in the log. Lists the entries `query` matches, up to its limit; returns how many.
    @discardableResult
    func listChanges(_ session: Session, _ query: EntryQuery, formatter: EntryFormatter) throws -> Int {
        guard try self.stream != nil || session.log.streams().count <= 1 else {
            return try listChangesOfEveryStream(session, query, formatter: formatter)
        }
        let stream = try session.stream(self.stream)
        let machine = try session.machine(for: stream)
        // The state before the first entry listed must be known: a trimmed stream lists from its oldest snapshot on.
        let earliest = try machine.earliestReplayableStep()
        let first = max(from, earliest + 1)
        let last = min(to ?? .max, try session.log.highestSequence())
        guard first <= last else { return 0 }
        var json = output.json ? try EntryJSONWriter(log: session.log, stream: stream.name, following: false) : nil
        var listed = 0
        var readable = ReadableEntries()
        var walk = try StateWalk(machine, log: session.log, from: first)
        do {
            // Past a damaged block, as `log` lists on: the states after it are rebuilt where they can be.
            let range = EntryQuery(from: first, through: last, stream: stream.name)
            try readable.forEach(in: session.log, range, skipped: { walk.skip($0) }) { entry in
                let step = try walk.step(entry)
                guard query.matches(entry) else { return }
                if let limit = query.limit, listed >= limit { throw Listed() }
                listed += 1
                try Self.write(entry, change: entry.kind == .mutation ? step : nil, formatter: formatter, json: &json)
            }
        } catch is Listed {}
        readable.unshownStates = walk.unshown
        try readable.require(rest: "listed")
        try json?.requireCallSites()
        return listed
    }

    /// `log --changes` of a log of several streams without `--stream`: every stream's entries in the log's order,
    /// each mutation with what it changed in its own stream's state, followed a stream at a time as `tail --changes`
    /// follows them (``ChangeFollower``).
    private func listChangesOfEveryStream(_ session: Session, _ query: EntryQuery, formatter: EntryFormatter) throws -> Int {
        let last = min(to ?? .max, try session.log.highestSequence())
        guard from <= last else { return 0 }
        var json = output.json ? try EntryJSONWriter(log: session.log, stream: nil, following: false) : nil
        var follower = ChangeFollower(session: session)
        var listed = 0
        var readable = ReadableEntries()
        do {
            // Every mutation in the range is followed, also those the filters leave out, so each change listed is
            // the one its mutation made.
            try readable.forEach(in: session.log, EntryQuery(from: from, through: last), skipped: { follower.skip($0) }) { entry in
                let step = entry.kind == .mutation ? try follower.change(made: entry) : nil
                guard query.matches(entry) else { return }
                if let limit = query.limit, listed >= limit { throw Listed() }
                listed += 1
                try Self.write(entry, change: step, formatter: formatter, json: &json)
            }
        } catch is Listed {}
        readable.unshownStates = follower.unshown
        try readable.require(rest: "listed")
        try json?.requireCallSites()
        return listed
    }

    /// Writes `entry`'s line and, for a mutation, what it changed (`change`): indented under it, or as the members
    /// its JSON line adds when `json` is given (`log --changes` and `tail --changes`).
    static func write(_ entry: LogEntry, change: TimelineStep?, formatter: EntryFormatter, json: inout EntryJSONWriter?) throws {
        if json != nil {
            try json?.write(entry, changes: try change.flatMap(changesJSON))
            return
        }
        try formatter.printListed(entry)
        for line in change.map(changeLines) ?? [] { try printLine(formatter.changeIndent + DiffColors.paint(line, formatter.terminal)) }
    }

    /// What a mutation changed, as lines under it (`log` and `tail`).
    static func changeLines(_ step: TimelineStep) -> [String] {
        switch step.unknown {
        case .unreadable: return ["state not known: it would be rebuilt through entries that could not be read"]
        case .snapshotUnreadable: return ["state not known: it was recorded in a snapshot that cannot be read"]
        case .notRecorded: return ["state not recorded"]
        case .valueMissing: return ["state not known: it would be rebuilt through a mutation the log holds without its value"]
        case nil: break
        }
        if let state = step.firstKnown { return ["state: " + EntryFormatter.brief(state)] }
        guard let diff = step.diff else { return [] }
        let since = step.spanStart.map { ["since #\($0) (the states between are not in the log):"] } ?? []
        return since + diff.rendered()
    }

    /// What a mutation changed, as the members its JSON line adds (`log` and `tail`): `changes`, or `stateUnknown`
    /// with the reason when its state is not known.
    static func changesJSON(_ step: TimelineStep) throws -> String? {
        if let unknown = step.unknown { return #""stateUnknown":""# + unknown.rawValue + #"""# }
        if let state = step.firstKnown { return #""changes":"# + (try jsonString([ChangeJSON(path: "", old: nil, new: state)], pretty: false)) }
        guard let diff = step.diff else { return nil }
        let since = step.spanStart.map { #","changesSince":\#($0)"# } ?? ""
        return #""changes":"# + (try jsonString(ChangeJSON.list(diff), pretty: false)) + since
    }
}

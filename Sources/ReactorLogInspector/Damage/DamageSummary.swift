import EventLogKit

/// `verify`'s words for what damage leaves unread (``VerifyReport/unreadable``): a line a stretch of entries that
/// cannot be read, naming its entries by stream and the steps whose states cannot be rebuilt, then what the rest
/// allows; a line a stream whose snapshots cannot be read (``VerifyReport/damagedSnapshots``), saying what they cost;
/// and the same as JSON.
struct DamageSummary {
    /// A stretch of entries that cannot be read, as JSON.
    struct Stretch: Codable {
        let from: UInt64
        /// `nil`: every entry after `from`.
        let through: UInt64?
        /// How many entries the stream index puts in it, of all streams.
        let entries: Int
        let streams: [Stream]
    }

    /// A stream's part in a stretch, as JSON.
    struct Stream: Codable {
        let name: String
        /// `nil`: the stream's index is damaged there too and cannot say.
        let entries: Int?
        let statesUnknown: [States]
    }

    /// Steps whose states cannot be rebuilt: from `from` up to, not including, `until`, whose state a snapshot holds;
    /// to the end when `until` is absent.
    struct States: Codable {
        let from: UInt64
        let until: UInt64?

        /// The steps as a line names them: `at #27`, `from #27 to #40`, `from #27 on`.
        var named: String {
            until.map { $0 - 1 == from ? "at #\(from)" : "from #\(from) to #\($0 - 1)" } ?? "from #\(from) on"
        }
    }

    /// A snapshot that cannot be read, as JSON: `statesUnknown` when entries before it are gone (a trim's, or a gap's),
    /// so that the states from it to the stream's next snapshot that reads cannot be rebuilt, or when it lies among the
    /// states a stretch of entries that cannot be read leaves unknown (that span); else it costs no state.
    struct Snapshot: Codable {
        let stream: String
        let at: UInt64
        let statesUnknown: States?
        /// Whether `statesUnknown` is a stretch's, named on its own line.
        var withinDamage: Bool? = nil
    }

    /// The stretches, as JSON.
    let stretches: [Stretch]
    /// The snapshots, as JSON.
    let snapshots: [Snapshot]

    /// What `report`'s damage leaves unread of `log`.
    init(_ report: VerifyReport, log: EventLog) {
        stretches = report.unreadable.map { stretch in
            Stretch(
                from: stretch.entries.lowerBound, through: stretch.entries.upperBound == .max ? nil : stretch.entries.upperBound,
                entries: stretch.count,
                streams: stretch.streams.map { part in
                    Stream(name: part.stream, entries: part.entries, statesUnknown: part.statesUnknown.map {
                        States(from: $0.lowerBound, until: $0.upperBound == .max ? nil : $0.upperBound)
                    })
                })
        }
        let stretches = stretches
        snapshots = report.damagedSnapshots.compactMap { damage in
            guard case .corruptSnapshot(let stream, let sequence, _) = damage else { return nil }
            // Where damaged entries before it leave its state unknown, so it stays.
            let around = stretches.lazy.flatMap(\.streams).filter { $0.name == stream }.flatMap(\.statesUnknown)
                .first { $0.from <= sequence && $0.until.map { sequence < $0 } ?? true }
            if let around { return Snapshot(stream: stream, at: sequence, statesUnknown: around, withinDamage: true) }
            // Where its state is lost, up to the stream's next snapshot that reads (looked for only then).
            func unknown(from first: UInt64) -> States {
                let all = (try? log.snapshotSequences(stream: stream, passingOverDamage: true)) ?? []
                return States(from: first, until: log.firstReadableSnapshot(stream: stream, atOrAfter: sequence + 1, in: all))
            }
            // A rebuild goes round it, unless only it bridged entries that are gone: then it throws.
            guard let point = try? log.recoveryPoint(stream: stream, atOrBefore: sequence) else {
                return Snapshot(stream: stream, at: sequence, statesUnknown: unknown(from: sequence))
            }
            // Nor can replay rebuild its state through a mutation logged without its value (verify names it above).
            if let missing = Self.firstMissingValue(in: log, stream: stream, after: point.sequence, through: sequence) {
                return Snapshot(stream: stream, at: sequence, statesUnknown: unknown(from: missing), withinDamage: true)
            }
            return Snapshot(stream: stream, at: sequence, statesUnknown: nil)
        }
    }

    /// The first of stream `stream`'s mutations after `start` through `end` that the log holds without its value (or,
    /// where they cannot be read, `start + 1`: no state there is claimed); `nil` when each has its value.
    private static func firstMissingValue(in log: EventLog, stream: String, after start: UInt64, through end: UInt64) -> UInt64? {
        var mutations = log.entries(EntryQuery(from: start + 1, through: end, stream: stream, kinds: [.mutation]))
        do {
            while let mutation = try mutations.next() {
                if mutation.missingValue != nil { return mutation.sequence }
            }
        } catch {
            return start + 1
        }
        return nil
    }

    /// One line a stretch, then what the rest allows; one line a stream whose snapshots cannot be read, and how to get
    /// a sound log where that is all: for `verify`'s text output.
    var lines: [String] {
        var lines = stretches.map(Self.line)
        if !stretches.isEmpty {
            lines.append("Everything else can be read: `log`, `tail`, `timeline`, `blame` and `bisect` go on past the damage, and time travel rebuilds every other state.")
        }
        var streams: [String] = []
        for snapshot in snapshots where !streams.contains(snapshot.stream) { streams.append(snapshot.stream) }
        for stream in streams {
            let damaged = snapshots.filter { $0.stream == stream }
            lines += damaged.compactMap(Self.lostStates)
            let costless = damaged.filter { $0.statesUnknown == nil }.map(\.at)
            guard let first = costless.first else { continue }
            let which = costless.count == 1 ? "The snapshot of '\(stream)' at #\(first) cannot be read" : "\(costless.count) snapshots of '\(stream)' cannot be read (\(costless.namedInRuns))"
            lines.append("\(which): no state is lost, as an inspector that knows its reactor rebuilds \(costless.count == 1 ? "it" : "each") from the snapshot before (without the reducer, the state there is not known).")
        }
        if stretches.isEmpty, !snapshots.isEmpty, snapshots.allSatisfy({ $0.statesUnknown == nil }) {
            let name = ReactorLogInspector.commandName
            lines.append("To get a sound log without \(snapshots.count == 1 ? "it" : "them"): `\(name) export LOG --out FILE`, then `\(name) import FILE NEW`.")
        }
        return lines
    }

    /// `The snapshot of 'shop' at #27 cannot be read, and the entries before it are gone: the states of 'shop' from #27
    /// to #40 cannot be rebuilt.`; `nil` for a snapshot that costs no state.
    private static func lostStates(_ snapshot: Snapshot) -> String? {
        guard let unknown = snapshot.statesUnknown else { return nil }
        if snapshot.withinDamage == true {
            return "The snapshot of '\(snapshot.stream)' at #\(snapshot.at) cannot be read either: its state is among those named above that cannot be rebuilt."
        }
        return "The snapshot of '\(snapshot.stream)' at #\(snapshot.at) cannot be read, and the entries before it are gone (trimmed, or removed by retention): the states of '\(snapshot.stream)' \(unknown.named) cannot be rebuilt."
    }

    /// `#2661…#2736 cannot be read: 76 entries of 'counter'; the states of 'counter' from #2661 to #3072 cannot be
    /// rebuilt.`
    private static func line(_ stretch: Stretch) -> String {
        let range = (stretch.from...(stretch.through ?? .max)).named
        guard !stretch.streams.isEmpty else { return "\(range) cannot be read; the stream index lists no entry there." }
        // The first count names its unit ("76 entries of 'counter', 3 of 'todo'").
        let first = stretch.streams.firstIndex { $0.entries != nil }
        let entries = stretch.streams.enumerated().map { index, part in
            guard let count = part.entries else { return "entries of '\(part.name)' its damaged stream index cannot count" }
            return "\(index == first ? counted(count, "entry", "entries") : String(count)) of '\(part.name)'"
        }
        let states = stretch.streams.filter { !$0.statesUnknown.isEmpty }.map { part in
            let spans = part.statesUnknown.map(\.named)
            return "'\(part.name)' " + spans.joined(separator: " and ")
        }
        let unknown = states.isEmpty
            ? "; no state depends on them"
            : "; the states of \(states.joined(separator: ", of ")) cannot be rebuilt"
        return "\(range) cannot be read: \(entries.joined(separator: ", "))\(unknown)."
    }
}

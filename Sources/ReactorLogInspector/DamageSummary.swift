import EventLogKit

/// What damage leaves unread in a log, as `verify` sums it up after finding it: each stretch of entries that cannot be
/// read (a damaged block), how many entries of each stream the stream index puts in it, and which of each stream's
/// states time travel cannot rebuild for it: from the stream's first mutation in the stretch to the first snapshot at
/// or after it, or on to the end when none follows. Everything else can be read: the listings go on past the damage,
/// and time travel rebuilds every other state.
struct DamageSummary {
    /// A stretch of entries that cannot be read.
    struct Stretch: Codable {
        let from: UInt64
        /// `nil`: every entry after `from`.
        let through: UInt64?
        /// How many entries the stream index puts in it, of all streams.
        let entries: Int
        let streams: [Stream]
    }

    /// A stream's part in a stretch.
    struct Stream: Codable {
        let name: String
        /// How many of its entries are in the stretch.
        let entries: Int
        /// The steps whose states cannot be rebuilt, in order: `from` up to the snapshot after it (`until`), or to the
        /// end (`until` absent). Empty when none of its mutations is in the stretch.
        let statesUnknown: [States]
    }

    /// Steps whose states cannot be rebuilt: from `from` up to, not including, `until`, a step whose state a snapshot
    /// holds; absent, to the end.
    struct States: Codable {
        let from: UInt64
        let until: UInt64?
    }

    let stretches: [Stretch]

    /// The stretches of `log` that cannot be read. Reading the log again, past each; damage that cannot be read past
    /// (a damaged page structure) ends the summary there.
    init(log: EventLog) throws {
        var found: [ClosedRange<UInt64>] = []
        var readable = ReadableEntries()
        try? readable.forEach(in: log, EntryQuery(), skipped: { found.append($0) }) { _ in }
        let streams = try log.streams()
        stretches = found.map { stretch in
            let through = stretch.upperBound == .max ? nil : stretch.upperBound
            let parts = streams.compactMap { info -> Stream? in
                Self.part(of: info.name, in: stretch, log: log)
            }
            return Stretch(from: stretch.lowerBound, through: through, entries: parts.reduce(0) { $0 + $1.entries }, streams: parts)
        }
    }

    /// Stream `name`'s entries in `stretch` and the states they leave unknown, from its index; `nil` when it has none
    /// there (or its index cannot say).
    private static func part(of name: String, in stretch: ClosedRange<UInt64>, log: EventLog) -> Stream? {
        guard let entries = try? log.sequences(stream: name, kinds: Set(EntryKind.allCases), from: stretch.lowerBound, through: stretch.upperBound),
              !entries.isEmpty
        else { return nil }
        let mutations = (try? log.sequences(stream: name, kinds: [.mutation], from: stretch.lowerBound, through: stretch.upperBound)) ?? []
        let snapshots = (try? log.snapshotSequences(stream: name)) ?? []
        // A mutation that cannot be read leaves the states from it unknown until a snapshot holds one.
        var unknown: [States] = []
        var index = 0
        while index < mutations.count {
            let start = mutations[index]
            let snapshot = snapshots.first { $0 >= start }
            // A snapshot at the mutation itself holds its state: nothing is unknown from it.
            if snapshot != start { unknown.append(States(from: start, until: snapshot)) }
            guard let snapshot else { break }
            index = mutations.firstIndex { $0 > snapshot } ?? mutations.count
        }
        return Stream(name: name, entries: entries.count, statesUnknown: unknown)
    }

    /// One line a stretch, then what the rest allows: for `verify`'s text output.
    var lines: [String] {
        guard !stretches.isEmpty else { return [] }
        return stretches.map(Self.line) + [
            "Everything else can be read: `log`, `tail`, `timeline`, `blame` and `bisect` go on past the damage, and time travel rebuilds every other state.",
        ]
    }

    /// `#2661…#2736 cannot be read: 76 entries of 'counter'; the states of 'counter' from #2661 to #3072 cannot be
    /// rebuilt.`
    private static func line(_ stretch: Stretch) -> String {
        let range = (stretch.from...(stretch.through ?? .max)).named
        guard !stretch.streams.isEmpty else { return "\(range) cannot be read; the stream index lists no entry there." }
        let entries = stretch.streams.enumerated().map { index, part in
            "\(index == 0 ? counted(part.entries, "entry", "entries") : String(part.entries)) of '\(part.name)'"
        }
        let states = stretch.streams.filter { !$0.statesUnknown.isEmpty }.map { part in
            let spans = part.statesUnknown.map { span in
                span.until.map { $0 - 1 == span.from ? "at #\(span.from)" : "from #\(span.from) to #\($0 - 1)" } ?? "from #\(span.from) on"
            }
            return "'\(part.name)' " + spans.joined(separator: " and ")
        }
        let unknown = states.isEmpty
            ? "; no state depends on them"
            : "; the states of \(states.joined(separator: ", of ")) cannot be rebuilt"
        return "\(range) cannot be read: \(entries.joined(separator: ", "))\(unknown)."
    }
}

import EventLogKit

/// `verify`'s words for what damage leaves unread (``VerifyReport/unreadable``): a line a stretch of entries that
/// cannot be read, naming its entries by stream and the steps whose states cannot be rebuilt, then what the rest
/// allows; and the same as JSON.
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
    }

    /// The stretches, as JSON.
    let stretches: [Stretch]

    init(_ unreadable: [UnreadableStretch]) {
        stretches = unreadable.map { stretch in
            Stretch(
                from: stretch.entries.lowerBound, through: stretch.entries.upperBound == .max ? nil : stretch.entries.upperBound,
                entries: stretch.count,
                streams: stretch.streams.map { part in
                    Stream(name: part.stream, entries: part.entries, statesUnknown: part.statesUnknown.map {
                        States(from: $0.lowerBound, until: $0.upperBound == .max ? nil : $0.upperBound)
                    })
                })
        }
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
        // The first count names its unit ("76 entries of 'counter', 3 of 'todo'").
        let first = stretch.streams.firstIndex { $0.entries != nil }
        let entries = stretch.streams.enumerated().map { index, part in
            guard let count = part.entries else { return "entries of '\(part.name)' its damaged stream index cannot count" }
            return "\(index == first ? counted(count, "entry", "entries") : String(count)) of '\(part.name)'"
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

import EventLogKit
import Foundation
import TimeTravel

/// What a timeline page shows, embedded in it as JSON: a stream's entries over a range, each with the change it
/// made to the state, so the page can step forwards and backwards through every state without holding them all.
struct TimelineDocument: Encodable {
    /// The stream and the log it came from.
    struct Source: Encodable {
        let log: String
        let stream: String
        let reactorType: String
        let inspector: String
        /// Whether every state is known (the inspector has the reactor's `reduce`), or only the recorded ones.
        let reduced: Bool
        let generatedAt: String
    }

    /// Which part of the stream the page holds.
    struct Range: Encodable {
        let first: UInt64
        let last: UInt64
        /// How many entries the page holds, and how many the stream has in the range asked for.
        let shown: Int
        let available: Int
        /// Why fewer entries are shown than are available, or what the source lacks (a log read around damage, a
        /// pack cut short); `nil` when neither.
        var note: String?
    }

    /// One change to the state: `o` the value before (absent when added), `n` after (absent when removed), at
    /// path `p` (object keys as strings, array indices as numbers; the empty path is the whole state).
    struct Change: Encodable {
        let path: StatePath
        let old: JSONValue?
        let new: JSONValue?

        enum CodingKeys: String, CodingKey { case p, o, n }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            var components = container.nestedUnkeyedContainer(forKey: .p)
            for component in path.components {
                switch component {
                case .key(let name): try components.encode(name)
                case .index(let index): try components.encode(index)
                }
            }
            try container.encodeIfPresent(old, forKey: .o)
            try container.encodeIfPresent(new, forKey: .n)
        }
    }

    /// One entry, with short keys (a page may hold 100 000 of them).
    struct Row: Encodable {
        /// Sequence number, kind, case name, payload (JSON), the payload as `reactorlog log` shows it, and cause.
        let s: UInt64
        let k: String
        let c: String
        let p: JSONValue?
        let r: String
        let b: UInt64?
        /// Nanoseconds since 1970, as a string of digits (exact).
        let t: String
        /// The changes from the last known state to the state after this entry (absent: none).
        let d: [Change]?
        /// `true` when the state after this entry is not known (no reducer and no recorded state here, or damage).
        let u: Bool?
        /// `true` when it is not known because it would be rebuilt through entries that could not be read.
        let x: Bool?
        /// `true` when it is not known because it would be rebuilt through a mutation the log holds without its value.
        let v: Bool?
        /// `true` when it is not known because the log recorded it in a snapshot that cannot be read.
        let z: Bool?
        /// When ``d`` spans several mutations (recorded states only): the first step of that span.
        let g: UInt64?
        /// Where an action was sent from (`File.swift:42`), when the log recorded it.
        let w: String?
    }

    let source: Source
    var range: Range
    /// The state before the first entry (`nil`: not known).
    let start: JSONValue?
    /// `true` when ``start`` is not known because it would be rebuilt through entries that could not be read.
    let startUnreadable: Bool?
    /// `true` when ``start`` is not known because it would be rebuilt through a mutation without its value.
    let startValueMissing: Bool?
    /// `true` when ``start`` is not known because the log recorded it in a snapshot that cannot be read.
    let startSnapshotUnreadable: Bool?
    /// `true` when ``start`` is the stream's initial state (no mutation of it before the page, none trimmed): the page
    /// names it `#0 (the initial state)`, as the inspector's commands do.
    let startIsInitial: Bool?
    let entries: [Row]
}

extension TimelineDocument {
    /// Whether a number in the document would change as a JavaScript number (a number, a sequence number or a cause
    /// from 2^53 on, or a decimal kept exactly), so that the page reads it through its exact reviver: a BigInt, or the
    /// number's text.
    var needsExactNumbers: Bool {
        let largest: UInt64 = 1 << 53 - 1
        return Self.inexact(start) || entries.contains { row in
            row.s > largest || row.b ?? 0 > largest || Self.inexact(row.p)
                || row.d?.contains { Self.inexact($0.old) || Self.inexact($0.new) } == true
        }
    }

    private static func inexact(_ value: JSONValue?) -> Bool {
        switch value {
        case .number(.integer(let number))?: number.magnitude >= 1 << 53
        case .number(.unsigned(let number))?: number >= 1 << 53
        // A double is written as its shortest text, which JavaScript reads back the same, but one integral and past
        // 2^53 is read as a BigInt when it is written without an exponent.
        case .number(.double(let number))?: number.magnitude >= 0x1p53
        case .number(.decimal)?: true
        case .array(let values)?: values.contains { inexact($0) }
        case .object(let members)?: members.values.contains { inexact($0) }
        default: false
        }
    }

    /// The document for `machine`'s stream from `from` through `through`, holding at most `limit` entries: the
    /// first `limit` when `from` is given, else the last `limit`; each action's call site from `sites`. Entries that
    /// cannot be read are left out (`readable` says which), the states after them rebuilt where they can be.
    static func make(
        machine: any InspectableMachine, log: EventLog, logName: String, from: UInt64?, through: UInt64?, limit: Int,
        sites: inout CallSiteLookup, readable: inout ReadableEntries, progress: (Int) -> Void
    ) throws -> TimelineDocument {
        let stream = machine.stream
        let end = try min(through ?? .max, log.highestSequence())
        let lowest = from ?? 1
        let everything = try log.sequences(stream: stream.name, kinds: Set(EntryKind.allCases), from: lowest, through: end)
        let chosen = from == nil ? everything.suffix(limit) : everything.prefix(limit)
        let first = chosen.first ?? lowest, last = chosen.last ?? end
        var note: String?
        if chosen.count < everything.count {
            let side = from == nil ? "last" : "first"
            note = "The page holds the \(side) \(chosen.count) of \(everything.count) entries; choose others with --from and --to, or raise --limit."
        }
        var rows: [Row] = []
        rows.reserveCapacity(chosen.count)
        var walk = try StateWalk(machine, log: log, from: first)
        try readable.forEach(in: log, EntryQuery(from: max(first, 1), through: last, stream: stream.name), skipped: { walk.skip($0) }) { entry in
            let state = try walk.step(entry)
            rows.append(Row(
                s: entry.sequence, k: entry.kind.description, c: entry.caseName,
                p: (try? JSONValue(payload: entry.payload, codec: entry.codec)) ?? nil, r: EntryFormatter.payload(entry),
                b: entry.cause, t: String(entry.timestamp), d: state.timelineChanges, u: state.unknown != nil ? true : nil, x: state.unknown == .unreadable ? true : nil, v: state.unknown == .valueMissing ? true : nil,
                z: state.unknown == .snapshotUnreadable ? true : nil, g: state.spanStart,
                w: entry.kind == .action ? try sites.site(at: entry.sequence) : nil))
            if rows.count % 16_384 == 0 { progress(rows.count) }
        }
        readable.unshownStates = walk.unshown
        // A mutation before the page, or one that damage to the index may hide (the lookup failing), makes the start
        // a later state: named by its step, not as the initial state.
        let mutationBefore: UInt64?? = first <= 1 ? .some(nil) : try? log.lastSequence(stream: stream.name, kinds: [.mutation], atOrBefore: first - 1)
        let startIsInitial = walk.start != nil && (try? machine.earliestReplayableStep()) == 0 && mutationBefore == .some(nil)
        if let leftOut = readable.leftOutSummary {
            let damage = "\(leftOut): they could not be read, and `reactorlog verify` names the damage."
            note = note.map { "\($0) \(damage)" } ?? damage
        }
        return TimelineDocument(
            source: Source(
                log: URL(fileURLWithPath: logName).lastPathComponent, stream: stream.name, reactorType: stream.reactorType,
                inspector: ReactorLogInspector.commandName, reduced: machine.canReduce,
                generatedAt: EntryLine.iso8601(nanoseconds: Int64(Date().timeIntervalSince1970 * 1e9))),
            range: Range(first: first, last: last, shown: rows.count, available: everything.count, note: note),
            start: walk.start, startUnreadable: walk.startUnknown == .unreadable ? true : nil,
            startValueMissing: walk.startUnknown == .valueMissing ? true : nil,
            startSnapshotUnreadable: walk.startUnknown == .snapshotUnreadable ? true : nil, startIsInitial: startIsInitial ? true : nil,
            entries: rows)
    }
}

import EventLogKit
import TimeTravel

/// A blame line in JSON: a change, or a stretch of a damaged log whose changes cannot be known.
enum BlameJSON: Encodable {
    case change(Change)
    case unreadable(Unreadable)

    /// A change: `{sequence, time, case, old, new, action, actionCase}` (an absent `old` or `new`: the path absent).
    struct Change: Encodable {
        let sequence: UInt64
        let time: String
        let `case`: String
        let old: JSONValue?
        let new: JSONValue?
        let action: UInt64?
        let actionCase: String?
        /// Without a reducer: the first mutation of the range the change happened in, and how many it holds.
        let rangeFrom: UInt64?
        let mutationsInRange: Int?
        /// Without a reducer: the recorded states in the range that cannot be read, passed over (absent for none).
        let unreadableStates: [UInt64]?
    }

    /// A stretch whose changes cannot be known: `{unreadable: {from, through}, old, new}`, the value at the path
    /// before and after it; `oldUnknown` or `newUnknown` is true where that state cannot be rebuilt either, and
    /// `damage` names what could not be read, or `notRecorded` the mutation the log holds without its value.
    struct Unreadable: Encodable {
        /// The steps from the damage (or the range's start) to the first state after it a snapshot rebuilds.
        struct Steps: Encodable {
            let from: UInt64
            let through: UInt64
        }

        let unreadable: Steps
        let old: JSONValue?
        let new: JSONValue?
        let oldUnknown: Bool?
        let newUnknown: Bool?
        let damage: String?
        let notRecorded: String?
    }

    /// The JSON form of `row`, a row of `report`.
    init(_ row: BlameReport.Row, in report: BlameReport) {
        switch row {
        case .change(let blame):
            self = .change(Change(
                sequence: blame.mutation.sequence, time: EntryLine.iso8601(nanoseconds: blame.mutation.timestamp),
                case: blame.mutation.caseName, old: blame.old, new: blame.new,
                action: blame.action?.sequence ?? blame.mutation.cause, actionCase: blame.action?.caseName,
                rangeFrom: blame.range?.lowerBound, mutationsInRange: blame.range == nil ? nil : blame.mutationsInRange,
                unreadableStates: blame.range.map { report.unreadableStates(in: $0).map(\.step) }.flatMap { $0.isEmpty ? nil : $0 }))
        case .unknown(let stretch):
            func value(_ end: BlameReport.End) -> (JSONValue?, Bool?) {
                if case .known(let value) = end { (value, nil) } else { (nil, true) }
            }
            let (old, oldUnknown) = value(stretch.old), (new, newUnknown) = value(stretch.new)
            self = .unreadable(Unreadable(
                unreadable: Unreadable.Steps(from: stretch.steps.lowerBound, through: stretch.steps.upperBound),
                old: old, new: new, oldUnknown: oldUnknown, newUnknown: newUnknown,
                damage: stretch.damage == nil ? nil : stretch.problem,
                notRecorded: stretch.damage == nil ? stretch.problem : nil))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .change(let change): try change.encode(to: encoder)
        case .unreadable(let stretch): try stretch.encode(to: encoder)
        }
    }
}

import EventLogKit
import TimeTravel

/// Blame over a range a damaged block of entries, or a mutation logged without its value, may cross, as `reactorlog
/// blame` lists it: the changes before it, the value at the path on either side of the stretch whose changes cannot be
/// known, and the changes from the first state after it that a snapshot rebuilds. Time travel alone refuses such a
/// range (``TimeTravelError/stepUnreadable(step:stream:damage:readableFrom:)``,
/// ``TimeTravelError/valueNotRecorded(step:stream:mutation:missing:readableFrom:)``); this splits it around each it meets.
struct ReadableBlame {
    /// The value at the path at one end of a stretch that could not be read.
    enum End {
        /// The value (`nil`: absent).
        case known(JSONValue?)
        /// Not known: the state there is rebuilt through damage too.
        case unknown
    }

    /// Why a stretch's changes cannot be known.
    enum Cause {
        /// Entries that cannot be read.
        case damage(EventLogError)
        /// A mutation the log holds without its value (``TimeTravelError/valueNotRecorded(step:stream:mutation:missing:readableFrom:)``).
        case notRecorded(TimeTravelError)

        /// Whether it is damage, which a command that met it ends on (exit 5).
        var isDamage: Bool {
            if case .damage = self { true } else { false }
        }

        /// The sentence that says it.
        var problem: String {
            switch self {
            case .damage(let error): error.problem
            case .notRecorded(let error): error.problem
            }
        }
    }

    /// A stretch of steps whose changes cannot be known, what made it so, and the value at the path before and after
    /// it.
    struct Unreadable {
        let steps: ClosedRange<UInt64>
        let cause: Cause
        let old: End
        let new: End
    }

    /// One line of the blame, in the order of the steps.
    enum Row {
        case change(BlameEntry)
        case unreadable(Unreadable)
    }

    /// The lines, in order.
    private(set) var rows: [Row] = []

    /// The changes known.
    var changes: [BlameEntry] {
        rows.compactMap { if case .change(let change) = $0 { change } else { nil } }
    }

    /// The stretches whose changes are not known.
    var unreadable: [Unreadable] {
        rows.compactMap { if case .unreadable(let stretch) = $0 { stretch } else { nil } }
    }

    private let machine: any InspectableMachine
    private let path: StatePath

    /// The blame of `path` in `machine`'s stream from `from` through `through`, or with `latest` its latest changes
    /// up to `through`, found walking back from it.
    init(_ machine: any InspectableMachine, path: StatePath, from: UInt64, through: UInt64, latest: Int?) throws {
        self.machine = machine
        self.path = path
        rows = try blame(from: from, through: through, latest: latest)
    }

    /// The rows from `from` through `through` (at most the latest `latest` changes, and the stretches among them).
    private func blame(from: UInt64, through: UInt64, latest: Int?) throws -> [Row] {
        guard from <= through else { return [] }
        do {
            let changes = try latest.map { try machine.lastChanges(of: path, count: $0, from: from, atOrBefore: through) }
                ?? machine.blame(path, from: from, through: through)
            return changes.map(Row.change)
        } catch let error as TimeTravelError {
            // The damage (or the mutation without its value) is at `first`; the first state after it a snapshot
            // rebuilds is `readableFrom`. Where no step of the range lies outside it, there is nothing to list.
            let (first, readableFrom, cause): (UInt64, UInt64?, Cause)
            switch error {
            case .stepUnreadable(_, _, let damage, let after):
                guard case .corruptEntry(let sequence, _) = damage else { throw error }
                (first, readableFrom, cause) = (sequence, after, .damage(damage))
            case .valueNotRecorded(_, _, let mutation, _, let after):
                (first, readableFrom, cause) = (mutation, after, .notRecorded(error))
            default:
                throw error
            }
            guard first <= through, first >= from || readableFrom.map({ $0 >= from && $0 < through }) == true else { throw error }
            let stretch = Unreadable(
                steps: max(first, from)...min(readableFrom ?? through, through), cause: cause,
                old: first >= from ? value(at: first - 1) : .unknown,
                new: readableFrom.map { $0 <= through ? value(at: $0) : .unknown } ?? .unknown)
            // Walking back, the rows after the stretch come first, and may already be enough.
            var after: [Row] = []
            if let readableFrom, readableFrom < through {
                after = try blame(from: readableFrom + 1, through: through, latest: latest)
            }
            let found = after.count(where: { if case .change = $0 { true } else { false } })
            if let latest, found >= latest { return after }
            let before = first > from ? try blame(from: from, through: first - 1, latest: latest.map { $0 - found }) : []
            return before + [.unreadable(stretch)] + after
        }
    }

    /// Throws, once the rows are written, the first stretch's damage, naming the stretches damage leaves unknown (exit
    /// 5); warns of stretches left by mutations logged without their values, which are no damage. Nothing when there
    /// are none.
    func requireReadable() throws {
        let damaged = unreadable.compactMap { if case .damage(let error) = $0.cause { ($0.steps, error) } else { nil } }
        let notRecorded = unreadable.filter { !$0.cause.isDamage }
        if let first = notRecorded.first {
            let what = first.steps.named + ClosedRange.more(notRecorded.count)
            StandardError.writeLine("reactorlog: warning: the changes in \(what) are not known, the rest listed: \(first.cause.problem)")
        }
        guard let (steps, damage) = damaged.first else { return }
        let what = steps.named + ClosedRange.more(damaged.count)
        throw InspectorFailure.readPast(["the changes in \(what) are not known, the rest listed"], damage: damage)
    }

    /// The value at the path at `step`, or `.unknown` when that state cannot be rebuilt.
    private func value(at step: UInt64) -> End {
        guard let state = try? machine.json(at: step) else { return .unknown }
        return .known(state[path])
    }
}

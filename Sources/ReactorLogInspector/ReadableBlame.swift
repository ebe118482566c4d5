import EventLogKit
import TimeTravel

/// Blame over a range a damaged block of entries may cross, as `reactorlog blame` lists it: the changes before the
/// damage, the value at the path on either side of the stretch whose changes cannot be known, and the changes from
/// the first state after it that a snapshot rebuilds. Time travel alone refuses such a range
/// (``TimeTravelError/stepUnreadable(step:stream:damage:readableFrom:)``); this splits it around each damage it meets.
struct ReadableBlame {
    /// The value at the path at one end of a stretch that could not be read.
    enum End {
        /// The value (`nil`: absent).
        case known(JSONValue?)
        /// Not known: the state there is rebuilt through damage too.
        case unknown
    }

    /// A stretch of steps whose changes cannot be known, the damage that made it, and the value at the path before
    /// and after it.
    struct Unreadable {
        let steps: ClosedRange<UInt64>
        let damage: EventLogError
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
        } catch TimeTravelError.stepUnreadable(let step, let stream, let damage, let readableFrom) {
            // The damage starts at `first`; the first state after it a snapshot rebuilds is `readableFrom`. Where no
            // step of the range lies outside the damage, there is nothing to list.
            guard case .corruptEntry(let first, _) = damage, first <= through,
                  first >= from || readableFrom.map({ $0 >= from && $0 < through }) == true
            else { throw TimeTravelError.stepUnreadable(step: step, stream: stream, damage: damage, readableFrom: readableFrom) }
            let stretch = Unreadable(
                steps: max(first, from)...min(readableFrom ?? through, through), damage: damage,
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

    /// Throws, once the rows are written, the first stretch's damage, naming the stretches whose changes are not known
    /// (exit 5); nothing when there are none.
    func requireReadable() throws {
        let stretches = unreadable
        guard let first = stretches.first else { return }
        let what = first.steps.named + ClosedRange.more(stretches.count)
        throw InspectorFailure.readPast(["the changes in \(what) are not known, the rest listed"], damage: first.damage)
    }

    /// The value at the path at `step`, or `.unknown` when that state cannot be rebuilt.
    private func value(at step: UInt64) -> End {
        guard let state = try? machine.json(at: step) else { return .unknown }
        return .known(state[path])
    }
}

import EventLogKit

/// A log's entries read past damage, so that a damaged log still shows all that is intact: an entry or block of
/// entries that cannot be read is passed over (``EntryIterator/nextReadable(skipped:)``), and once the rest is shown one error
/// says so (``require(rest:)``, exit 5). A damaged stream index costs nothing: the iterator reads the stream's entries
/// from the whole log. Damage that cannot be read past ends the reading there.
struct ReadableEntries {
    /// The stretches passed over, in order.
    private(set) var leftOut: [ClosedRange<UInt64>] = []
    /// The damage that made the first.
    private var firstDamage: EventLogError?
    /// Sound entries of streams whose descriptors are damaged, passed over, by stream id: how many, and the damage.
    /// Not stretches: the other streams' states do not depend on them.
    private var unnamed: [UInt32: DamageTally] = [:]
    /// States shown with the entries that damage left unknown, as a ``StateWalk`` over them counted them.
    var unshownStates = DamageTally()
    /// Whether any entry was read, so that the closing error speaks of a rest only when there is one.
    private var readAny = false

    /// Calls `body` with each entry `query` selects from `log`, passing over what cannot be read; `skipped` hears of
    /// each stretch passed over, before the entries after it.
    mutating func forEach(
        in log: EventLog, _ query: EntryQuery, skipped: (ClosedRange<UInt64>) -> Void = { _ in }, _ body: (LogEntry) throws -> Void
    ) throws {
        var iterator = log.entries(query)
        while let entry = try iterator.nextReadable(skipped: { stretch, damage in
            if case .corruptStream(let id, _) = damage {
                unnamed[id, default: DamageTally()].add(damage)
                return
            }
            firstDamage = firstDamage ?? damage
            leftOut.append(stretch)
            skipped(stretch)
        }) {
            readAny = true
            try body(entry)
        }
        // A key that lost bytes can hide the log's last block: the walk then ends before it without an error.
        if let (numbers, damage) = try log.hiddenTail(stream: query.stream), query.from <= query.through,
           numbers.overlaps(query.from...query.through) {
            let stretch = max(numbers.lowerBound, query.from)...min(numbers.upperBound, query.through)
            firstDamage = firstDamage ?? damage
            leftOut.append(stretch)
            skipped(stretch)
        }
    }

    /// What was left out, as a sentence's subject: `#5…#9 were`, `#5 was`, `#5 and every entry after it were`, with
    /// the number of further stretches; `nil` when nothing was.
    var leftOutSummary: String? {
        guard let first = leftOut.first else { return nil }
        let what = first.named + (first.lowerBound == first.upperBound ? " was" : " were")
        let more = ClosedRange.more(leftOut.count)
        return "\(what) left out\(more)"
    }

    /// What was left out of streams whose descriptors are damaged, as a clause (``undescribedClause(_:)``), or none.
    var unnamedSummary: [String] {
        Self.undescribedClause(unnamed).map { [$0] } ?? []
    }

    /// `3 entries of stream id 2, whose descriptor is damaged, were left out`, or of several streams `540 entries of 3
    /// streams whose descriptors are damaged (ids 20…22) were left out`: what a listing, an export or a pack says of the
    /// streams it could not name, from how many entries of each it passed over; `nil` for none.
    static func undescribedClause(_ streams: [UInt32: DamageTally]) -> String? {
        let ids = streams.keys.sorted()
        let count = ids.reduce(0) { $0 + (streams[$1]?.count ?? 0) }
        let were = count == 1 ? "was" : "were"
        guard let first = ids.first, let last = ids.last else { return nil }
        guard ids.count > 1 else { return "\(counted(count, "entry", "entries")) of stream id \(first), whose descriptor is damaged, \(were) left out" }
        let named = last - first + 1 == ids.count
            ? "\(first)…\(last)"
            : firstFive(ids.map(String.init))
        return "\(counted(count, "entry", "entries")) of \(ids.count) streams whose descriptors are damaged (ids \(named)) \(were) left out"
    }

    /// Throws, after the rest is written, the damage that left entries out, or else states unknown (exit 5), or
    /// nothing when none did; `rest` says what was done with the others ("listed", "shown"), when any were read.
    func require(rest: String) throws {
        let leftOut = (leftOutSummary.map { [$0] } ?? []) + unnamedSummary
        if let damage = firstDamage ?? unnamed.keys.min().flatMap({ unnamed[$0]?.first }), !leftOut.isEmpty {
            throw InspectorFailure.readPast([(leftOut + (readAny ? ["the rest \(rest)"] : [])).joined(separator: ", ")], damage: damage)
        }
        if let damage = unshownStates.first {
            let what = unshownStates.count == 1 ? "a state was" : "\(unshownStates.count) states were"
            throw InspectorFailure.readPast(["\(what) not shown, the rest \(rest)"], damage: damage)
        }
    }
}

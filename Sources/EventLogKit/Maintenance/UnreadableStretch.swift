/// A stretch of entries ``EventLog/verify(progress:)`` found it cannot read (a damaged block of entries), and what it
/// leaves unknown: which streams had entries there, by the stream index, and which of their states cannot be rebuilt
/// for it. Every other entry can still be read past it, and every other state rebuilt.
public struct UnreadableStretch: Sendable, Hashable {
    /// A stream's part in the stretch.
    public struct Part: Sendable, Hashable {
        /// The stream's name.
        public let stream: String
        /// How many of its entries the stream index puts in the stretch; `nil` when the index is damaged there too and
        /// cannot say (the stream may then have none there).
        public let entries: Int?
        /// The steps whose states cannot be rebuilt, in order: each from a mutation in the stretch up to, not
        /// including, the first step whose state the next snapshot that can be read holds (the snapshot's own step,
        /// or the stream's last mutation before it, the states between being the same); to `UInt64.max` when no
        /// snapshot follows. Empty when none of the stream's mutations is in the stretch, or a snapshot holds the
        /// state of each.
        public let statesUnknown: [Range<UInt64>]
    }

    /// The entries that cannot be read: from the damaged record's first number to the last before the next record's
    /// (`upperBound` is `UInt64.max` when no record follows).
    public let entries: ClosedRange<UInt64>
    /// Each stream with entries in the stretch, in the order of ``EventLog/streams()``.
    public let streams: [Part]

    /// How many entries the stream index puts in the stretch, of all streams.
    public var count: Int { streams.reduce(0) { $0 + ($1.entries ?? 0) } }
}

extension EventLog {
    /// The stretches of entries that cannot be read, each with what it leaves unknown: the log read again from the
    /// start, past each damaged record (``EntryIterator/skip(past:)``). Damage that cannot be read past ends the list.
    func unreadableStretches() throws(EventLogError) -> [UnreadableStretch] {
        var found: [ClosedRange<UInt64>] = []
        var iterator = entries()
        do {
            // A sound entry of a stream whose descriptor is damaged is no stretch: verify names the descriptor.
            while try iterator.nextReadable(skipped: { stretch, damage in
                if case .corruptStream = damage { return }
                found.append(stretch)
            }) != nil {}
        } catch {
            // Damage that cannot be read past ends the list: what was found before it stands.
        }
        guard !found.isEmpty else { return [] }
        let streams = try streams()
        return found.map { stretch in
            UnreadableStretch(entries: stretch, streams: streams.compactMap { unreadablePart(of: $0.name, in: stretch) })
        }
    }

    /// Stream `name`'s part in `stretch`, entries that cannot be read (as ``EntryIterator/skip(past:)`` returns it): its
    /// entries there and the states they leave unknown, from its index and snapshots; `nil` when it has none there.
    /// Where its index is damaged there too and cannot say, any of its states from the stretch's start to the first
    /// snapshot that can be read at or after its end may be wrong, and all are named but those a snapshot inside the
    /// stretch holds and, after such a snapshot, where the index is whole again, those before the stream's first
    /// mutation in the rest of the stretch (none when it has none there), and those from the stream's last mutation
    /// before a snapshot that holds their state. Time travel's `stepUnreadable` for such a stretch names the same steps.
    public func unreadablePart(of name: String, in stretch: ClosedRange<UInt64>) -> UnreadableStretch.Part? {
        let (first, last) = (stretch.lowerBound, stretch.upperBound)
        let entries: [UInt64]
        var mutations: [UInt64] = []
        do {
            entries = try sequences(stream: name, kinds: Set(EntryKind.allCases), from: first, through: last)
            if !entries.isEmpty { mutations = try sequences(stream: name, kinds: [.mutation], from: first, through: last) }
        } catch {
            // Not `nil`, which says the stream had no entry there: a mutation may have been among them. Each snapshot
            // that can be read inside the stretch holds its own step's state; the steps between are unknown. After such
            // a snapshot, where the index can list the stream's entries (its damage ends before), the states are
            // replayed from the snapshot up to the first of its mutations the stretch holds, as time travel does.
            let snapshots = (try? snapshotSequences(stream: name)) ?? []
            let known = firstReadableSnapshot(stream: name, atOrAfter: last, in: snapshots)
            var unknown: [Range<UInt64>] = []
            var start = first
            func noteUnknown(upTo end: UInt64?) {
                let through = min(last, end.map { $0 - 1 } ?? last)
                guard start > first, start <= through,
                      let listed = try? sequences(stream: name, kinds: [.mutation], from: start, through: through)
                else { return unknown.append(start..<heldFrom(start, upTo: end)) }
                if let mutation = listed.first { unknown.append(mutation..<heldFrom(mutation, upTo: end)) }
            }
            // The first step from which the snapshot at `end` holds the state: after the stream's last mutation before
            // it, as time travel finds it, looking from each step for a mutation up to the snapshot (a look from further
            // back may meet the damaged index block and give up). At most 1,024 steps back; `.max` without a snapshot.
            func heldFrom(_ lower: UInt64, upTo end: UInt64?) -> UInt64 {
                guard let snapshot = end else { return .max }
                func noMutation(after step: UInt64) -> Bool {
                    do { return try lastSequence(stream: name, kinds: [.mutation], atOrBefore: snapshot, after: step) == nil } catch { return false }
                }
                var held = snapshot
                while held > lower, snapshot - held < 1_024, noMutation(after: held - 1) { held -= 1 }
                return held
            }
            for held in snapshots where held >= first && held < last && firstReadableSnapshot(stream: name, atOrAfter: held, in: [held]) != nil {
                if held > start { noteUnknown(upTo: held) }
                start = held + 1
            }
            noteUnknown(upTo: known)
            return UnreadableStretch.Part(stream: name, entries: nil, statesUnknown: unknown.filter { !$0.isEmpty })
        }
        guard !entries.isEmpty else { return nil }
        let snapshots = (try? snapshotSequences(stream: name)) ?? []
        // A mutation that cannot be read leaves the states from it unknown until a snapshot holds one. The snapshot
        // holds the state from the stream's last mutation before it (the index lists it): a snapshot at the mutation
        // itself holds its state, and a `closed` entry's the state after the stream's last mutation.
        var unknown: [Range<UInt64>] = []
        var index = 0
        while index < mutations.count {
            let start = mutations[index]
            let snapshot = firstReadableSnapshot(stream: name, atOrAfter: start, in: snapshots)
            let held = snapshot.map { snapshot in
                (try? lastSequence(stream: name, kinds: [.mutation], atOrBefore: snapshot, after: start - 1)).flatMap { $0 } ?? snapshot
            }
            if held != start { unknown.append(start..<(held ?? .max)) }
            guard let snapshot else { break }
            index = mutations.firstIndex { $0 > snapshot } ?? mutations.count
        }
        return UnreadableStretch.Part(stream: name, entries: entries.count, statesUnknown: unknown)
    }

    /// The first of `snapshots`, stream `name`'s snapshot numbers in order, at or after `sequence` whose record can be
    /// read; `nil` when none can. A damaged snapshot holds no state: past damage to the entries before it, the states
    /// are known again only at a snapshot that can be read.
    public func firstReadableSnapshot(stream name: String, atOrAfter sequence: UInt64, in snapshots: [UInt64]) -> UInt64? {
        snapshots.lazy.filter { $0 >= sequence }.first { (try? self.latestSnapshot(stream: name, atOrBefore: $0))?.sequence == $0 }
    }
}

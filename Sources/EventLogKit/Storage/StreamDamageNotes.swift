/// The first damage of one kind that reads of a log went around in each stream, kept for the log's users to report:
/// what ``EventLog/bypassedIndexDamage`` and ``EventLog/passedOverSnapshotDamage`` give.
struct StreamDamageNotes: Sendable {
    private var byStream: [UInt32: EventLogError] = [:]

    /// Keeps `damage` for stream `id`, unless damage there already is.
    mutating func note(_ damage: EventLogError, stream id: UInt32) {
        if byStream[id] == nil { byStream[id] = damage }
    }

    /// What was kept, in order of stream id.
    var inStreamOrder: [EventLogError] { byStream.keys.sorted().compactMap { byStream[$0] } }
}

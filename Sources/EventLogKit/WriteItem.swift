/// One unit of work for the writer thread. Items are committed in queue order; the entries of one
/// item always go into the same transaction, which makes a batch atomic.
enum WriteItem: Sendable {
    /// One entry (the common case, kept apart to spare an array per append).
    case entry(EntryRecord.Pending)
    /// Entries that must be committed together.
    case batch([EntryRecord.Pending])
    /// A snapshot, committed after the entries queued before it.
    case snapshot(Snapshot)
    /// A request to sync to disk after the commit, for ``EventLog/flush()`` in `noSync` mode.
    case sync

    var entryCount: Int {
        switch self {
        case .entry: 1
        case .batch(let entries): entries.count
        case .snapshot, .sync: 0
        }
    }

    var byteCount: Int {
        switch self {
        case .entry(let entry): entry.size
        case .batch(let entries): entries.reduce(0) { $0 + $1.size }
        case .snapshot(let snapshot): SnapshotRecord.size(stateBytes: snapshot.state.count)
        case .sync: 0
        }
    }
}

/// When an append counts as safe, chosen per open log. See docs/DURABILITY.md for what each can lose.
public enum Durability: String, Sendable, Hashable, CaseIterable, Codable {
    /// An append returns only after its batch is committed and synced to disk.
    /// A process crash or power loss loses nothing that an append returned for.
    case sync
    /// The default: appends return at once and the writer thread commits and syncs them in batches,
    /// within a few milliseconds. `EventLog.flush()` waits until everything appended is synced.
    /// A crash loses at most the entries appended since the last completed commit.
    case grouped
    /// Like ``grouped`` without syncing (LMDB's `MDB_NOSYNC`): committed entries survive a process crash,
    /// an OS crash or power loss can lose the latest commits. `EventLog.flush()` syncs.
    case noSync = "nosync"
}

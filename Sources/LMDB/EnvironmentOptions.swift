#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How to open an ``Environment``.
public struct EnvironmentOptions: Sendable, Hashable {
    /// The initial size of the memory map in bytes. The map grows by doubling when a write transaction
    /// runs out of room (see ``Environment/write(_:)``), so a small start is safe. Ignored when reading.
    public var mapSize: Int = 64 << 20
    /// The largest the map may grow to; a write that needs more fails with `MDB_MAP_FULL`.
    public var maxMapSize: Int = 1 << 40
    /// How many named databases the environment may hold.
    public var maxDatabases: UInt32 = 8
    /// How many read transactions may be open at once, across all processes.
    public var maxReaders: UInt32 = 126
    /// Open read-only (`MDB_RDONLY`): every write fails. LMDB still needs write access to `lock.mdb`, unless
    /// ``noLock``.
    public var readOnly = false
    /// Open without the lock file (`MDB_NOLOCK`): no readers' table, so a writer in another process does not know
    /// this environment reads, and may reuse pages its transactions still read. Safe only while no process writes.
    public var noLock = false
    /// Skip the fsync on commit (`MDB_NOSYNC`): a process crash loses nothing committed,
    /// an OS crash or power loss can lose the latest transactions. ``Environment/sync(force:)`` flushes.
    public var noSync = false
    /// The permission bits of the files LMDB creates.
    public var fileMode: mode_t = 0o600

    /// Options with the defaults documented on each property.
    public init() {}
}

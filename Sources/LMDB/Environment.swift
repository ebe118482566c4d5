import CLMDB
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open LMDB environment: one directory holding `data.mdb` and `lock.mdb`.
///
/// Transactions are scoped to a synchronous closure (``read(_:)`` and ``write(_:)``), so a transaction
/// can neither outlive its closure nor be suspended across an `await`: LMDB ties a write transaction to
/// the OS thread that began it, and a Swift task may resume on another thread.
///
/// Never open the same environment twice in one process (LMDB's locks are per process); share one instance.
public final class Environment: @unchecked Sendable {
    // Lock discipline: `handle` is immutable after init and LMDB's environment calls are thread-safe;
    // every transaction holds `resizeLock` shared, and a map resize holds it exclusively, because LMDB
    // forbids resizing while any transaction of this process is active.
    let handle: OpaquePointer
    private let resizeLock = ReadWriteLock()

    /// The environment's directory.
    public let path: String
    /// The options it was opened with.
    public let options: EnvironmentOptions
    /// The size the map may grow to: `options.maxMapSize` until ``setMaxMapSize(_:)`` changes it.
    private let maxMapSize: Atomic<Int>

    /// Opens (or, unless read-only, creates) the environment in the existing directory `path`. The files it creates have
    /// copy-on-write turned off (btrfs), so that a full disk there fails writes instead of ending the process.
    public init(path: String, options: EnvironmentOptions = EnvironmentOptions()) throws(LMDBError) {
        var env: OpaquePointer?
        try LMDBError.check(mdb_env_create(&env), "mdb_env_create")
        guard let env else { throw LMDBError(code: ENOMEM, operation: "mdb_env_create") }
        do throws(LMDBError) {
            try LMDBError.check(mdb_env_set_maxdbs(env, options.maxDatabases), "mdb_env_set_maxdbs")
            try LMDBError.check(mdb_env_set_maxreaders(env, options.maxReaders), "mdb_env_set_maxreaders")
            if !options.readOnly {
                try LMDBError.check(mdb_env_set_mapsize(env, options.mapSize), "mdb_env_set_mapsize")
            }
            var flags = UInt32(MDB_NOTLS)
            if options.readOnly { flags |= UInt32(MDB_RDONLY) }
            if options.noSync { flags |= UInt32(MDB_NOSYNC) }
            if options.noLock { flags |= UInt32(MDB_NOLOCK) }
            let madeDataFile = try EnvironmentFiles.prepare(in: path, options: options)
            do throws(LMDBError) {
                try LMDBError.check(mdb_env_open(env, path, flags, options.fileMode), "mdb_env_open")
            } catch {
                if madeDataFile { EnvironmentFiles.removeUnbegunDataFile(in: path) }
                throw error
            }
            var dead: Int32 = 0
            try LMDBError.check(mdb_reader_check(env, &dead), "mdb_reader_check")
        } catch {
            mdb_env_close(env)
            throw error
        }
        self.handle = env
        self.path = path
        self.options = options
        maxMapSize = Atomic(options.maxMapSize)
    }

    deinit {
        mdb_env_close(handle)
    }

    /// Opens the named database (`nil` for the main database). With ``DatabaseFlags/create`` it is created
    /// when missing; without it, a missing database fails with `MDB_NOTFOUND`.
    public func openDatabase(_ name: String?, flags: DatabaseFlags = []) throws(LMDBError) -> Database {
        try adoptingResizedMaps { () throws(LMDBError) -> Database in
            let readOnly = options.readOnly || !flags.contains(.create)
            var txn: OpaquePointer?
            try LMDBError.check(
                mdb_txn_begin(handle, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &txn), "mdb_txn_begin")
            var dbi = MDB_dbi()
            let rc = mdb_dbi_open(txn, name, flags.rawValue, &dbi)
            if rc != MDB_SUCCESS {
                mdb_txn_abort(txn)
                throw LMDBError(code: rc, operation: "mdb_dbi_open(\(name ?? "main"))")
            }
            // Committing keeps the handle in the environment, also for a read-only transaction.
            try LMDBError.check(mdb_txn_commit(txn), "mdb_txn_commit")
            return Database(dbi: dbi, name: name)
        }
    }

    /// The keys of the main database: the names of the environment's named databases (and of anything else a
    /// program stored there).
    public func databaseNames() throws -> [String] {
        let main = try openDatabase(nil)
        return try read { txn in
            try txn.withCursor(main) { cursor in
                var names: [String] = []
                var item = try cursor.first()
                while let current = item {
                    names.append(String(decoding: current.key, as: UTF8.self))
                    item = try cursor.next()
                }
                return names
            }
        }
    }

    /// Runs `body` in a read-only transaction and returns its result.
    ///
    /// Buffers handed out inside `body` point into the map and are valid only until `body` returns:
    /// copy what you keep. Keep read transactions short: while one is open, LMDB cannot reuse the pages
    /// that later writes free, and the file grows.
    ///
    /// A read begun inside another read's body on the same thread runs in that read's transaction: it sees the same
    /// snapshot, and it never begins a transaction of its own, which, had another process grown the map meanwhile,
    /// would have to adopt the new size while the outer read holds the resize lock.
    public func read<R>(_ body: (Transaction) throws -> R) throws -> R {
        if let outer = OpenRead.transaction(in: handle) { return try body(Transaction(handle: outer, isReadOnly: true)) }
        return try adoptingResizedMaps { () throws -> R in
            let txn = try begin(readOnly: true)
            defer { mdb_txn_abort(txn) }
            return try OpenRead.running(txn, in: handle) { try body(Transaction(handle: txn, isReadOnly: true)) }
        }
    }

    /// Runs `body`, which begins a transaction, holding the resize lock shared; when another process has grown the
    /// map past this one's (`MDB_MAP_RESIZED`), adopts the new size and runs it again. Every transaction that is
    /// not a write goes through here: a reader of a live log may meet a grown map at any of them.
    private func adoptingResizedMaps<R, Failure: Error>(_ body: () throws(Failure) -> R) throws(Failure) -> R {
        while true {
            do {
                return try resizeLock.withShared(body)
            } catch {
                // A map that cannot be adopted leaves the reader with the error it met.
                guard (error as? LMDBError)?.isMapResized == true, (try? adoptResizedMap()) != nil else { throw error }
            }
        }
    }

    /// Runs `body` in a write transaction, committing when it returns and aborting when it throws.
    ///
    /// When the map is full, the transaction is aborted, the map doubles (up to
    /// ``EnvironmentOptions/maxMapSize``) and `body` runs again: it must be safe to repeat.
    /// LMDB allows one write transaction at a time; others wait.
    public func write<R>(_ body: (Transaction) throws -> R) throws -> R {
        while true {
            do {
                return try resizeLock.withShared { () throws -> R in
                    let txn = try begin(readOnly: false)
                    let result: R
                    do {
                        result = try body(Transaction(handle: txn, isReadOnly: false))
                    } catch {
                        mdb_txn_abort(txn)
                        throw error
                    }
                    // mdb_txn_commit frees the transaction even when it fails: never abort after it.
                    try LMDBError.check(mdb_txn_commit(txn), "mdb_txn_commit")
                    return result
                }
            } catch let error as LMDBError where error.isMapFull {
                try growMap()
            } catch let error as LMDBError where error.isMapResized {
                try adoptResizedMap()
            }
        }
    }

    /// The current size of the memory map in bytes.
    public var mapSize: Int {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        return info.me_mapsize
    }

    /// Bytes in use: the last used page, plus one, times the page size.
    public var usedBytes: Int {
        var info = MDB_envinfo()
        mdb_env_info(handle, &info)
        var stat = MDB_stat()
        mdb_env_stat(handle, &stat)
        return (info.me_last_pgno + 1) * Int(stat.ms_psize)
    }

    /// The size of a page in bytes.
    public var pageSize: Int {
        var stat = MDB_stat()
        mdb_env_stat(handle, &stat)
        return Int(stat.ms_psize)
    }

    /// Sets the map size. Waits until no transaction of this process is active.
    public func setMapSize(_ size: Int) throws(LMDBError) {
        try resizeLock.withExclusive { () throws(LMDBError) in
            try LMDBError.check(mdb_env_set_mapsize(handle, size), "mdb_env_set_mapsize")
        }
    }

    /// Sets the size the map may grow to, for later growth: a writer that shares this environment with an earlier one
    /// of the process brings its own limit.
    public func setMaxMapSize(_ size: Int) {
        maxMapSize.store(size, ordering: .relaxed)
    }

    /// Turns `MDB_NOSYNC` on or off for later commits.
    public func setNoSync(_ noSync: Bool) throws(LMDBError) {
        try LMDBError.check(mdb_env_set_flags(handle, UInt32(MDB_NOSYNC), noSync ? 1 : 0), "mdb_env_set_flags")
    }

    /// Flushes committed data to disk; needed only with ``EnvironmentOptions/noSync``.
    public func sync(force: Bool = true) throws(LMDBError) {
        try LMDBError.check(mdb_env_sync(handle, force ? 1 : 0), "mdb_env_sync")
    }

    /// The device and inode of the data file this environment has open, to tell whether the file now at its path is
    /// still that one (a log removed or replaced since is another file); `nil` when it cannot be read.
    public var dataFileIdentity: FileIdentity? {
        var descriptor: Int32 = -1
        guard mdb_env_get_fd(handle, &descriptor) == MDB_SUCCESS, descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return FileIdentity(status)
    }

    /// Writes a copy of the environment's data file to `descriptor`, an open, empty file the caller owns (and
    /// closes, after syncing it if it needs it on disk). With `compact`, free pages are left out and the copy is
    /// renumbered (`MDB_CP_COMPACT`). The file gets copy-on-write turned off first (btrfs), as a new environment's data
    /// file does.
    public func copy(toDescriptor descriptor: Int32, compact: Bool) throws(LMDBError) {
        EnvironmentFiles.turnOffCopyOnWrite(descriptor)
        try resizeLock.withShared { () throws(LMDBError) in
            try LMDBError.check(
                mdb_env_copyfd2(handle, descriptor, compact ? UInt32(MDB_CP_COMPACT) : 0), "mdb_env_copyfd2")
        }
    }

    private func begin(readOnly: Bool) throws(LMDBError) -> OpaquePointer {
        var txn: OpaquePointer?
        try LMDBError.check(
            mdb_txn_begin(handle, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &txn), "mdb_txn_begin")
        guard let txn else { throw LMDBError(code: ENOMEM, operation: "mdb_txn_begin") }
        return txn
    }

    private func growMap() throws(LMDBError) {
        try resizeLock.withExclusive { () throws(LMDBError) in
            let current = mapSize
            let limit = maxMapSize.load(ordering: .relaxed)
            let grown = min(current * 2, limit)
            guard grown > current else {
                throw LMDBError(code: MDB_MAP_FULL, operation: "growing the map beyond \(limit) bytes")
            }
            try LMDBError.check(mdb_env_set_mapsize(handle, grown), "mdb_env_set_mapsize")
        }
    }

    private func adoptResizedMap() throws(LMDBError) {
        try resizeLock.withExclusive { () throws(LMDBError) in
            // Zero adopts the size another process recorded in the file.
            try LMDBError.check(mdb_env_set_mapsize(handle, 0), "mdb_env_set_mapsize")
        }
    }
}

import Foundation
import LMDB
import Synchronization

/// One open log environment and its databases, shared by every ``EventLog`` of this process on the same
/// directory (LMDB forbids opening an environment twice in one process).
final class LogStorage: Sendable {
    let path: String
    let environment: Environment
    let meta: Database
    let entries: Database
    let streams: Database
    /// Each stream's entries in order, with their kinds and call sites.
    let index: StreamIndex
    let snapshots: Database
    /// Where retention removed entries from the middle of a stream (``GapRecord``); `nil` in a log opened
    /// read-only that never had one.
    let gaps: Database?
    /// Windows retention keeps (``PinRecord``); `nil` as for ``gaps``.
    let pins: Database?
    /// The call sites of actions, interned (``SiteRecord``); `nil` as for ``gaps``.
    let sites: Database?
    /// The finished schema eras of streams whose types changed (``SchemaEraRecord``); `nil` as for ``gaps``.
    let schemas: Database?
    /// The databases this reader left unopened, their trees unchecked (``EventLog/openWithoutCallSites(at:)``).
    let unopened: Set<String>
    /// Stream descriptors, loaded at open and, unless this process writes the log, refreshed when an unknown id or
    /// name turns up.
    private let streamCache = Mutex(StreamCache())
    /// Interned call sites by number, loaded when first needed and refreshed when an unknown number turns up.
    private let siteCache = Mutex<[UInt32: String]>([:])
    /// Whether `meta` holds a record a zeroed sector wiped, beside which LMDB's search can miss a key, or one its seal
    /// put back, which the file does not hold: its values are then found by walking it (``MetaRecords``).
    private let walksMeta = Mutex(false)
    /// The first damage found in each stream's index that a read went around (``EventLog/bypassedIndexDamage``).
    private let bypassed = Mutex(StreamDamageNotes())
    /// The first damage among each stream's snapshots that a rebuild passed over for an earlier snapshot
    /// (``EventLog/passedOverSnapshotDamage``).
    private let passedOver = Mutex(StreamDamageNotes())

    /// The lock file this storage's environment opened: a second environment of this process must never share it
    /// (closing either would clear the other's readers and drop its locks).
    let lockFile: FileIdentity?

    private init(
        path: String, environment: Environment, databases: [Database], index: StreamIndex, optional: [Database?], unopened: Set<String>
    ) {
        self.path = path
        self.unopened = unopened
        self.environment = environment
        lockFile = FileIdentity(path: path + "/" + LogLayout.lockFile)
        self.index = index
        (meta, entries, streams, snapshots) = (databases[0], databases[1], databases[2], databases[3])
        (gaps, pins, sites, schemas) = (optional[0], optional[1], optional[2], optional[3])
    }

    // MARK: Opening

    /// Storages open in this process, by real path; weak, so a storage closes when its last log goes.
    /// Process-wide by necessity: LMDB's locks are per process.
    private static let openStorages = Mutex<[String: WeakStorage]>([:])

    private struct WeakStorage {
        weak var storage: LogStorage?
    }

    /// Opens the log at `path`, sharing an environment this process already has open. The caller has checked the
    /// directory (``checkDirectory(path:readOnly:passingOver:)``), and a writer its page trees too. A reader leaves the
    /// optional databases `passingOver` names unopened, as though the log had none (a log read without its call sites,
    /// whose pages are damaged).
    static func open(
        path: String, readOnly: Bool, configuration: EventLogConfiguration, passingOver: Set<String> = []
    ) throws(EventLogError) -> LogStorage {
        let key = URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
        return try openStorages.withLock { (open) throws(EventLogError) -> LogStorage in
            if let existing = open[key]?.storage {
                if existing.holdsFilesAt(path) {
                    if !readOnly && existing.environment.options.readOnly {
                        throw .readOnlyInThisProcess(path: path)
                    }
                    if !readOnly {
                        // The writer's own durability and map limit, not those of the handle it shares with (a
                        // writer reopened with a larger maxMapSize after its map filled, while a reader kept it).
                        try existing.storage { () throws in
                            try existing.environment.setNoSync(configuration.durability == .noSync)
                        }
                        existing.environment.setMaxMapSize(configuration.maxMapSize)
                    }
                    return existing
                }
                // The log was removed or replaced since this process opened it, and a handle still holds the former
                // files (a writer thread lets go a moment after its log closes): sharing them would write where no
                // one can read again, or read what the path no longer holds. A new environment is opened instead,
                // unless it would share the former's lock file.
                if let lockFile = existing.lockFile, lockFile == FileIdentity(path: path + "/" + LogLayout.lockFile) {
                    throw .replacedWhileOpen(path: path)
                }
            }
            let storage = try create(path: path, readOnly: readOnly, configuration: configuration, passingOver: passingOver)
            open[key] = WeakStorage(storage: storage)
            return storage
        }
    }

    /// Whether the data file at `path` is still the one this storage opened (as before, yes when that cannot be told).
    func holdsFilesAt(_ path: String) -> Bool {
        guard let held = environment.dataFileIdentity else { return true }
        return held == FileIdentity(path: path + "/" + LogLayout.dataFile)
    }

    /// Refuses a data file with a damaged page structure before LMDB maps it (``PageTreeCheck``): LMDB follows page
    /// numbers and node offsets without checking them, so a damaged page would crash the process, a writer on every
    /// launch of an app whose log it is. A writer calls this once it holds `writer.lock`, when no process can change a
    /// page, and is also refused a page that only a writer would trip on. A reader, called beside no writer, asks the
    /// lock again before it calls a structure damaged: a writer that began meanwhile changed the pages under the walk.
    /// A writer refused a page that readers take is told that readers can still open the log, so that its owner
    /// reads (or exports) it before setting it aside. Does nothing when there is no data file yet. A reader that leaves
    /// databases unopened (`passingOver`) needs only the other trees sound.
    static func checkPageTrees(path: String, forWriting: Bool, passingOver: Set<String> = []) throws(EventLogError) {
        guard let reason = pageTreeProblem(path: path, forWriting: forWriting, passingOver: passingOver) else { return }
        throw .damagedFile(path: path, reason: "its " + reason)
    }

    /// What ``checkPageTrees(path:forWriting:passingOver:)`` refuses, as the clause its error gives (`data.mdb has …`);
    /// `nil` where it refuses nothing.
    static func pageTreeProblem(path: String, forWriting: Bool, passingOver: Set<String> = [], checkingCommits: Bool = true) -> String? {
        let dataPath = path + "/" + LogLayout.dataFile
        let names = LogLayout.namedDatabases
        guard case .damaged(let reason)? = PageTreeCheck.problem(
            inDataFile: dataPath, forWriting: forWriting, databases: names, passingOver: passingOver, checkingCommits: checkingCommits)
        else { return nil }
        if !forWriting, WriterLock.isHeld(directory: path, tryingTheLock: true) { return nil }
        let readable = forWriting && PageTreeCheck.problem(inDataFile: dataPath, databases: names) == nil
        return "\(LogLayout.dataFile) \(reason)" + (readable ? EventLogError.readersCanOpen : "")
    }

    /// Refuses what is plainly not a log before LMDB sees it; creates the directory of a new log, and returns whether
    /// it did (a writer whose first open then fails removes it again: ``removeUnbegun(path:)``). `passingOver`: as for
    /// ``checkPageTrees(path:forWriting:passingOver:)``.
    @discardableResult
    static func checkDirectory(path: String, readOnly: Bool, passingOver: Set<String> = []) throws(EventLogError) -> Bool {
        let files = FileManager.default
        let parent = SplitPath(path).directory
        var isDirectory: ObjCBool = false
        if !files.fileExists(atPath: path, isDirectory: &isDirectory) {
            if readOnly { throw .notFound(path: path) }
            // mkdir itself, for its errno: another process making the same log at once (EEXIST) is no failure.
            if mkdir(path, 0o700) == 0 { return true }
            guard errno != EEXIST else { return false }
            let code = errno
            switch code {
            case ENOENT, ENOTDIR:
                // A directory missing on the way to the log (a typo in it, or not made yet), unless the parent is there.
                guard files.isDirectory(atPath: parent) else {
                    throw .cannotCreate(path: path, reason: "\(parent) does not exist or is not a directory")
                }
                throw .cannotCreate(path: path, reason: "making its directory failed (\(String(cString: strerror(code))))")
            case EACCES, EPERM: throw .cannotCreate(path: path, reason: "this user may not write in \(parent)")
            case EROFS: throw .cannotCreate(path: path, reason: "\(parent) is on a file system mounted read-only")
            case ENOSPC, EDQUOT: throw .cannotCreate(path: path, reason: "the file system holding \(parent) has no room left")
            default: throw .cannotCreate(path: path, reason: "making its directory failed (\(String(cString: strerror(code))))")
            }
        }
        guard isDirectory.boolValue else {
            // A log's own file named instead of its directory (a data.mdb attached to a bug report alone).
            guard [LogLayout.dataFile, LogLayout.lockFile, LogLayout.writerLockFile].contains(SplitPath(path).name) else {
                throw .notALog(path: path, reason: "it is a file, not a log directory")
            }
            throw .notALog(path: path, reason: "it is one of a log's files; open the directory that holds it, \(parent) (a \(LogLayout.dataFile) alone goes in a directory of its own, such as bug.reactorlog/)")
        }
        try checkLockFiles(in: path)
        let dataPath = path + "/" + LogLayout.dataFile
        if readOnly, access(dataPath, F_OK) == 0, access(dataPath, R_OK) != 0, errno == EACCES {
            throw .permissionDenied(path: path, reason: "its \(LogLayout.dataFile) cannot be read")
        }
        var status = stat()
        if stat(dataPath, &status) == 0 {
            // What LMDB would open, a symbolic link followed: a directory, a device or a pipe is refused by its
            // kind (a pipe would stall the reads below).
            if let kind = Self.kind(of: status) {
                throw .notALog(path: path, reason: "its \(LogLayout.dataFile) is \(kind), not a file")
            }
            func refuse(_ reason: String) -> EventLogError { damagedOrForeign(path: path, reason) }
            let size = Int(status.st_size)
            if size < 8192 {
                throw refuse("its \(LogLayout.dataFile) is \(size == 0 ? "empty" : "truncated (\(size) bytes)")")
            }
            switch DataFileCheck.problem(inDataFile: dataPath) {
            case .notLMDB(let reason)?: throw refuse("its \(LogLayout.dataFile) \(reason)")
            case .damaged(let reason)?: throw .damagedFile(path: path, reason: "its \(LogLayout.dataFile) \(reason)")
            case nil: break
            }
            // A log may come from anywhere (a bug report): check every page LMDB can reach before it maps the file.
            // A live writer's pages change under a plain read, which reads each page only after checking the file
            // holds it (and the file never shrinks): a structure found damaged is asked of the lock itself before it
            // is called so (the kernel's table, which answers without taking a lock, once missed a live writer under a
            // full test run's locks). Not asked first: a reading of that table waited 5 to 23 ms on this project's
            // machine, more than the walk of a 1M-entry log. A writer checks once it holds the lock
            // (``checkPageTrees(path:forWriting:passingOver:)``).
            if readOnly {
                try checkPageTrees(path: path, forWriting: false, passingOver: passingOver)
            }
            return false
        }
        if errno == EACCES { throw .permissionDenied(path: path, reason: "its \(LogLayout.dataFile) cannot be read") }
        if lstat(dataPath, &status) == 0 {
            throw .notALog(path: path, reason: "its \(LogLayout.dataFile) is a symbolic link to nothing")
        }
        let contents = (try? files.contentsOfDirectory(atPath: path)) ?? []
        if contents.contains(LogLayout.unfinishedCopyFile) {
            throw .notALog(path: path, reason: "it has no \(LogLayout.dataFile), only \(LogLayout.unfinishedCopyFile), of a copy that has not finished: it was stopped, or is still being written")
        }
        let foreign = contents.filter { !LogLayout.lockFiles.contains($0) }
        if readOnly {
            // Lock files alone: a writer beginning the log, or one whose first open failed before 2026-12-03 (no room).
            let unbegun = foreign.isEmpty && contents.contains(LogLayout.writerLockFile)
            throw .notALog(path: path, reason: "it has no \(LogLayout.dataFile)" + (unbegun ? ": a writer opened it and has not begun the log (its first open failed, as on a full disk, or is under way)" : ""))
        }
        if !foreign.isEmpty {
            throw .notALog(path: path, reason: "the directory holds other files (\(foreign.sorted().prefix(3).joined(separator: ", "))) and no \(LogLayout.dataFile)")
        }
        return false
    }

    /// Removes the directory a writer's first open made (``checkDirectory(path:readOnly:passingOver:)``) when the open then failed,
    /// as on a full disk, with the lock files it made there and a data file it left empty, so that no half-made log
    /// is left for readers to puzzle over. Called holding the writer's lock; anything else in the directory (another
    /// writer's log begun meanwhile) keeps it, untouched.
    static func removeUnbegun(path: String) {
        var status = stat()
        let dataPath = path + "/" + LogLayout.dataFile
        if lstat(dataPath, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFREG, status.st_size == 0 else { return }
            unlink(dataPath)
        }
        for name in LogLayout.lockFiles { unlink(path + "/" + name) }
        rmdir(path)
    }

    /// Refuses lock files that are not the log's own. LMDB opens `lock.mdb` for writing and writes its reader table
    /// into it, a reader included, and a writer writes its process number into `writer.lock`: a log from elsewhere
    /// (a bug report's archive) whose lock file links to one of the user's files would have it overwritten. A lock
    /// file that is missing is made anew.
    private static func checkLockFiles(in path: String) throws(EventLogError) {
        for name in LogLayout.lockFiles {
            var status = stat()
            guard lstat(path + "/" + name, &status) == 0 else { continue }
            let what = kind(of: status) ?? (status.st_nlink > 1 ? "a file with other names (hard links)" : nil)
            if let what {
                throw .notALog(path: path, reason: "its \(name) is \(what), not a lock file of its own (delete it, and a new one is made)")
            }
        }
    }

    /// The main database's record of ReactorLog's database `name` is damaged (its flags, its root): LMDB refused it.
    private static func damagedRecord(of name: String, path: String, _ error: LMDBError) -> EventLogError {
        .damagedFile(path: path, reason: "its main database's record of ReactorLog's '\(name)' database is damaged (\(error.isIncompatible ? "LMDB finds its flags incompatible" : "LMDB cannot read it"))")
    }

    /// Why this user may not open the lock file LMDB keeps its readers' table in, as a clause; `nil` when it may.
    private static func lockFileDenied(in path: String) -> String? {
        let lock = path + "/" + LogLayout.lockFile
        if access(lock, F_OK) == 0 { return access(lock, R_OK | W_OK) != 0 ? "which this user may not write" : nil }
        return access(path, W_OK) != 0 ? "which this user may not create in the log's directory" : nil
    }

    /// What a file that is not a regular file is, for an error ("a directory"); `nil` for a regular file.
    private static func kind(of status: stat) -> String? {
        switch status.st_mode & S_IFMT {
        case S_IFREG: nil
        case S_IFLNK: "a symbolic link"
        case S_IFDIR: "a directory"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFIFO: "a pipe"
        case S_IFSOCK: "a socket"
        default: "a special file"
        }
    }

    /// LMDB's environment at `path`. Read-only, without the lock file when this user may not write it and no process
    /// records into the log: reading needs the readers' table it holds only beside a writer (a log in a directory
    /// this user may only read, another user's, a read-only copy).
    private static func openEnvironment(path: String, options: EnvironmentOptions) throws(EventLogError) -> Environment {
        do {
            return try Environment(path: path, options: options)
        } catch {
            // Read without the readers' table beside a writer, pages it frees could be rewritten under the read.
            func withoutLockFile() throws(EventLogError) -> Environment {
                var lockless = options
                lockless.noLock = true
                return try openEnvironment(path: path, options: lockless)
            }
            if error.isInvalidFile { throw .notALog(path: path, reason: "its \(LogLayout.dataFile) is not an LMDB file") }
            // No room for the lock file a log lacks (one copied onto a full disk): read without it, as below.
            if options.readOnly, !options.noLock, error.code == ENOSPC || error.code == EDQUOT, !WriterLock.isHeld(directory: path, readings: 3) {
                return try withoutLockFile()
            }
            guard error.code == EACCES else { throw .storage(path: path, error) }
            guard !options.noLock, let lock = lockFileDenied(in: path) else {
                throw .permissionDenied(path: path, reason: "its \(LogLayout.dataFile) cannot be \(options.readOnly ? "read" : "written")")
            }
            guard options.readOnly else {
                throw .permissionDenied(path: path, reason: "writing needs LMDB's lock file, \(LogLayout.lockFile), \(lock)")
            }
            guard !WriterLock.isHeld(directory: path, readings: 3) else {
                throw .permissionDenied(path: path, reason: "a process is recording into it, and reading beside one needs LMDB's lock file, \(LogLayout.lockFile), \(lock)")
            }
            return try withoutLockFile()
        }
    }

    private static func create(
        path: String, readOnly: Bool, configuration: EventLogConfiguration, passingOver: Set<String>
    ) throws(EventLogError) -> LogStorage {
        var options = EnvironmentOptions()
        options.readOnly = readOnly
        options.noSync = configuration.durability == .noSync
        options.mapSize = configuration.initialMapSize
        options.maxMapSize = configuration.maxMapSize
        options.maxDatabases = 16
        let environment = try openEnvironment(path: path, options: options)
        if !readOnly {
            try refuseForeignEnvironment(environment, path: path)
        }
        var databases: [Database] = []
        for name in LogLayout.allDatabases {
            do {
                databases.append(try environment.openDatabase(name, flags: readOnly ? [] : .create))
            } catch where error.isNotFound {
                // With `meta` there, a database gone is damage to the main database's page, not another program's file.
                if !databases.isEmpty {
                    throw .damagedFile(path: path, reason: "its main database no longer lists ReactorLog's '\(name)' database")
                }
                throw damagedOrForeign(path: path, "it is an LMDB environment without ReactorLog's '\(name)' database")
            } catch where error.isIncompatible || error.isCorrupted {
                // `meta`'s record refused is damage when the main database lists ReactorLog's other databases.
                if databases.isEmpty, (try? environment.databaseNames())?.contains(LogLayout.entriesDatabase) != true {
                    throw .storage(path: path, error)
                }
                throw damagedRecord(of: name, path: path, error)
            } catch {
                throw .storage(path: path, error)
            }
        }
        func openOptional(_ name: String, create: Bool) throws(EventLogError) -> Database? {
            do {
                return try environment.openDatabase(name, flags: create ? .create : [])
            } catch where error.isNotFound {
                return nil
            } catch where error.isIncompatible || error.isCorrupted {
                throw damagedRecord(of: name, path: path, error)
            } catch {
                throw .storage(path: path, error)
            }
        }
        var optional: [Database?] = []
        for name in LogLayout.optionalDatabases {
            optional.append(readOnly && passingOver.contains(name) ? nil : try openOptional(name, create: !readOnly))
        }
        // `meta`'s records, walked once: for the index's seal below and for opening's checks (``prepareMetadata``), which
        // walks it again, and reports what stops the walk, when this one fails.
        let metaRecords = try? environment.read { txn in try MetaRecords(txn, databases[0]) }
        // A log of format version 1 to 4 has its index in `stream-entries` until a writer converts it, in the
        // transaction that drops it: while it is there, it is the index.
        let index: StreamIndex
        if readOnly, let records = try openOptional(LogLayout.streamRecordsDatabase, create: false) {
            index = StreamIndex(database: records, layout: .records, meta: databases[0])
        } else if let blocks = try openOptional(LogLayout.streamIndexDatabase, create: !readOnly) {
            // A writer raises the log to version 8 as it opens it, sealing every block with its key; a reader of a log
            // of version 7 or less accepts either seal, as a writer may do so while it reads.
            let sealed = !readOnly || metaRecords?.formatVersion ?? 0 >= LogLayout.sealedIndexKeysFormatVersion
            index = StreamIndex(database: blocks, layout: .blocks, seal: sealed ? .keyAndItems : .itemsOrKeyAndItems)
        } else {
            throw .damagedFile(path: path, reason: "its main database no longer lists ReactorLog's '\(LogLayout.streamIndexDatabase)' database")
        }
        let storage = LogStorage(
            path: path, environment: environment, databases: databases, index: index, optional: optional,
            unopened: readOnly ? passingOver : [])
        try storage.prepareMetadata(readOnly: readOnly, configuration: configuration, walked: metaRecords)
        try storage.reloadStreams()
        return storage
    }

    /// Refuses to add ReactorLog's databases to another program's LMDB environment: an environment that
    /// holds anything must already have a `meta` database.
    private static func refuseForeignEnvironment(_ environment: Environment, path: String) throws(EventLogError) {
        let names: [String]
        do {
            names = try environment.databaseNames()
        } catch let error as LMDBError {
            throw .storage(path: path, error)
        } catch {
            throw .notALog(path: path, reason: "its main database cannot be read (\(error))")
        }
        if !names.isEmpty && !names.contains(LogLayout.metaDatabase) {
            throw .notALog(path: path, reason: "it is another program's LMDB environment (it holds \(names.prefix(3).joined(separator: ", ")))")
        }
    }

    /// A directory a writer of ReactorLog opened holds its `writer.lock`: there a data file too short or not LMDB, or
    /// (to a reader, before any writer of this open took the lock) whose main database does not list ReactorLog's
    /// `meta`, is damage to a log (a file cut short, a first launch killed as it began the file, a main database's
    /// root moved by a bad bit onto another tree's page), which an app sets aside; elsewhere, it is another
    /// program's file, which it must leave alone.
    private static func damagedOrForeign(path: String, _ reason: String) -> EventLogError {
        wasWritten(path) ? .damagedFile(path: path, reason: reason) : .notALog(path: path, reason: reason)
    }

    /// Whether a writer of ReactorLog opened the directory at `path`: it holds the `writer.lock` a writer makes.
    static func wasWritten(_ path: String) -> Bool {
        access(path + "/" + LogLayout.writerLockFile, F_OK) == 0
    }

    /// Checks the format version in `meta`'s records (`walked`, or walked here); a new log gets its metadata, an
    /// existing one records its new writer, and an index of format version 1 to 4 is converted to blocks in the same
    /// transaction.
    private func prepareMetadata(readOnly: Bool, configuration: EventLogConfiguration, walked: MetaRecords?) throws(EventLogError) {
        // The environment holds ReactorLog's databases: a format version missing or not a number where the log holds
        // entries or was ever created is damage, not another program's file.
        let records: MetaRecords
        if let walked { records = walked } else { records = try read { txn in try MetaRecords(txn, meta) } }
        if records.wiped > 0 || records.mended != nil { walksMeta.withLock { $0 = true } }
        let existing = records.values[LogLayout.MetaKey.formatVersion]
        if let existing {
            guard let version = Int(existing) else {
                throw .damagedFile(path: path, reason: "its format version '\(existing)' is not a number")
            }
            if version > EventLog.formatVersion {
                throw .newerFormat(path: path, found: version, supported: EventLog.formatVersion)
            }
        } else {
            let count = try read { txn in try txn.count(entries) }
            if count > 0 {
                throw .damagedFile(path: path, reason: "its metadata has no format version, though it holds entries")
            }
            if records.values[LogLayout.MetaKey.createdAt] != nil {
                throw .damagedFile(path: path, reason: "its metadata has no format version, though it says when the log was created")
            }
            if readOnly { throw .notALog(path: path, reason: "it has no format version in its metadata") }
        }
        guard !readOnly else { return }
        // LMDB's search within the page, which a write to it takes, can miss a key beside a wiped record; and a value
        // put back is not what the file holds, which a writer would seal as it stands.
        if let damaged = records.damagedRecords { throw .damagedFile(path: path, reason: "its metadata has \(damaged)" + EventLogError.readersCanOpen) }
        var values = [
            LogLayout.MetaKey.writtenBy: EventLog.libraryVersion,
            LogLayout.MetaKey.durability: configuration.durability.rawValue,
            LogLayout.MetaKey.snapshotPolicy: configuration.snapshotPolicy.description,
            LogLayout.MetaKey.codec: configuration.codec.id.description,
        ]
        if existing.flatMap(Int.init) ?? 0 < EventLog.formatVersion {
            // The writer writes compact records and index blocks, which readers of versions 1 to 4 cannot read, and
            // seals the metadata, which a writer of version 5 would change without sealing it again.
            values[LogLayout.MetaKey.formatVersion] = String(EventLog.formatVersion)
        }
        if existing == nil {
            values[LogLayout.MetaKey.createdAt] = String(WallClock.now())
            values[LogLayout.MetaKey.createdBy] = EventLog.libraryVersion
        }
        try storage { () throws in
            try environment.write { txn in
                // Opened in the transaction: it runs again when the map must grow, and a failed one closes the handle.
                // A damaged value must not be sealed as if it were sound.
                if case .broken = try MetadataSeal.status(txn, meta) {
                    throw EventLogError.corruptMetadata(reason: "its checksum does not match its keys and values, so one of them is damaged")
                }
                if let records = try txn.openDatabase(LogLayout.streamRecordsDatabase) { try index.convert(txn, records: records) }
                if existing.flatMap(Int.init) ?? 0 < LogLayout.sealedIndexKeysFormatVersion { try index.sealKeys(txn) }
                try putMetadata(txn, values)
            }
        }
    }

    // MARK: Helpers

    /// Runs `body`, turning LMDB's errors into ``EventLogError/storage(path:_:)``.
    func storage<R>(_ body: () throws -> R) throws(EventLogError) -> R {
        do {
            return try body()
        } catch let error as EventLogError {
            throw error
        } catch let error as LMDBError {
            throw .storage(path: path, error)
        } catch {
            throw .invalidArgument(String(describing: error))
        }
    }

    /// A read transaction whose LMDB errors become ``EventLogError/storage(path:_:)``. Opened without the lock file,
    /// it first checks that no process has begun writing since (``EventLog/readsWithoutLockFile``).
    func read<R>(_ body: (Transaction) throws -> R) throws(EventLogError) -> R {
        if readsWithoutLockFile { try refuseNewWriter() }
        return try storage { () throws -> R in try environment.read(body) }
    }

    /// Whether the log was opened without LMDB's lock file, which this user may not write.
    var readsWithoutLockFile: Bool { environment.options.noLock }

    /// Throws when a process holds the log for writing: a read without the lock file is invisible to it, and the
    /// pages it frees from its second transaction on may be some the read is still on.
    private func refuseNewWriter() throws(EventLogError) {
        guard WriterLock.isHeld(directory: path) else { return }
        throw .permissionDenied(path: path, reason: "a process began recording into it while this user, who may not write its lock file, \(LogLayout.lockFile), read it without one, which is safe only while no process records")
    }

    /// A write transaction whose LMDB errors become ``EventLogError/storage(path:_:)``.
    func write<R>(_ body: (Transaction) throws -> R) throws(EventLogError) -> R {
        try storage { () throws -> R in try environment.write(body) }
    }

    func metaValue(_ key: String) throws(EventLogError) -> String? {
        if walksMeta.withLock({ $0 }) { return try read { txn in try MetaRecords(txn, meta).values[key] } }
        return try read { txn in
            try txn.get(meta, key: Array(key.utf8)).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// The log's metadata; refused when its seal is broken or an import carried it over unvouched (``storedMetadata()``
    /// reads past both).
    func metadata() throws(EventLogError) -> LogMetadata {
        let (metadata, sealDamage) = try storedMetadata()
        // A broken seal means a value may be damaged (a digit of the creation time, the sequence floor), and what
        // reads the metadata passes it on (an export's header): it is refused, as a writer refuses it.
        if let sealDamage { throw sealDamage }
        return metadata
    }

    /// The log's metadata as its records hold it, and what is wrong with the seal over them, or why an import carried
    /// them over unvouched (`nil` when neither), from one snapshot of the log.
    func storedMetadata() throws(EventLogError) -> (metadata: LogMetadata, damage: EventLogError?) {
        let records = try read { txn in try MetaRecords(txn, meta) }
        let values = records.values
        typealias Key = LogLayout.MetaKey
        let version = records.formatVersion
        let sealDamage: EventLogError?
        switch records.seal {
        case .broken:
            sealDamage = .corruptMetadata(reason: "its checksum does not match its keys and values, so one of them is damaged")
        case .missing where version ?? 0 >= LogLayout.sealedMetadataFormatVersion:
            sealDamage = .corruptMetadata(reason: "its checksum is missing, though the log's format version seals it")
        case .intact:
            // Vouched for here: but values an import carried over unvouched stay so.
            sealDamage = values[Key.unvouched].map { .unvouchedMetadata(reason: "its " + LogMetadata.importedUnvouched(because: $0)) }
        case .missing:
            sealDamage = nil
        }
        // Without a format version nothing else can be read as what it says: the seal's damage, when there is one, is
        // the first problem.
        guard let version else { throw sealDamage ?? .corruptMetadata(reason: "the format version is missing") }
        let metadata = LogMetadata(
            formatVersion: version,
            createdAt: values[Key.createdAt].flatMap { Int64($0) },
            createdBy: values[Key.createdBy] ?? "unknown",
            writtenBy: values[Key.writtenBy] ?? "unknown",
            codec: values[Key.codec] ?? "json",
            durability: values[Key.durability].flatMap(Durability.init(rawValue:)),
            snapshotPolicy: values[Key.snapshotPolicy].flatMap(SnapshotPolicy.init),
            sequenceFloor: values[Key.sequenceFloor].flatMap { UInt64($0) } ?? 0,
            // Where the seal is broken, what the record says is unvouched too: the seal's damage is what is reported.
            unvouched: records.seal == .intact ? values[Key.unvouched] : nil)
        return (metadata, sealDamage)
    }

    /// Records in `txn` that retention removed `removed` from stream `stream`; the log becomes format version 2
    /// (at least), which readers that know no gaps refuse.
    func recordGap(_ txn: Transaction, stream: UInt32, removed: ClosedRange<UInt64>) throws {
        guard let gaps else { throw EventLogError.invalidArgument("This log cannot record gaps.") }
        try raiseFormatVersion(txn, to: LogLayout.gapsFormatVersion)
        try txn.put(gaps, key: KeyCoding.streamSequence(stream, removed.upperBound), value: GapRecord.encode((stream, removed)))
    }

    /// Records in `txn` that stream `stream`'s numbers up to `era.through` were written by types of fingerprint
    /// `era.fingerprint`; the log becomes format version 3, which readers that know no eras refuse. An era that
    /// ends where a recorded one ends is not recorded: those numbers were written by the recorded one's types.
    func recordSchemaEra(_ txn: Transaction, stream: UInt32, era: SchemaHistory.Era) throws {
        guard let schemas else { throw EventLogError.invalidArgument("This log cannot record schema changes.") }
        try raiseFormatVersion(txn, to: LogLayout.schemaErasFormatVersion)
        let key = KeyCoding.streamSequence(stream, era.through)
        guard try txn.get(schemas, key: key) == nil else { return }
        try txn.put(schemas, key: key, value: SchemaEraRecord.encode(stream: stream, era: era))
    }

    /// Stream `id`'s finished schema eras, oldest first; a damaged record stands for the era
    /// ``SchemaEraRecord/read(stream:through:record:)`` reads from it.
    func schemaEras(_ txn: Transaction, stream id: UInt32) throws -> [SchemaHistory.Era] {
        try streamRecords(txn, schemas, stream: id, what: "schema era", placing: SchemaEraRecord.key(of:)) {
            SchemaEraRecord.read(stream: id, through: $0, record: $1)?.era
        }
    }

    /// The records of `database` (keyed by stream id, then sequence number) of stream `id`, in order, each
    /// read by `read` from its sequence number and bytes; one it gives `nil` for is left out.
    ///
    /// When the keys are damaged (one not 12 bytes, or out of order), the database is read whole instead, in the
    /// order of its pages: a record under a key that does not read is taken where `placing` says its sound bytes
    /// belong (its stream and number), and left out when they do not say; ``EventLog/verify(progress:)`` names it.
    /// So one bad key does not stop every read of the stream's metadata.
    func streamRecords<Record>(
        _ txn: Transaction, _ database: Database?, stream id: UInt32, what: String,
        placing: RecordPlacing,
        read: (UInt64, UnsafeRawBufferPointer) throws -> Record?
    ) throws -> [Record] {
        guard let database else { return [] }
        let keys: [StreamKeyCursor.Found] = try txn.withCursor(database) { cursor in
            var keys = StreamKeyCursor(cursor, stream: id, .records(what))
            do {
                var found: [StreamKeyCursor.Found] = []
                var item = try keys.seek(atOrAfter: 0)
                while let current = item {
                    found.append(current)
                    item = try keys.next()
                }
                return found
            } catch EventLogError.corruptKeys {
                return try keys.scan(atOrBefore: .max, placing: placing).ascendingOnce
            }
        }
        return try keys.compactMap { try read($0.sequence, $0.value) }
    }

    /// How a record of a database keyed by (stream, sequence number) says, from its own sound bytes, which key it
    /// belongs under (``GapRecord/key(of:)``, ``SchemaEraRecord/key(of:)``); `nil` when it cannot say.
    typealias RecordPlacing = (UnsafeRawBufferPointer) -> (stream: UInt32, sequence: UInt64)?

    /// Where a record of a database keyed by (stream, sequence number) stands, as readers place it
    /// (``LogStorage/forEachPlaced(_:placing:_:)``).
    enum Placement {
        /// Under its own key of 12 bytes.
        case key(stream: UInt32, sequence: UInt64)
        /// Where its sound record says, its key not reading.
        case record(stream: UInt32, sequence: UInt64)
        /// Where its bytes say, a bad bit having changed its key's size (``damagedSizeKey(_:after:)``): the record
        /// itself is read from the wrong bytes.
        case damagedSize(stream: UInt32, sequence: UInt64)
        /// Nowhere: neither its key nor its record reads, so readers leave it out.
        case none

        /// The (stream, sequence number) it stands for; `nil` for ``none``.
        var key: (stream: UInt32, sequence: UInt64)? {
            switch self {
            case .key(let stream, let sequence), .record(let stream, let sequence), .damagedSize(let stream, let sequence):
                (stream, sequence)
            case .none: nil
            }
        }
    }

    /// Calls `body` with each record of a database keyed by (stream, sequence number), read through `cursor` in the
    /// order of its pages, and where readers place it (``Placement``): under its own key, where its record says
    /// (`placing`), or where its bytes do when a bad bit changed its key's size. `body` may delete the record (LMDB
    /// then leaves the cursor on the one after it, which the next step gives). Returns whether every record was placed
    /// and the keys of 12 bytes, and those a damaged size placed, rose.
    static func forEachPlaced(
        _ cursor: Cursor, placing: RecordPlacing, _ body: (Placement, KeyValue) throws -> Void
    ) throws -> Bool {
        var isWhole = true
        var previous: (stream: UInt32, sequence: UInt64)?
        var item = try cursor.first()
        while let current = item {
            if let key = KeyCoding.decodeStreamSequence(current.key) {
                if let previous, !(previous < key) { isWhole = false }
                previous = key
                try body(.key(stream: key.stream, sequence: key.sequence), current)
            } else if let key = placing(current.value) {
                try body(.record(stream: key.stream, sequence: key.sequence), current)
            } else if let key = damagedSizeKey(current, after: previous) {
                // Checked against the next key as a 12-byte one is.
                previous = key
                try body(.damagedSize(stream: key.stream, sequence: key.sequence), current)
            } else {
                isWhole = false
                try body(.none, current)
            }
            item = try cursor.next()
        }
        return isWhole
    }

    /// The (stream, sequence number) a record of a database keyed so stands for when a bad bit changed its key's size
    /// (LMDB does not check it; the record stays where it was, read from the wrong bytes, so it is damaged): a grown
    /// key's first 12 bytes, or a shrunk key's bytes and the record's first ones, which are the rest of it, when that
    /// sorts after `previous`, the key before it in the tree. `nil` otherwise.
    static func damagedSizeKey(_ item: KeyValue, after previous: (stream: UInt32, sequence: UInt64)?)
        -> (stream: UInt32, sequence: UInt64)? {
        let lost = 12 - item.key.count
        if lost < 0 { return KeyCoding.decodeStreamSequence(UnsafeRawBufferPointer(rebasing: item.key.prefix(12))) }
        guard lost > 0, item.value.count >= lost else { return nil }
        let bytes = Array(item.key) + Array(item.value.prefix(lost))
        guard let key = bytes.withUnsafeBytes({ KeyCoding.decodeStreamSequence($0) }), previous.map({ $0 < key }) ?? true else {
            return nil
        }
        return key
    }

    /// Writes `pin` in `txn` (``PinRecord``): the one place a pin is written, by the owner's calls and by the writer's
    /// pin of each `unwritten` entry.
    func writePin(_ pin: LogPin, _ txn: Transaction) throws {
        guard let pins else { throw EventLogError.invalidArgument("This log cannot hold pins.") }
        try txn.put(pins, key: PinRecord.key(pin.range), value: PinRecord.encode(pin))
    }

    /// Sets `format-version` to `version` in `txn` unless it is already that or higher.
    private func raiseFormatVersion(_ txn: Transaction, to version: Int) throws {
        guard try LogLayout.formatVersion(txn, meta: meta) ?? 0 < version else { return }
        try putMetadata(txn, [LogLayout.MetaKey.formatVersion: String(version)])
    }

    /// Writes `values` into `meta` in `txn` and seals the metadata again (``MetadataSeal``): the one way metadata
    /// is written.
    func putMetadata(_ txn: Transaction, _ values: [String: String]) throws {
        for (key, value) in values {
            try txn.put(meta, key: Array(key.utf8), value: Array(value.utf8))
        }
        try MetadataSeal.seal(txn, meta)
    }

    /// Every interned call site, by number; a damaged record is left out (an action that names it is refused as
    /// damaged when read with its site).
    func callSites() throws(EventLogError) -> [UInt32: String] {
        guard let sites else { return [:] }
        return try read { txn in
            try txn.withCursor(sites) { cursor in
                var found: [UInt32: String] = [:]
                var item = try cursor.first()
                while let current = item {
                    if let id = KeyCoding.decodeStream(current.key), let site = SiteRecord.decode(current.value) { found[id] = site }
                    item = try cursor.next()
                }
                return found
            }
        }
    }

    /// The highest number in `sites` (0 when there is none). A last key that is not a number is damage: read as no
    /// sites, every action's site would be left out of an export, and a writer would number its next site 1 again.
    func highestSiteNumber() throws(EventLogError) -> UInt32 {
        guard let sites else { return 0 }
        // The last key's number, nil when it is not one, or nothing when there is no key.
        let last: UInt32?? = try read { txn in try txn.withCursor(sites) { try $0.last().map { KeyCoding.decodeStream($0.key) } } }
        guard let last else { return 0 }
        guard let number = last else {
            throw .damagedFile(path: path, reason: "the key of its last call site is damaged")
        }
        return number
    }

    /// The call site recorded with entry `sequence` of stream `id` (the number in its index value), or `nil`. Read
    /// by a checked walk from the block before the one holding it (``forEachCheckedItem(stream:around:from:through:_:)``),
    /// so that a block whose key was moved cannot give another action's site.
    func callSite(stream id: UInt32, sequence: UInt64) throws(EventLogError) -> String? {
        var number: UInt32?
        try forEachCheckedItem(stream: id, around: sequence, from: sequence, through: sequence) { number = $0.site }
        guard let number, number != 0 else { return nil }
        return try siteText(number, of: sequence)
    }

    /// The text of interned call site `number`, which entry `sequence` names, from a cache that is read again when
    /// it lacks the number (a live log interns new sites). A site is committed with the first entry that names it,
    /// so one the log does not hold intact is damage: passed on as no call site, an export would lose it.
    func siteText(_ number: UInt32, of sequence: UInt64) throws(EventLogError) -> String {
        if let site = siteCache.withLock({ $0[number] }) { return site }
        let sites = try callSites()
        siteCache.withLock { $0 = sites }
        guard let site = sites[number] else {
            throw .corruptEntry(sequence: sequence, reason: "its call site, number \(number), is damaged or missing from the log")
        }
        return site
    }

    // MARK: Streams

    /// Reads every stream descriptor into the cache; returns those read. A descriptor that cannot be read is kept
    /// as damage (``damagedDescriptors``): its stream's entries are damaged to a reader, the other streams read on.
    @discardableResult
    func reloadStreams() throws(EventLogError) -> [UInt32: StreamInfo] {
        let (found, damaged) = try readDescriptors(above: nil)
        let loaded = Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        streamCache.withLock { $0.replace(with: loaded, damaged: damaged) }
        return loaded
    }

    /// The descriptors that could not be read, by the id of their key (0 for a key of the wrong length whose record
    /// is damaged too), as last read.
    var damagedDescriptors: [UInt32: EventLogError] { streamCache.withLock { $0.damaged } }

    /// The damage of stream `id`'s descriptor, when it could not be read.
    func descriptorDamage(_ id: UInt32) -> EventLogError? {
        streamCache.withLock { $0.damaged[id] }
    }

    /// Whether stream `id`'s descriptor is damaged.
    func hasDamagedDescriptor(_ id: UInt32) -> Bool {
        descriptorDamage(id) != nil
    }

    /// Why an entry, snapshot or other record naming stream `id`, which has no descriptor, cannot be read: the end of
    /// a sentence, after "it names stream id N".
    func undescribed(_ id: UInt32) -> String {
        guard case .corruptStream(_, let reason) = descriptorDamage(id) else {
            return "which the log does not describe"
        }
        return "whose descriptor is damaged (\(reason))"
    }

    /// The stream descriptors in the log with ids above `lowest`, or all of them. A sound record under a key that is
    /// not 4 bytes is read as the id it holds says (``EventLog/verify(progress:)`` names the key), unless a record
    /// under that id's own key, which a writer wrote since, is there too.
    /// A record that cannot be read is returned as damage, by its key's id, unless a sound record gives its stream. One
    /// whose key is not an id either (a node a zeroed sector wiped) is placed by its neighbours: ids are given 1, 2, …
    /// and each stream has one record, kept in order of id, so a run of such records between ids `a` and `b` holds the
    /// ids between them when there are as many (every id between, when there are more), and a run after the last id the
    /// ones after it. Damage under ids that cannot be placed so is kept under 0. An id below the highest that no record
    /// gives is damage too.
    private func readDescriptors(above lowest: UInt32?) throws(EventLogError) -> (found: [StreamInfo], damaged: [UInt32: EventLogError]) {
        try read { txn in
            var found: [StreamInfo] = [], placed: [StreamInfo] = [], damaged: [UInt32: EventLogError] = [:]
            // The id of the last record that told one, and the key sizes of the records since that told none.
            var before = lowest ?? 0, unplaced: [Int] = []
            /// Places the records in `unplaced` before id `next` (`nil`: after the last).
            func place(before next: UInt32?) {
                guard let size = unplaced.first else { return }
                defer { unplaced = [] }
                // Between two ids, at most as many as a page lost could have held apiece (a key a bad bit raised, or
                // hostile bytes, must not make a list of millions); after the last, one apiece.
                let between = next.map { before < $0 && Int($0 - before) <= Self.placeableIDs ? Array(before + 1..<$0) : [] }
                let ids = between ?? unplaced.indices.map { before &+ 1 &+ UInt32($0) }.filter { $0 > before }
                guard ids.count >= unplaced.count, !ids.isEmpty else {
                    let key = size == 4 ? "a key names id 0, which no stream has" : "a key is \(size) bytes, not 4"
                    damaged[0] = .corruptStream(id: 0, reason: "\(key), and its record is damaged")
                    return
                }
                guard ids.count == unplaced.count else {
                    // More ids than records between (a page of them lost, one record keeping its place): which held
                    // which is not known, and no id between has a record.
                    for id in ids { damaged[id] = .corruptStream(id: id, reason: Self.missingDescriptor) }
                    return
                }
                for (id, size) in zip(ids, unplaced) {
                    let key = size == 4 ? "the record in its place is under id 0, which no stream has," : "the key in its place is \(size) bytes, not 4,"
                    damaged[id] = .corruptStream(id: id, reason: "\(key) and its record is damaged")
                }
            }
            try txn.withCursor(streams) { cursor in
                func decode(_ id: UInt32, _ record: UnsafeRawBufferPointer, into read: inout [StreamInfo]) {
                    do { read.append(try StreamRecord.decode(id: id, record: record)) } catch { damaged[id] = error }
                    place(before: id)
                    before = max(before, id)
                }
                var item = try lowest.map { try cursor.seek(atOrAfter: KeyCoding.stream($0 + 1)) } ?? cursor.first()
                while let current = item {
                    // Id 0 is no stream's: a record under it (a page left out of a reader's copy keeps its place so)
                    // is placed as one that tells no key.
                    if let id = KeyCoding.decodeStream(current.key), id != 0 {
                        decode(id, current.value, into: &found)
                    } else if let id = StreamRecord.recordedID(current.value) {
                        if lowest.map({ id > $0 }) ?? true { decode(id, current.value, into: &placed) }
                    } else {
                        unplaced.append(current.key.count)
                    }
                    item = try cursor.next()
                }
                place(before: nil)
            }
            let ids = Set(found.map(\.id))
            let read = found + placed.filter { !ids.contains($0.id) }
            for info in read { damaged[info.id] = nil }
            // An id below the highest that no record gives lost its record (a page of them left out of a reader's
            // copy): its stream's entries are named as its, not as a stream the log does not describe.
            let known = Set(read.map(\.id)).union(damaged.keys)
            // Below the highest sound record's id (a damaged record's key may be anything), and only for as many ids
            // missing as lost pages could have held.
            if let highest = read.map(\.id).max(), highest > (lowest ?? 0) + 1, Int(highest - (lowest ?? 0)) - known.count <= Self.placeableIDs {
                for id in (lowest ?? 0) + 1..<highest where !known.contains(id) {
                    damaged[id] = .corruptStream(id: id, reason: Self.missingDescriptor)
                }
            }
            return (read, damaged)
        }
    }

    /// How many ids the descriptors' places may give at most: as many as 256 lost pages of the smallest records hold.
    private static let placeableIDs = 256 * 4096 / (StreamRecord.headerSize + 8)

    /// Why a descriptor below the highest id read is damage when no record gives it.
    private static let missingDescriptor = "its record is missing, though the log holds stream ids above it"

    /// Keeps `damage`, to a stream's index, as gone around, unless damage to the same stream's index already is.
    func noteBypassed(_ damage: EventLogError) {
        guard case .corruptIndex(let id, _, _) = damage else { return }
        bypassed.withLock { $0.note(damage, stream: id) }
    }

    /// The damage ``noteBypassed(_:)`` kept, by stream id.
    var bypassedIndexDamage: [EventLogError] { bypassed.withLock { $0.inStreamOrder } }

    /// Keeps `damage`, among stream `id`'s snapshots, as passed over, unless damage there already is.
    func notePassedOver(_ damage: EventLogError, stream id: UInt32) {
        passedOver.withLock { $0.note(damage, stream: id) }
    }

    /// The damage ``notePassedOver(_:stream:)`` kept, by stream id.
    var passedOverSnapshotDamage: [EventLogError] { passedOver.withLock { $0.inStreamOrder } }

    /// Every stream, by id.
    var cachedStreams: [UInt32: StreamInfo] { streamCache.withLock { $0.byID } }

    /// Every stream of the log, by id: while this process writes, the cache (the pending streams too); else as read.
    func allStreams() throws(EventLogError) -> [UInt32: StreamInfo] {
        if let complete = streamCache.withLock({ $0.isComplete ? $0.byID : nil }) { return complete }
        return try reloadStreams()
    }

    /// The stream with `id`, reading the descriptors of streams made since the cache was filled when it is not
    /// cached (another process made it) and this process does not write the log. Only the new ones are read: a
    /// follower of a log where a server makes thousands of streams read every descriptor again for each.
    func stream(id: UInt32) throws(EventLogError) -> StreamInfo? {
        let (cached, complete, highest) = streamCache.withLock { ($0.byID[id], $0.isComplete, $0.highestID) }
        if cached != nil || complete || id <= highest { return cached }
        let (found, damaged) = try readDescriptors(above: highest)
        return streamCache.withLock { cache in
            cache.add(found, damaged: damaged)
            // Read above the highest id, where a descriptor is committed before any entry that names it: the entry
            // asking (its checksum sound) names a stream whose record was lost, the last page of them say.
            if cache.byID[id] == nil { cache.noteLost(id) }
            return cache.byID[id]
        }
    }

    /// The stream named `name`, reloading the descriptors once when it is not cached and this process does not
    /// write the log (another process may have made or renamed it).
    func stream(named name: String) throws(EventLogError) -> StreamInfo? {
        let (cached, complete) = streamCache.withLock { ($0.named(name), $0.isComplete) }
        if cached != nil || complete { return cached }
        try reloadStreams()
        return streamCache.withLock { $0.named(name) }
    }

    /// Keeps `info`, a descriptor this process wrote.
    func cache(_ info: StreamInfo) {
        streamCache.withLock { $0.insert(info) }
    }

    /// `template` with the next stream id, kept in the cache as pending until ``committedStreams(_:)``; `nil` when a
    /// stream has its name. Only for the writer, which holds the writer lock, so the cache knows every stream of the log.
    func reserveStream(_ template: StreamInfo) throws(EventLogError) -> StreamInfo? {
        try streamCache.withLock { cache throws(EventLogError) in try cache.reserve(template) }
    }

    /// The writer committed the descriptors of `ids`.
    func committedStreams(_ ids: some Sequence<UInt32>) {
        streamCache.withLock { $0.committed(ids) }
    }

    /// Whether stream `id`'s descriptor waits in the writer's queue.
    func isPending(_ id: UInt32) -> Bool {
        streamCache.withLock { $0.pending.contains(id) }
    }

    /// Tells the cache whether this process holds the writer lock. Taking it again, the descriptors are read afresh
    /// (another process may have written since this process's last writer closed; a storage just made read them under
    /// the lock already); from then on only this process changes them, so a lookup that misses reads nothing again.
    /// Set `false` before the lock is released.
    func setWriting(_ writing: Bool) throws(EventLogError) {
        if writing && streamCache.withLock({ $0.wasComplete }) { try reloadStreams() }
        streamCache.withLock { cache in
            cache.isComplete = writing
            if !writing { cache.dropPending() }
        }
    }

    /// The name of stream `id`, for decoding entries; an id without a descriptor means damage.
    func streamName(id: UInt32, sequence: UInt64) throws(EventLogError) -> String {
        guard let info = try stream(id: id) else {
            throw .corruptEntry(sequence: sequence, reason: "it names stream id \(id), \(undescribed(id))")
        }
        return info.name
    }
}

import Foundation
import LMDB

extension EventLog {
    /// Copies the log into `destination`, a directory that must not exist yet (or be empty), for a backup
    /// or, with `compact` (the default), to reclaim the space of trimmed entries. Safe on a live log: the
    /// copy is one consistent snapshot of what was committed when it began. A log opened without its call sites
    /// (``openWithoutCallSites(at:)``) is refused, nothing written: LMDB's copy would read their damaged pages. So is
    /// a compacting copy of a log whose pages only a writer trips on (``EventLogError/refusesOnlyWriters``): a damaged
    /// free list or record flags, which LMDB's compacting copy reads too (not the meta pages' transaction ids: it writes
    /// its own).
    ///
    /// The copy is written as `data.mdb.unfinished`, synced to disk, and only then renamed `data.mdb`: a process
    /// killed midway (or a machine that loses power) leaves no cut-off data file that looks like a log. The copy holds
    /// a lock on that file while it writes it, so a later copy to the same path tells one still running (and refuses)
    /// from one that was killed, whose file it replaces.
    ///
    /// - Parameters:
    ///   - destination: The new log's directory: a new path, an empty directory, or one holding only what a stopped
    ///     copy left.
    ///   - compact: Whether to leave out the free pages (LMDB's compacting copy), the default.
    ///   - claimed: Called once `destination` is the copy's to write, before it writes, with whether the copy
    ///     created the directory: what a tool that stops the copy on a signal passes to
    ///     ``removeUnfinishedCopy(at:madeDirectory:)``.
    public func copy(to destination: String, compact: Bool = true, claimed: (_ madeDirectory: Bool) -> Void = { _ in }) throws(EventLogError) {
        // LMDB's copy reads every database, pages this log was opened without because they are damaged.
        guard storage.unopened.isEmpty else {
            throw .invalidArgument("Cannot copy the log at \(path): it was opened without its call sites, whose damaged pages LMDB's copy would read. Append its entries to a new log instead, as the inspector's `export` and `import` do.")
        }
        // LMDB's compacting copy reads the free list and follows every record's flags, which readers pass over: damage
        // there (a writer trips on it) would take the copy past the file's map, a crash. It writes meta pages of its
        // own: their transaction ids are no matter. Not beside a live writer, whose pages change under the walk; it
        // checked them when it opened.
        if compact, !WriterLock.isHeld(directory: path),
           let problem = LogStorage.pageTreeProblem(path: path, forWriting: true, checkingCommits: false),
           !WriterLock.isHeld(directory: path, tryingTheLock: true) {
            throw .damagedFile(path: path, reason: problem)
        }
        let files = FileManager.default
        if Self.isInside(destination, path) {
            throw .invalidArgument("Cannot copy the log to \(destination): it is inside the log itself. Choose a path outside \(path).")
        }
        var isDirectory: ObjCBool = false
        let existed = files.fileExists(atPath: destination, isDirectory: &isDirectory)
        if existed {
            let contents = (try? files.contentsOfDirectory(atPath: destination)) ?? []
            if contents == [LogLayout.unfinishedCopyFile] {
                try removeStoppedCopy(at: destination)
            } else if !isDirectory.boolValue || !contents.isEmpty {
                throw .invalidArgument("Cannot copy the log to \(destination): it already exists and is not an empty directory. Choose a new path.")
            }
        } else {
            // mkdir itself, for errno's sentence: Foundation's ends in a period of its own.
            guard mkdir(destination, 0o700) == 0 else {
                throw .invalidArgument("Cannot create \(destination): \(String(cString: strerror(errno))). Check that its parent directory exists and is writable.")
            }
        }
        claimed(!existed)
        do {
            try writeDataFile(of: storage.environment, into: destination, compact: compact)
        } catch {
            // A copy cut short (a full disk) is no log: what it wrote goes, and the directory if the copy made it.
            Self.removeUnfinishedCopy(at: destination, madeDirectory: !existed)
            throw .storage(path: destination, error)
        }
    }

    /// Removes what ``copy(to:compact:claimed:)`` wrote at `destination` before it finished: its unfinished data file, and the
    /// directory when the copy made it. A finished copy, named `data.mdb`, is kept. For a tool that stops a copy
    /// midway (an interrupt handler).
    ///
    /// - Returns: Whether the copy had finished (and is kept).
    @discardableResult
    public static func removeUnfinishedCopy(at destination: String, madeDirectory: Bool) -> Bool {
        unlink(destination + "/" + LogLayout.unfinishedCopyFile)
        if access(destination + "/" + LogLayout.dataFile, F_OK) == 0 { return true }
        if madeDirectory { rmdir(destination) }
        return false
    }
}

extension EventLog {
    /// The files a log directory holds: only these are ever removed when a log is replaced.
    public static let files = [LogLayout.dataFile, LogLayout.lockFile, LogLayout.writerLockFile]

    /// Whether `candidate` is `directory` or lies inside it, symbolic links resolved.
    static func isInside(_ candidate: String, _ directory: String) -> Bool {
        func resolved(_ path: String) -> String {
            // The deepest existing ancestor, resolved, then the rest of the path as written.
            var existing = URL(fileURLWithPath: path).standardizedFileURL
            var rest: [String] = []
            while !FileManager.default.fileExists(atPath: existing.path), existing.path != "/" {
                rest.insert(existing.lastPathComponent, at: 0)
                existing.deleteLastPathComponent()
            }
            return rest.reduce(existing.resolvingSymlinksInPath()) { $0.appendingPathComponent($1) }.path
        }
        let inner = resolved(candidate), outer = resolved(directory)
        return inner == outer || inner.hasPrefix(outer.hasSuffix("/") ? outer : outer + "/")
    }
}

/// Removes the `data.mdb.unfinished` of a copy to `destination` that was stopped before it finished; refuses
/// when a copy still writes it (it holds the file's lock).
private func removeStoppedCopy(at destination: String) throws(EventLogError) {
    let unfinished = destination + "/" + LogLayout.unfinishedCopyFile
    let file = open(unfinished, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard file >= 0 else {
        throw .invalidArgument("Cannot copy the log to \(destination): its \(LogLayout.unfinishedCopyFile) cannot be opened (\(String(cString: strerror(errno)))). Delete it, or choose a new path.")
    }
    defer { close(file) }
    guard flock(file, LOCK_EX | LOCK_NB) == 0 else {
        throw .invalidArgument("Cannot copy the log to \(destination): another copy is writing it now (it holds \(LogLayout.unfinishedCopyFile)'s lock). Wait for that copy to finish, or choose a new path.")
    }
    guard unlink(unfinished) == 0 else {
        throw .invalidArgument("Cannot copy the log to \(destination): its \(LogLayout.unfinishedCopyFile), left by a copy that was stopped, cannot be removed (\(String(cString: strerror(errno)))). Delete it, or choose a new path.")
    }
}

/// Writes `environment`'s data file as ``LogLayout/unfinishedCopyFile`` in `directory`, syncs it, renames it the data
/// file and syncs the directory, so that the name `data.mdb` appears only for a whole copy on disk.
private func writeDataFile(of environment: Environment, into directory: String, compact: Bool) throws(LMDBError) {
    let unfinished = directory + "/" + LogLayout.unfinishedCopyFile
    let file = open(unfinished, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard file >= 0 else { throw LMDBError(code: errno, operation: "open(\(LogLayout.unfinishedCopyFile))") }
    // The lock is held until the file is closed, after its rename: a copy that finds the file locked knows this one is
    // still writing it.
    defer { close(file) }
    guard flock(file, LOCK_EX | LOCK_NB) == 0 else { throw LMDBError(code: errno, operation: "flock(\(LogLayout.unfinishedCopyFile))") }
    try environment.copy(toDescriptor: file, compact: compact)
    guard fsync(file) == 0 else { throw LMDBError(code: errno, operation: "fsync(\(LogLayout.unfinishedCopyFile))") }
    guard rename(unfinished, directory + "/" + LogLayout.dataFile) == 0 else {
        throw LMDBError(code: errno, operation: "rename(\(LogLayout.unfinishedCopyFile))")
    }
    let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard folder >= 0 else { throw LMDBError(code: errno, operation: "open(\(directory))") }
    defer { close(folder) }
    guard fsync(folder) == 0 else { throw LMDBError(code: errno, operation: "fsync(\(directory))") }
}

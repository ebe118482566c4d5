#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files of a new environment, made by this process before LMDB opens them, so that a disk that fills stops the
/// writes and never the process.
///
/// LMDB writes its lock file through a shared map, and a write through a map that needs new room on a full disk ends
/// the process with `SIGBUS`; it overwrites its data file's meta page in place, and when that write fails the
/// environment stops for good (`MDB_PANIC`), for the process's readers too. Two things make such writes need room:
/// a lock file page LMDB left as a hole (it lengthens a new lock file without writing it), which a new log's first
/// open writes at once, and a copy-on-write file system (btrfs, the default of Fedora and openSUSE), where every
/// overwrite needs new room. So a file made here has copy-on-write turned off while it is still empty (btrfs'
/// `FS_NOCOW_FL`, which systemd's journal sets on its files for the same reason; other file systems are left alone),
/// and a new lock file has every page written before it takes its name, so that no process maps it before. A file
/// that exists is left as it is: the flag takes only on an empty file, and LMDB's lock protocol forbids touching a
/// lock file another process may have open.
enum EnvironmentFiles {
    /// Makes in `directory` the lock file (unless `noLock`) and the data file (unless `readOnly`) when they do not
    /// exist yet: a lock file of zeros large enough for LMDB's table of readers, which LMDB then initializes, and an
    /// empty data file, which LMDB takes for a new environment. Returns whether it made the data file. Throws, having
    /// made no data file, when the file system has no room for the lock file (which LMDB would make with holes, and
    /// crash writing); otherwise it does nothing it cannot do, and LMDB then makes or refuses the files as before.
    static func prepare(in directory: String, options: EnvironmentOptions) throws(LMDBError) -> Bool {
        if !options.noLock {
            try makeLockFile(in: directory, size: lockFileSize(maxReaders: options.maxReaders), mode: options.fileMode)
        }
        guard !options.readOnly else { return false }
        let descriptor = open(directory + "/data.mdb", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, options.fileMode)
        guard descriptor >= 0 else { return false }
        turnOffCopyOnWrite(descriptor)
        close(descriptor)
        return true
    }

    /// Removes the data file ``prepare(in:options:)`` made when LMDB could not begin it (a full disk): left empty, it
    /// would read as a damaged log where there is none yet.
    static func removeUnbegunDataFile(in directory: String) {
        var status = stat()
        let path = directory + "/data.mdb"
        if lstat(path, &status) == 0, status.st_size < 2 * 4096 { unlink(path) }
    }

    /// Makes the lock file in `directory` unless it exists: written whole (zeros, copy-on-write off) as a file without
    /// a name, then linked at its name, which fails if another process made one meanwhile. Where the system cannot
    /// make a file without a name, an empty one, as LMDB would. Throws when the zeros cannot be written (no room).
    private static func makeLockFile(in directory: String, size: Int, mode: mode_t) throws(LMDBError) {
        let path = directory + "/lock.mdb"
        guard access(path, F_OK) != 0, errno == ENOENT else { return }
        #if os(Linux)
        // O_TMPFILE: __O_TMPFILE of <fcntl.h> (the same on every Linux platform Swift runs on) with O_DIRECTORY.
        let unnamed = open(directory, O_WRONLY | O_DIRECTORY | 0x40_0000 | O_CLOEXEC, mode)
        if unnamed >= 0 {
            defer { close(unnamed) }
            turnOffCopyOnWrite(unnamed)
            guard writeZeros(size, to: unnamed) else { throw LMDBError(code: errno, operation: "write(lock.mdb)") }
            // EEXIST: another process made it meanwhile, which LMDB opens as it is.
            if linkat(AT_FDCWD, "/proc/self/fd/\(unnamed)", AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0 || errno == EEXIST { return }
        }
        #endif
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { return }
        turnOffCopyOnWrite(descriptor)
        close(descriptor)
    }

    /// A lock file size that holds LMDB's table of `maxReaders` readers: 64 bytes each after a header of at most 256
    /// (on the platforms Swift runs on), less the one reader the header holds. LMDB keeps a lock file at least that
    /// large as it is, its table as large as the file allows.
    static func lockFileSize(maxReaders: UInt32) -> Int {
        (Int(maxReaders) - 1) * 64 + 256
    }

    /// Writes `count` zero bytes to `descriptor`, so that the file system gives the file its room now; returns whether
    /// all were written.
    private static func writeZeros(_ count: Int, to descriptor: Int32) -> Bool {
        let zeros = [UInt8](repeating: 0, count: count)
        var written = 0
        while written < count {
            let result = zeros.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + written, count - written, off_t(written)) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { return false }
            written += result
        }
        return true
    }

    /// Turns copy-on-write off for the empty file open as `descriptor` where the file system can (btrfs); elsewhere,
    /// and for a file that already holds data, nothing changes.
    static func turnOffCopyOnWrite(_ descriptor: Int32) {
        #if os(Linux)
        // FS_IOC_GETFLAGS, FS_IOC_SETFLAGS and FS_NOCOW_FL of <linux/fs.h>; the kernel reads and writes an int.
        let (getFlags, setFlags, noCopyOnWrite): (UInt, UInt, Int32) = (0x8008_6601, 0x4008_6602, 0x0080_0000)
        var flags: Int32 = 0
        guard ioctl(descriptor, getFlags, &flags) == 0, flags & noCopyOnWrite == 0 else { return }
        flags |= noCopyOnWrite
        _ = ioctl(descriptor, setFlags, &flags)
        #endif
    }
}

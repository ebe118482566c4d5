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
/// environment stops for good (`MDB_PANIC`), for the process's readers too. On a copy-on-write file system (btrfs,
/// the default of Fedora and openSUSE) every overwrite needs new room, so both happen there whenever the disk fills.
/// A file made here has copy-on-write turned off while it is still empty (btrfs' `FS_NOCOW_FL`, which systemd's
/// journal sets on its files for the same reason; other file systems overwrite in place and are left alone). A file
/// that exists is left as it is: the flag takes only on an empty file, and LMDB's lock protocol forbids touching a
/// lock file another process may have open.
enum EnvironmentFiles {
    /// Makes in `directory` the data file (unless `readOnly`) and the lock file (unless `noLock`) when they do not
    /// exist yet, empty, as LMDB would: it takes an empty data file for a new environment and sizes the lock file
    /// itself. Does nothing it cannot do; LMDB then makes or refuses the files as before.
    static func prepare(in directory: String, options: EnvironmentOptions) {
        if !options.readOnly { create(directory + "/data.mdb", mode: options.fileMode) }
        if !options.noLock { create(directory + "/lock.mdb", mode: options.fileMode) }
    }

    /// Creates the empty file at `path` with copy-on-write turned off, unless it exists.
    private static func create(_ path: String, mode: mode_t) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { return }
        turnOffCopyOnWrite(descriptor)
        close(descriptor)
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

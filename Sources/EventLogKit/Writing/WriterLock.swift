import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The exclusive lock a writing ``EventLog`` holds on `writer.lock`, so that only one writer,
/// in any process, assigns sequence numbers. `flock` locks belong to one open file, so a second
/// writer in the same process is refused too. The lock ends with the process, even on SIGKILL.
final class WriterLock: Sendable {
    private let descriptor: Mutex<Int32?>

    /// Locks the `writer.lock` of `directory`. `betweenOpenAndLock` runs in that window on each try, for the tests of
    /// what another process may do there.
    init(directory: String, betweenOpenAndLock: () -> Void = {}) throws(EventLogError) {
        let path = directory + "/" + LogLayout.writerLockFile
        var fd: Int32 = -1
        // The file locked must still be the one at the path: a lock on a file removed meanwhile (by a first open that
        // failed beside this one, `LogStorage.removeUnbegun`, or `demo --force` replacing the log) would let the next
        // writer lock a new file beside this one. Such a lock is let go of and taken again.
        while fd < 0 {
            fd = try Self.lock(path, in: directory, betweenOpenAndLock: betweenOpenAndLock)
            var locked = stat(), named = stat()
            if fstat(fd, &locked) != 0 || lstat(path, &named) != 0 || locked.st_dev != named.st_dev || locked.st_ino != named.st_ino {
                close(fd)
                fd = -1
            }
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, pid, pid.count, 0)
        descriptor = Mutex(fd)
    }

    /// Opens `path`, the `writer.lock` of `directory`, making it if need be, and locks it; refused when another writer
    /// holds it, naming the process.
    private static func lock(_ path: String, in directory: String, betweenOpenAndLock: () -> Void) throws(EventLogError) -> Int32 {
        // Never through a link (LogStorage refuses one before; this closes the window after its check).
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            switch errno {
            case EROFS: throw .readOnlyFileSystem(path: directory)
            case EACCES, EPERM:
                throw .permissionDenied(path: directory, reason: "its \(LogLayout.writerLockFile), which a writer needs, cannot be written")
            case ENOENT:
                throw .cannotCreate(path: directory, reason: "the directory was removed as this writer opened it (by another process's first open, which failed, or by a log replaced there); open it again")
            default: throw .notALog(path: directory, reason: "cannot create \(LogLayout.writerLockFile): \(String(cString: strerror(errno)))")
            }
        }
        betweenOpenAndLock()
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(fd, &buffer, buffer.count, 0)
            close(fd)
            let holder = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let detail = holder == String(getpid())
                ? "by another EventLog in this process" : "by process \(holder.isEmpty ? "unknown" : holder)"
            throw .alreadyOpen(path: directory, detail: detail)
        }
        return fd
    }

    /// Whether a writer holds the log in `directory` now (in any process, this one included). On Linux the kernel's
    /// table of locks says, so asking takes no lock: a writer starting at that moment would find a shared one and
    /// fail to open the log. Elsewhere a shared lock is tried and released at once; on another user's lock file,
    /// which this user may not open, a writer is assumed, the answer that reads nothing unsafely. `tryingTheLock`
    /// asks the lock itself on Linux too: the table, read in pieces while other locks come and go, can miss a line.
    /// Where a miss would be unsafe, `readings` asks the table that many times, a writer being absent only when every
    /// reading agrees (the kernel gives it about 4 KiB a `read`); a reading costs about 0.1 ms beside 100 locks.
    static func isHeld(directory: String, tryingTheLock: Bool = false, readings: Int = 1) -> Bool {
        let path = directory + "/" + LogLayout.writerLockFile
        if !tryingTheLock, let listed = isListedAsLocked(path) {
            return listed || (1..<max(1, readings)).contains { _ in isListedAsLocked(path) == true }
        }
        // Non-blocking: opening a pipe put there for reading would wait for a writer that never comes.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return errno == EACCES }
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(fd, LOCK_UN)
        return false
    }

    /// Whether `/proc/locks` lists an exclusive `flock` lock, a writer's, on the file at `path`; `nil` without that
    /// table, or without the file.
    static func isListedAsLocked(_ path: String) -> Bool? {
        var status = stat()
        guard stat(path, &status) == 0, let table = lockTable() else { return nil }
        // A line: `1: FLOCK  ADVISORY  WRITE 4242 fe:00:1234567 0 EOF`, the file as major:minor:inode in the kernel's
        // numbering of devices (glibc's `major` and `minor` of `st_dev`).
        let device = UInt64(status.st_dev)
        let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
        let minor = (device & 0xff) | ((device >> 12) & ~0xff)
        func hex(_ value: UInt64) -> String { let digits = String(value, radix: 16); return digits.count < 2 ? "0" + digits : digits }
        let file = "\(hex(major)):\(hex(minor)):\(status.st_ino)"
        return table.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 5 && fields[1] == "FLOCK" && fields[3] == "WRITE" && fields[5] == file
        }
    }

    /// The kernel's table of locks, `/proc/locks`, read to its end; `nil` where there is none. Not through Foundation's
    /// `String(contentsOfFile:)`, which reads a file the kernel reports as empty in one piece of 4 KiB: beside about 77
    /// other locks (a full test run, a busy server) a writer's line was past it, and a writer went unseen every time.
    static func lockTable() -> String? {
        let fd = open("/proc/locks", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var table: [UInt8] = []
        var piece = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = piece.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return String(decoding: table, as: UTF8.self) }
            table += piece[..<count]
        }
    }

    /// Releases the lock; releasing twice does nothing.
    func release() {
        descriptor.withLock { fd in
            guard let open = fd else { return }
            flock(open, LOCK_UN)
            close(open)
            fd = nil
        }
    }

    deinit {
        release()
    }
}

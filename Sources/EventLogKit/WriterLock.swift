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

    init(directory: String) throws(EventLogError) {
        let path = directory + "/" + LogLayout.writerLockFile
        // Never through a link (LogStorage refuses one before; this closes the window after its check).
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw .notALog(path: directory, reason: "cannot create \(LogLayout.writerLockFile): \(String(cString: strerror(errno)))")
        }
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
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, pid, pid.count, 0)
        descriptor = Mutex(fd)
    }

    /// Whether a writer holds the log in `directory` now (in any process, this one included).
    static func isHeld(directory: String) -> Bool {
        let path = directory + "/" + LogLayout.writerLockFile
        // Non-blocking: opening a pipe put there for reading would wait for a writer that never comes.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else {
            // Another user's lock file, which this user may not open: the kernel's table of locks still tells where
            // there is one (Linux); where there is none, a writer is assumed, the answer that reads nothing unsafely.
            return errno == EACCES ? isListedAsLocked(path) ?? true : false
        }
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(fd, LOCK_UN)
        return false
    }

    /// Whether `/proc/locks` lists a `flock` lock on the file at `path` (matched by inode alone: a lock on another
    /// device's file of the same number counts too, the safe side); `nil` without that table.
    private static func isListedAsLocked(_ path: String) -> Bool? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        guard let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return nil }
        let inode = String(status.st_ino)
        // A line: `1: FLOCK  ADVISORY  WRITE 4242 08:01:1234567 0 EOF`, the file as major:minor:inode.
        return table.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count > 5 && fields[1] == "FLOCK" && fields[5].split(separator: ":").last.map(String.init) == inode
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

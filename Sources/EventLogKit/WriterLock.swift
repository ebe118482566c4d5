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
        // Non-blocking: opening a pipe put there for reading would wait for a writer that never comes.
        let fd = open(directory + "/" + LogLayout.writerLockFile, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(fd, LOCK_UN)
        return false
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

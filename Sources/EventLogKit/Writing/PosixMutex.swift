#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex with condition variables that share it.
///
/// The writer thread and appending threads coordinate through it: appenders wait for room in the queue,
/// the writer waits for work, and flushing or synchronous appenders wait for commits.
final class PosixMutex: @unchecked Sendable {
    // The pthread objects live at stable heap addresses for the lock's lifetime, as pthreads require.
    let pointer: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        pointer = .allocate(capacity: 1)
        pthread_mutex_init(pointer, nil)
    }

    deinit {
        pthread_mutex_destroy(pointer)
        pointer.deallocate()
    }

    func lock() { pthread_mutex_lock(pointer) }
    func unlock() { pthread_mutex_unlock(pointer) }

    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

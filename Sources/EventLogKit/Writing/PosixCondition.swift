#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A condition variable used with one ``PosixMutex``; call its methods only while holding that mutex.
final class PosixCondition: @unchecked Sendable {
    // See PosixMutex: stable heap address; guarded by the mutex passed to `wait`.
    private let pointer: UnsafeMutablePointer<pthread_cond_t>

    init() {
        pointer = .allocate(capacity: 1)
        pthread_cond_init(pointer, nil)
    }

    deinit {
        pthread_cond_destroy(pointer)
        pointer.deallocate()
    }

    func wait(_ mutex: PosixMutex) { pthread_cond_wait(pointer, mutex.pointer) }

    /// Waits for a signal or about `duration` (measured on the wall clock, which may jump: callers check their
    /// condition and the time again). At most 2³² seconds are waited at once.
    func wait(_ mutex: PosixMutex, for duration: Duration) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let (seconds, attoseconds) = duration.components
        let nanosecond = Int(now.tv_nsec) + Int(attoseconds / 1_000_000_000)
        var deadline = now
        deadline.tv_sec += time_t(min(seconds, 1 << 32)) + time_t(nanosecond / 1_000_000_000)
        deadline.tv_nsec = nanosecond % 1_000_000_000
        pthread_cond_timedwait(pointer, mutex.pointer, &deadline)
    }

    func signal() { pthread_cond_signal(pointer) }
    func broadcast() { pthread_cond_broadcast(pointer) }
}

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
    func signal() { pthread_cond_signal(pointer) }
    func broadcast() { pthread_cond_broadcast(pointer) }
}

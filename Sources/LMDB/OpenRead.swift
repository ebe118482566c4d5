#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The read transactions running on this thread, innermost first, so that a read begun inside another's body runs
/// in it (``Environment/read(_:)``). Each is a frame on the stack of the read running it, linked through a
/// thread-specific pointer.
struct OpenRead {
    let environment: OpaquePointer
    let transaction: OpaquePointer
    let outer: UnsafeMutableRawPointer?

    /// The key of this thread's innermost frame.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key for LMDB's open reads")
        return key
    }()

    /// The read transaction running on this thread in `environment`, if any.
    static func transaction(in environment: OpaquePointer) -> OpaquePointer? {
        var frame = pthread_getspecific(key)
        while let current = frame?.assumingMemoryBound(to: OpenRead.self).pointee {
            if current.environment == environment { return current.transaction }
            frame = current.outer
        }
        return nil
    }

    /// Runs `body` with `transaction` noted as this thread's read in `environment`.
    static func running<R>(_ transaction: OpaquePointer, in environment: OpaquePointer, _ body: () throws -> R) rethrows -> R {
        var frame = OpenRead(environment: environment, transaction: transaction, outer: pthread_getspecific(key))
        return try withUnsafeMutablePointer(to: &frame) { pointer in
            pthread_setspecific(key, pointer)
            defer { pthread_setspecific(key, pointer.pointee.outer) }
            return try body()
        }
    }
}

import Foundation

/// Runs `body`, a long stretch of blocking work, on a thread of its own, and suspends until it is done. A test
/// that blocks for seconds on one of the cooperative pool's threads (two, on two cores) starves every other
/// test's tasks meanwhile; this keeps the pool free.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

import Foundation

/// Runs `body`, a long stretch of blocking work, on a thread of its own, and suspends until it is done. A test
/// that blocks for seconds on one of the cooperative pool's threads (two, on two cores) starves every other
/// test's tasks meanwhile; this keeps the pool free. Return what the test checks, and check it after: an
/// expectation inside `body` runs outside the test's task, so it cannot name its test.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}

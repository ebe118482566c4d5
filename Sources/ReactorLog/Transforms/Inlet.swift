import DequeModule
import Synchronization

/// The input of a timing operator: values dispatch hands it, read by the operator's task. Unlike an
/// `AsyncStream`, it knows when its reader has taken every value and waits for more, so a test can wait
/// for the operator to have seen what was sent (``Reactor/waitForTimingOperators()``).
@usableFromInline final class Inlet<Value: Sendable>: AsyncSequence, Sendable {
    private struct Books {
        var buffer = Deque<Value>()
        var reader: CheckedContinuation<Value?, Never>?
        var isFinished = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let books = Mutex(Books())

    /// Hands a value to the reader.
    @usableFromInline func yield(_ value: Value) {
        let reader = books.withLock { books -> CheckedContinuation<Value?, Never>? in
            guard !books.isFinished else { return nil }
            if let reader = books.reader {
                books.reader = nil
                return reader
            }
            books.buffer.append(value)
            return nil
        }
        reader?.resume(returning: value)
    }

    /// Ends the sequence: the reader gets what is buffered, then `nil`.
    func finish() {
        let (reader, waiters) = books.withLock { books in
            books.isFinished = true
            defer { (books.reader, books.idleWaiters) = (nil, []) }
            return (books.reader, books.idleWaiters)
        }
        reader?.resume(returning: nil)
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the reader waits for a value with none buffered, or the inlet is finished.
    func waitUntilTaken() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now = books.withLock { books in
                if books.isFinished || (books.reader != nil && books.buffer.isEmpty) { return true }
                books.idleWaiters.append(waiter)
                return false
            }
            if now { waiter.resume() }
        }
    }

    private func next() async -> Value? {
        await withCheckedContinuation { (reader: CheckedContinuation<Value?, Never>) in
            let (value, waiters, resumeNow) = books.withLock { books -> (Value?, [CheckedContinuation<Void, Never>], Bool) in
                if let value = books.buffer.popFirst() { return (value, [], true) }
                if books.isFinished { return (nil, [], true) }
                books.reader = reader
                defer { books.idleWaiters = [] }
                return (nil, books.idleWaiters, false)
            }
            for waiter in waiters { waiter.resume() }
            if resumeNow { reader.resume(returning: value) }
        }
    }

    /// Reads the inlet's values in order.
    @usableFromInline struct AsyncIterator: AsyncIteratorProtocol {
        let inlet: Inlet
        @usableFromInline mutating func next() async -> Value? { await inlet.next() }
    }

    @usableFromInline func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inlet: self) }
}

import Synchronization

/// The books of a reactor's running effect tasks: which to cancel on release, by id, or when an action
/// ends them (``Effect/take(until:)``). Holds no reference to the runtime.
final class EffectTasks<Action: Sendable>: Sendable {
    private struct Books {
        var nextToken: UInt64 = 0
        var cancels: [UInt64: @Sendable () -> Void] = [:]
        var byID: [AnyHashableSendable: Set<UInt64>] = [:]
        var until: [UInt64: @Sendable (Action) -> Bool] = [:]
        var idleWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var isClosed = false
    }

    private let books = Mutex(Books())

    /// Starts a tracked task running `body`; cancelled at once when the books are closed.
    @discardableResult
    func spawn(
        id: AnyHashableSendable? = nil, until: (@Sendable (Action) -> Bool)? = nil,
        _ body: @escaping @Sendable () async throws -> Void
    ) -> Task<Void, any Error> {
        books.withLock { books in
            let token = books.nextToken
            books.nextToken += 1
            // The task's `finish` takes this lock, so it cannot run before the task is entered below.
            let task = Task {
                defer { self.finish(token) }
                try await body()
            }
            if books.isClosed {
                task.cancel()
                return task
            }
            books.cancels[token] = { task.cancel() }
            if let id { books.byID[id, default: []].insert(token) }
            if let until { books.until[token] = until }
            return task
        }
    }

    private func finish(_ token: UInt64) {
        let waiters = books.withLock { books -> [CheckedContinuation<Void, Never>] in
            books.cancels[token] = nil
            books.until[token] = nil
            for id in books.byID.keys {
                books.byID[id]?.remove(token)
                if books.byID[id]?.isEmpty == true { books.byID[id] = nil }
            }
            guard books.cancels.isEmpty, !books.idleWaiters.isEmpty else { return [] }
            defer { books.idleWaiters.removeAll() }
            return Array(books.idleWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no task is running (at once if none is), or when the waiting task is cancelled.
    func waitUntilIdle() async {
        let token = books.withLock { books in
            defer { books.nextToken += 1 }
            return books.nextToken
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let resumeNow = books.withLock { books in
                    if books.cancels.isEmpty || Task.isCancelled { return true }
                    books.idleWaiters[token] = waiter
                    return false
                }
                if resumeNow { waiter.resume() }
            }
        } onCancel: {
            let waiter = books.withLock { $0.idleWaiters.removeValue(forKey: token) }
            waiter?.resume()
        }
    }

    /// Cancels the tasks started with `id`.
    func cancel(id: AnyHashableSendable) {
        let cancels = books.withLock { books in
            (books.byID.removeValue(forKey: id) ?? []).compactMap { books.cancels[$0] }
        }
        for cancel in cancels { cancel() }
    }

    /// Cancels the tasks whose `until` predicate `action` satisfies.
    func cancel(takenUntil action: Action) {
        let cancels = books.withLock { books -> [@Sendable () -> Void] in
            guard !books.until.isEmpty else { return [] }
            let matching = books.until.filter { $0.value(action) }.keys
            for token in matching { books.until[token] = nil }
            return matching.compactMap { books.cancels[$0] }
        }
        for cancel in cancels { cancel() }
    }

    /// How many tasks are running.
    var count: Int { books.withLock { $0.cancels.count } }

    /// Cancels every task, and every task started from now on.
    func close() {
        let cancels = books.withLock { books in
            books.isClosed = true
            return Array(books.cancels.values)
        }
        for cancel in cancels { cancel() }
    }

    /// Waits for a child effect. A cancelled child counts as finished (like RxSwift's `takeUntil`
    /// completing); when the waiting task itself is cancelled, the child is cancelled and waiting stops.
    static func wait(for child: Task<Void, any Error>) async throws {
        try await withTaskCancellationHandler {
            do {
                try await child.value
            } catch is CancellationError {
                // The child was cancelled by its id or by a later action: it is finished.
            }
        } onCancel: {
            child.cancel()
        }
        try Task.checkCancellation()
    }
}

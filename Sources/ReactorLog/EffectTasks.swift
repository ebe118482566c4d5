import Synchronization

/// The books of a reactor's running effect tasks: which to cancel on release, by id, or when an action
/// ends them (``Effect/take(until:)``). Holds no reference to the runtime.
final class EffectTasks<Action: Sendable>: Sendable {
    private struct Books {
        var nextToken: UInt64 = 0
        var cancels: [UInt64: @Sendable () -> Void] = [:]
        var byID: [AnyHashableSendable: Set<UInt64>] = [:]
        var until: [UInt64: @Sendable (Action) -> Bool] = [:]
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
        books.withLock { books in
            books.cancels[token] = nil
            books.until[token] = nil
            guard !books.byID.isEmpty else { return }
            for id in books.byID.keys {
                books.byID[id]?.remove(token)
                if books.byID[id]?.isEmpty == true { books.byID[id] = nil }
            }
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

    /// Whether any task is still running.
    var isEmpty: Bool { books.withLock { $0.cancels.isEmpty } }

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

import Synchronization

/// The books of a reactor's running effect tasks: which to cancel on release, by id, or when an action
/// ends them (``ReactorEffect/take(until:)``). Holds no reference to the runtime.
///
/// A task is booked in two steps: ``reserve(id:until:)`` while its effect starts inside dispatch, so that
/// cancellation by id or by a later action applies from that moment, and ``launch(_:_:)`` when it runs.
/// A reservation cancelled before its launch never runs.
@usableFromInline final class EffectTasks<Action: Sendable>: Sendable {
    /// A reserved task.
    @usableFromInline struct Ticket: Sendable {
        fileprivate let token: UInt64
    }

    private struct Entry {
        var cancel: (@Sendable () -> Void)?
        var isCancelled = false
    }

    private struct Books {
        var nextToken: UInt64 = 0
        var entries: [UInt64: Entry] = [:]
        var byID: [AnyHashableSendable: Set<UInt64>] = [:]
        var until: [UInt64: @Sendable (Action) -> Bool] = [:]
        var idleWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var isClosed = false

        mutating func makeToken() -> UInt64 {
            defer { nextToken += 1 }
            return nextToken
        }

        /// Marks `token` cancelled; returns the cancel of its running task, if it runs.
        mutating func cancel(_ token: UInt64) -> (@Sendable () -> Void)? {
            entries[token]?.isCancelled = true
            return entries[token]?.cancel
        }
    }

    private let books = Mutex(Books())
    /// How many `take(until:)` predicates are booked: dispatch skips the books when there are none.
    @usableFromInline let untilCount = Atomic<Int>(0)

    /// Books a task that is about to start, cancellable from now on.
    @usableFromInline func reserve(id: AnyHashableSendable? = nil, until: (@Sendable (Action) -> Bool)? = nil) -> Ticket {
        books.withLock { books in
            let token = books.makeToken()
            books.entries[token] = Entry(isCancelled: books.isClosed)
            if let id { books.byID[id, default: []].insert(token) }
            if let until {
                books.until[token] = until
                untilCount.store(books.until.count, ordering: .relaxed)
            }
            return Ticket(token: token)
        }
    }

    /// Runs a reserved task: synchronously on the calling thread until its first suspension, where the
    /// platform allows, so that what an effect does before its first `await` (sending a mutation,
    /// starting to sleep on a clock) has happened when this returns. A task cancelled before its launch
    /// does not run.
    @discardableResult
    func launch(_ ticket: Ticket, _ body: @escaping @Sendable () async throws -> Void) -> Task<Void, any Error> {
        let token = ticket.token
        let cancelledEarly = books.withLock { $0.entries[token]?.isCancelled ?? true }
        if cancelledEarly {
            finish(token)
            return Task { throw CancellationError() }
        }
        let operation: @Sendable () async throws -> Void = {
            defer { self.finish(token) }
            try await body()
        }
        let task: Task<Void, any Error>
        if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
            task = Task.immediate(operation: operation)
        } else {
            task = Task(operation: operation)
        }
        let cancelNow = books.withLock { books -> Bool in
            guard books.entries[token] != nil else { return false }
            books.entries[token]?.cancel = { task.cancel() }
            return books.entries[token]?.isCancelled ?? false
        }
        if cancelNow { task.cancel() }
        return task
    }

    /// Reserves and launches a task at once.
    @discardableResult
    func spawn(_ body: @escaping @Sendable () async throws -> Void) -> Task<Void, any Error> {
        launch(reserve(), body)
    }

    private func finish(_ token: UInt64) {
        let waiters = books.withLock { books -> [CheckedContinuation<Void, Never>] in
            guard books.entries.removeValue(forKey: token) != nil else { return [] }
            if books.until.removeValue(forKey: token) != nil { untilCount.store(books.until.count, ordering: .relaxed) }
            for id in books.byID.keys {
                books.byID[id]?.remove(token)
                if books.byID[id]?.isEmpty == true { books.byID[id] = nil }
            }
            guard books.entries.isEmpty, !books.idleWaiters.isEmpty else { return [] }
            defer { books.idleWaiters.removeAll() }
            return Array(books.idleWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no task is booked (at once if none is), or when the waiting task is cancelled.
    func waitUntilIdle() async {
        let token = books.withLock { $0.makeToken() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let resumeNow = books.withLock { books in
                    if books.entries.isEmpty || Task.isCancelled { return true }
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

    /// Cancels the tasks booked with `id`.
    func cancel(id: AnyHashableSendable) {
        let cancels = books.withLock { books in
            (books.byID.removeValue(forKey: id) ?? []).compactMap { books.cancel($0) }
        }
        for cancel in cancels { cancel() }
    }

    /// Cancels the tasks whose `until` predicate `action` satisfies.
    @usableFromInline func cancel(takenUntil action: Action) {
        let cancels = books.withLock { books -> [@Sendable () -> Void] in
            guard !books.until.isEmpty else { return [] }
            let matching = books.until.filter { $0.value(action) }.keys
            for token in matching { books.until[token] = nil }
            untilCount.store(books.until.count, ordering: .relaxed)
            return matching.compactMap { books.cancel($0) }
        }
        for cancel in cancels { cancel() }
    }

    /// How many tasks are booked and not finished.
    var count: Int { books.withLock { $0.entries.count } }

    /// Cancels every task, and every task booked from now on.
    func close() {
        let cancels = books.withLock { books in
            books.isClosed = true
            return Array(books.entries.keys).compactMap { books.cancel($0) }
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

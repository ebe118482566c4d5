import EventLogKit
import Synchronization

/// The machinery behind a ``Reactor``: its state, observers, running effects, stub and log binding.
///
/// Declare one per reactor, `let runtime = ReactorRuntime<MyReactor>()`, and use the reactor's own API
/// (`send`, `currentState`, `observe`); the runtime starts on first use, exactly once, even when many
/// threads use the reactor at once.
///
/// **Dispatch.** One action or mutation is handled at a time: `transform`, `mutate`, `reduce`, then the
/// state is published and every callback observer is called, synchronously, on the thread that handles
/// it. Another thread sending meanwhile waits its turn. The thread already handling one (from `reduce`,
/// `mutate` or an observer) queues what it sends, and it is handled right after.
public final class ReactorRuntime<R: Reactor>: Sendable {
    /// Serializes dispatch. The thread inside it is `dispatchOwner`; only that thread drains `pending`.
    private let dispatchLock = Mutex(())
    private let dispatchOwner = Atomic<UInt>(0)
    private let pending = Mutex<[Work]>([])
    private let startLock = Mutex(false)
    private let isStarted = Atomic<Bool>(false)
    let core = Mutex(Core())

    /// Work for the dispatcher.
    enum Work: Sendable {
        case action(R.Action)
        case mutation(R.Mutation, cause: UInt64?)
        case mergedState(R.State)
        case effectError(type: String, message: String, cause: UInt64?)
        case observe(id: UInt64, notify: @Sendable (R.State) -> Void)
        case stubState(R.State)
    }

    struct Pipelines: Sendable {
        let actions: Pipeline<R.Action>
        let mutations: Pipeline<R.Mutation>
        let states: Pipeline<R.State>
    }

    /// Everything mutable but the dispatch queue. Never held while user code runs.
    struct Core: @unchecked Sendable {
        // Unchecked because of the weak reference, which is only read and written under the mutex.
        weak var reactor: R?
        var pipelines: Pipelines?
        var reduced: R.State?
        var current: R.State?
        var resumedState: R.State?
        var observers: [(id: UInt64, notify: @Sendable (R.State) -> Void)] = []
        var nextID: UInt64 = 1
        var tasks: [UInt64: @Sendable () -> Void] = [:]
        var cancellable: [AnyHashableSendable: Set<UInt64>] = [:]
        var untilPredicates: [UInt64: @Sendable (Any) -> Bool] = [:]
        var stubEnabled = false
        var stubActions: [R.Action] = []
        var persistence: Persistence<R>?
        var persistenceFailure: EventLogError?

        mutating func makeID() -> UInt64 {
            defer { nextID += 1 }
            return nextID
        }
    }

    /// An idle runtime; it starts on the reactor's first use.
    public init() {}

    deinit {
        let (cancels, persistence, state) = core.withLock { core in
            (Array(core.tasks.values), core.persistence, core.reduced)
        }
        for cancel in cancels { cancel() }
        if let persistence, let state { persistence.close(state) }
    }

    // MARK: Starting

    var hasStarted: Bool { isStarted.load(ordering: .acquiring) }

    /// Builds the pipelines (calling each `transform` hook once) and publishes the initial state, once.
    func start(_ reactor: R) {
        if hasStarted { return }
        startLock.withLock { started in
            guard !started else { return }
            let pipelines = Pipelines(
                actions: reactor.transform(action: Pipeline()),
                mutations: reactor.transform(mutation: Pipeline()),
                states: reactor.transform(state: Pipeline()))
            let initial = core.withLock { $0.resumedState } ?? reactor.initialState
            let published = pipelines.states.apply(initial) ?? initial
            core.withLock { core in
                core.reactor = reactor
                core.pipelines = pipelines
                core.reduced = initial
                core.current = published
            }
            started = true
            isStarted.store(true, ordering: .releasing)
            startSources(pipelines)
        }
    }

    private func startSources(_ pipelines: Pipelines) {
        let context = EffectContext(runtime: self, cause: nil)
        for source in pipelines.actions.sources {
            spawn { try await source { context.runtime?.receive(.action($0)) } }
        }
        for source in pipelines.mutations.sources {
            spawn { try await source { context.runtime?.receive(.mutation($0, cause: nil)) } }
        }
        for source in pipelines.states.sources {
            spawn { try await source { context.runtime?.receive(.mergedState($0)) } }
        }
    }

    // MARK: Dispatch

    func currentState(of reactor: R) -> R.State {
        start(reactor)
        return core.withLock { $0.current } ?? reactor.initialState
    }

    func send(_ action: R.Action, to reactor: R) {
        start(reactor)
        dispatch(.action(action), reactor: reactor)
    }

    /// Work arriving from effects and merged sources, handled while the reactor is alive.
    func receive(_ work: Work) {
        guard let reactor = core.withLock({ $0.reactor }) else { return }
        dispatch(work, reactor: reactor)
    }

    func dispatch(_ work: Work, reactor: R) {
        let me = ThreadID.current
        if dispatchOwner.load(ordering: .acquiring) == me {
            pending.withLock { $0.append(work) }
            return
        }
        dispatchLock.withLock { _ in
            dispatchOwner.store(me, ordering: .releasing)
            defer { dispatchOwner.store(0, ordering: .releasing) }
            perform(work, reactor: reactor)
            while let next = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                perform(next, reactor: reactor)
            }
        }
    }

    private func perform(_ work: Work, reactor: R) {
        switch work {
        case .action(let action):
            process(action, reactor: reactor)
        case .mutation(let mutation, let cause):
            apply(mutation, cause: cause, reactor: reactor)
        case .mergedState(let state):
            publish(state)
        case .effectError(let type, let message, let cause):
            if let persistence = core.withLock({ $0.persistence }) {
                logged { () throws(EventLogError) in try persistence.logError(type, message, cause) }
            }
        case .observe(let id, let notify):
            let state = core.withLock { core -> R.State? in
                core.observers.append((id, notify))
                return core.current
            }
            if let state { notify(state) }
        case .stubState(let state):
            publish(state)
        }
    }

    private func process(_ action: R.Action, reactor: R) {
        let (stubbed, pipelines, persistence) = core.withLock { core in
            if core.stubEnabled { core.stubActions.append(action) }
            return (core.stubEnabled, core.pipelines, core.persistence)
        }
        guard !stubbed, let pipelines, let transformed = pipelines.actions.apply(action) else { return }
        let cause = persistence.flatMap { persistence in
            logged { () throws(EventLogError) in try persistence.logAction(transformed) }
        }
        cancelEffects(takenUntil: transformed)
        let effect = reactor.mutate(action: transformed)
        if let rest = runNow(effect.operation, cause: cause, reactor: reactor) {
            let context = EffectContext(runtime: self, cause: cause)
            spawn {
                do {
                    try await rest()
                } catch is CancellationError {
                    // Cancelled: the reactor was released or the effect was cancelled.
                } catch {
                    context.runtime?.receive(.effectError(type: "\(type(of: error))", message: "\(error)", cause: cause))
                }
            }
        }
    }

    /// Reduces one mutation: transform, log (write-ahead), reduce, snapshot when due, publish.
    func apply(_ mutation: R.Mutation, cause: UInt64?, reactor: R) {
        let (pipelines, persistence, reduced) = core.withLock { ($0.pipelines, $0.persistence, $0.reduced) }
        guard let pipelines, let state = reduced, let transformed = pipelines.mutations.apply(mutation) else { return }
        let sequence = persistence.flatMap { persistence in
            logged { () throws(EventLogError) in try persistence.logMutation(transformed, cause) }
        }
        let next = reactor.reduce(state: state, mutation: transformed)
        core.withLock { $0.reduced = next }
        if let persistence, let sequence {
            logged { () throws(EventLogError) in try persistence.snapshotIfDue(next, sequence) }
        }
        if let published = pipelines.states.apply(next) { publish(published) }
    }

    private func publish(_ state: R.State) {
        let observers = core.withLock { core in
            core.current = state
            return core.observers
        }
        for observer in observers { observer.notify(state) }
    }

    // MARK: Observing

    /// Registers `notify`; it first receives the latest state, then every later one.
    func observe(_ reactor: R, _ notify: @escaping @Sendable (R.State) -> Void) -> Observation {
        start(reactor)
        let id = core.withLock { $0.makeID() }
        dispatch(.observe(id: id, notify: notify), reactor: reactor)
        return Observation { [weak self] in
            self?.core.withLock { $0.observers.removeAll { $0.id == id } }
        }
    }

    // MARK: Effects

    /// Starts a tracked task; it is cancelled when the runtime goes away, and with its id or predicate.
    @discardableResult
    func spawn(
        id: AnyHashableSendable? = nil, until: (@Sendable (Any) -> Bool)? = nil,
        _ body: @escaping @Sendable () async throws -> Void
    ) -> Task<Void, any Error> {
        core.withLock { core in
            let token = core.makeID()
            let task = Task { [weak self] in
                defer { self?.finish(token) }
                try await body()
            }
            core.tasks[token] = { task.cancel() }
            if let id { core.cancellable[id, default: []].insert(token) }
            if let until { core.untilPredicates[token] = until }
            return task
        }
    }

    private func finish(_ token: UInt64) {
        core.withLock { core in
            core.tasks[token] = nil
            core.untilPredicates[token] = nil
            for id in core.cancellable.keys {
                core.cancellable[id]?.remove(token)
                if core.cancellable[id]?.isEmpty == true { core.cancellable[id] = nil }
            }
        }
    }

    func cancelEffects(id: AnyHashableSendable) {
        let cancels = core.withLock { core in
            (core.cancellable.removeValue(forKey: id) ?? []).compactMap { core.tasks[$0] }
        }
        for cancel in cancels { cancel() }
    }

    private func cancelEffects(takenUntil action: R.Action) {
        let cancels = core.withLock { core -> [@Sendable () -> Void] in
            guard !core.untilPredicates.isEmpty else { return [] }
            let matching = core.untilPredicates.filter { $0.value(action) }.keys
            for token in matching { core.untilPredicates[token] = nil }
            return matching.compactMap { core.tasks[$0] }
        }
        for cancel in cancels { cancel() }
    }

    /// Runs the synchronous beginning of an effect now, inside dispatch; returns the asynchronous rest.
    private func runNow(_ operation: Effect<R.Mutation>.Operation, cause: UInt64?, reactor: R) -> (@Sendable () async throws -> Void)? {
        let context = EffectContext(runtime: self, cause: cause)
        switch operation {
        case .mutations(let mutations):
            for mutation in mutations { apply(mutation, cause: cause, reactor: reactor) }
            return nil
        case .run(let work):
            let send = context.send
            return { try await work(send) }
        case .concat(let effects):
            for (index, effect) in effects.enumerated() {
                if let rest = runNow(effect.operation, cause: cause, reactor: reactor) {
                    let remaining = effects[(index + 1)...].map(\.operation)
                    return {
                        try await rest()
                        for operation in remaining { try await context.run(operation) }
                    }
                }
            }
            return nil
        case .merge(let effects):
            let rests = effects.compactMap { runNow($0.operation, cause: cause, reactor: reactor) }
            guard !rests.isEmpty else { return nil }
            return {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for rest in rests { group.addTask { try await rest() } }
                    try await group.waitForAll()
                }
            }
        case .cancellable(let id, let cancelInFlight, let effect):
            if cancelInFlight { cancelEffects(id: id) }
            guard let rest = runNow(effect.operation, cause: cause, reactor: reactor) else { return nil }
            let child = spawn(id: id) { try await rest() }
            return { try await EffectContext<R>.wait(for: child) }
        case .cancel(let id):
            cancelEffects(id: id)
            return nil
        case .takeUntil(let isLast, let effect):
            guard let rest = runNow(effect.operation, cause: cause, reactor: reactor) else { return nil }
            let child = spawn(until: isLast) { try await rest() }
            return { try await EffectContext<R>.wait(for: child) }
        }
    }
}

import DequeModule
import Synchronization

/// The machinery behind a ``Reactor``: its state, observers, running effects, stub and recorder.
///
/// Declare one per reactor, `let runtime = Runtime()`, and use the reactor's own API (`send`,
/// `currentState`, `observe`); the runtime starts on first use, exactly once.
///
/// **Dispatch.** Work (actions, mutations from effects, observers joining) goes through one queue, in one
/// total order. Whoever finds the reactor idle, within its ``ReactorScheduler``, becomes the dispatcher and
/// handles work until the queue is empty: `transform`, `mutate`, `reduce`, the recorder, `currentState`,
/// then every observer, synchronously. Anyone else only appends to the queue and returns. The queue's lock
/// is held for an append or a removal, never while user code runs, so no thread waits for another
/// thread's work, and work sent from inside dispatch (reentrancy) runs right after the current one.
public final class ReactorRuntime<Action: Sendable, Mutation: Sendable, State: Sendable>: Sendable {
    @usableFromInline typealias Effect = ReactorEffect<Action, Mutation>
    @usableFromInline typealias Recorder = any ReactorRecorder<Action, Mutation, State>

    /// Work for the dispatcher.
    @usableFromInline enum Work: Sendable {
        /// An action, entering `transform(action:)` at `stage` (past 0 when a timing operator let it through), with
        /// the call site of the `send` that sent it, if any.
        case action(Action, stage: Int = 0, site: CallSite? = nil)
        case mutation(Mutation, cause: UInt64?, stage: Int = 0)
        /// A state from `transform(state:)`'s timing operator, going on at `stage`; a merged or stubbed
        /// state (no stage) is published as it is.
        case state(State, stage: Int? = nil)
        case effectError(any Error, cause: UInt64?)
        case observe(Observer)
        /// A look at the state `reduce` last produced, between two pieces of work (``withReducedState(_:)``).
        case reducedState(@Sendable (State) -> Void)
    }

    /// A state observer; `finish` is called when the reactor is released.
    @usableFromInline struct Observer: Sendable {
        @usableFromInline let id: UInt64
        @usableFromInline let notify: @Sendable (State) -> Void
        @usableFromInline let finish: (@Sendable () -> Void)?

        init(id: UInt64, notify: @escaping @Sendable (State) -> Void, finish: (@Sendable () -> Void)?) {
            (self.id, self.notify, self.finish) = (id, notify, finish)
        }
    }

    /// What is shared between threads, under one lock that is never held while user code runs.
    @usableFromInline struct Shared: Sendable {
        @usableFromInline var queue = Deque<Work>()
        @usableFromInline var isDispatching = false
        @usableFromInline var isHopScheduled = false
        @usableFromInline var current: State?
        @usableFromInline var observers: [Observer] = []
        @usableFromInline var nextObserverID: UInt64 = 1
        @usableFromInline var isStubEnabled = false
        @usableFromInline var stubActions: [Action] = []
        @usableFromInline var stubState: State?
        @usableFromInline var recorder: Recorder?
        @usableFromInline var resumedState: State?

        init() {}

        /// What views see: the stub's state while the stub is on (the raw initial state until one is set),
        /// otherwise the latest published state.
        @inlinable func visibleState(initial: State) -> State {
            isStubEnabled ? stubState ?? initial : current ?? initial
        }
    }

    @usableFromInline let shared = Mutex(Shared())
    private let startLock = Mutex<Engine?>(nil)
    @usableFromInline let isStarted = Atomic<Bool>(false)
    /// Mirrors `Shared.isStubEnabled`, so that dispatch takes no lock for it while the stub is off.
    @usableFromInline let isStubEnabled = Atomic<Bool>(false)
    /// Written once, under `startLock`, before `isStarted` is set with release ordering; so reads after an acquiring
    /// load of `isStarted` need no exclusivity check.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var startedEngine: Engine?
    /// The effects' tasks.
    @usableFromInline let tasks = EffectTasks<Action>()
    /// The long-lived tasks that feed the pipelines: merged sources, timing operators, action sources.
    let feeds = EffectTasks<Action>()

    /// An idle runtime; it starts on the reactor's first use.
    public init() {}

    deinit {
        tasks.close()
        feeds.close()
        let observers = shared.withLock { $0.observers }
        if let engine = startedEngine { engine.recorder?.close(finalState: engine.reduced) }
        for observer in observers { observer.finish?() }
    }

    // MARK: Starting

    /// Whether the reactor has started (it starts on its first `send`, `currentState` or `observe`).
    public var hasStarted: Bool { isStarted.load(ordering: .acquiring) }

    /// The started engine: builds the pipelines (calling each `transform` hook once) and publishes the
    /// initial state, once, even under concurrent first access.
    @discardableResult
    @inlinable func start<R: Reactor>(_ reactor: R) -> Engine
    where R.Action == Action, R.Mutation == Mutation, R.State == State {
        if isStarted.load(ordering: .acquiring), let engine = startedEngine { return engine }
        return startOnce(reactor)
    }

    /// ``start(_:)`` the first time.
    @usableFromInline func startOnce<R: Reactor>(_ reactor: R) -> Engine
    where R.Action == Action, R.Mutation == Mutation, R.State == State {
        var startedHere = false
        let engine = startLock.withLock { started in
            if let started { return started }
            let (recorder, resumed) = shared.withLock { ($0.recorder, $0.resumedState) }
            let engine = Engine(reactor: reactor, recorder: recorder, resumedState: resumed)
            shared.withLock { $0.current = engine.startState }
            startedEngine = engine
            started = engine
            isStarted.store(true, ordering: .releasing)
            startedHere = true
            return engine
        }
        // Outside the lock: a source may run user code right away.
        if startedHere { startSources(engine) }
        return engine
    }

    /// Starts the pipelines' merged sources and timing operators, in tasks the reactor owns.
    private func startSources(_ engine: Engine) {
        let receive: @Sendable (Work) -> Void = { [weak self] in self?.receive($0) }
        for source in engine.actions.sources {
            feeds.spawn { try await source { receive(.action($0)) } }
        }
        for source in engine.mutations.sources {
            feeds.spawn { try await source { receive(.mutation($0, cause: nil)) } }
        }
        for source in engine.states.sources {
            feeds.spawn { try await source { receive(.state($0)) } }
        }
        for timing in engine.actions.timings {
            feeds.spawn { await timing.run(timing.values) { receive(.action($0, stage: timing.resumeAt)) } }
        }
        for timing in engine.mutations.timings {
            feeds.spawn { await timing.run(timing.values) { receive(.mutation($0, cause: nil, stage: timing.resumeAt)) } }
        }
        for timing in engine.states.timings {
            feeds.spawn { await timing.run(timing.values) { receive(.state($0, stage: timing.resumeAt)) } }
        }
    }

    // MARK: Dispatch

    @inlinable func currentState<R: Reactor>(of reactor: R) -> State
    where R.Action == Action, R.Mutation == Mutation, R.State == State {
        let engine = start(reactor)
        return shared.withLock { $0.visibleState(initial: engine.initialState) }
    }

    @inlinable func send<R: Reactor>(_ action: Action, to reactor: R, from isolation: (any Actor)?, site: CallSite?)
    where R.Action == Action, R.Mutation == Mutation, R.State == State {
        let engine = start(reactor)
        // The common case, an idle reactor in its scheduler's isolation: handle the action at once, without
        // wrapping it as queued work.
        if engine.scheduler.admits(isolation), beginDispatch() {
            engine.recorder?.willDispatch()
            process(action, from: 0, site: site, engine)
            drain(engine, first: nil)
        } else {
            dispatch(.action(action, site: site), engine: engine, from: isolation)
        }
    }

    /// Becomes the dispatcher when nobody is: sets `isDispatching` and returns `true`, or returns `false`.
    @inlinable func beginDispatch() -> Bool {
        shared.withLock { shared in
            guard !shared.isDispatching else { return false }
            shared.isDispatching = true
            return true
        }
    }

    /// The engine, once started.
    var startedEngineIfAny: Engine? {
        isStarted.load(ordering: .acquiring) ? startedEngine : nil
    }

    /// Work arriving from effects and merged sources, once started.
    @inlinable func receive(_ work: Work) {
        guard isStarted.load(ordering: .acquiring), let engine = startedEngine else { return }
        dispatch(work, engine: engine, from: nil)
    }

    /// Handles `work` now when the reactor is idle and `isolation` is the scheduler's; queues it otherwise.
    @inlinable func dispatch(_ work: Work, engine: Engine, from isolation: (any Actor)?) {
        var hop = false
        let handleNow = shared.withLock { shared in
            if !shared.isDispatching && engine.scheduler.admits(isolation) {
                shared.isDispatching = true
                return true
            }
            shared.queue.append(work)
            if !shared.isDispatching && !shared.isHopScheduled {
                shared.isHopScheduled = true
                hop = true
            }
            return false
        }
        if handleNow {
            drain(engine, first: work)
        } else if hop, let actor = engine.scheduler.actor {
            Task { [weak self] in await self?.hop(to: actor, engine: engine) }
        }
    }

    /// Dispatches the queued work inside the scheduler's actor.
    @usableFromInline func hop(to actor: isolated any Actor, engine: Engine) {
        let handle = shared.withLock { shared in
            shared.isHopScheduled = false
            guard !shared.isDispatching, !shared.queue.isEmpty else { return false }
            shared.isDispatching = true
            return true
        }
        if handle { drain(engine, first: nil) }
    }

    /// Handles `first`, then the queue until it is empty; the caller holds `isDispatching`. Then launches
    /// the effects this drain started, after letting go of dispatch, so that what an effect sends before
    /// its first `await` is dispatched at once.
    @inlinable func drain(_ engine: Engine, first: Work?) {
        var next = first
        while true {
            if let work = next.take() { perform(work, engine) }
            let launches = engine.launches.isEmpty ? [] : engine.takeLaunches()
            next = shared.withLock { shared in
                if let work = shared.queue.popFirst() { return work }
                shared.isDispatching = false
                return nil
            }
            guard next == nil else {
                engine.launches = launches + engine.launches
                continue
            }
            for launch in launches { self.launch(launch.ticket, launch.rest, cause: launch.cause) }
            return
        }
    }

    @usableFromInline func launch(_ ticket: EffectTasks<Action>.Ticket, _ rest: @escaping EffectRemainder, cause: UInt64?) {
        tasks.launch(ticket) { [weak self] in
            do {
                try await rest()
            } catch is CancellationError {
                // Cancelled: the reactor was released or the effect was cancelled.
            } catch {
                self?.receive(.effectError(error, cause: cause))
            }
        }
    }

    @inlinable func perform(_ work: Work, _ engine: Engine) {
        engine.recorder?.willDispatch()
        switch work {
        case .action(let action, let stage, let site):
            // An action a timing operator lets through carries the site of the last action that went into it.
            process(action, from: stage, site: site ?? engine.timedActionSites[stage], engine)
        case .mutation(let mutation, let cause, let stage):
            apply(mutation, cause: cause, from: stage, engine)
        case .state(let state, nil):
            publish(state)
        case .state(let state, let stage?):
            if let published = engine.states.apply(state, from: stage) { publish(published) }
        case .effectError(let error, let cause):
            engine.recorder?.recordEffectError(error, cause: cause)
        case .observe(let observer):
            let state = shared.withLock { shared in
                shared.observers.append(observer)
                return shared.visibleState(initial: engine.initialState)
            }
            observer.notify(state)
        case .reducedState(let body):
            body(engine.reduced)
        }
    }

    @inlinable func process(_ action: Action, from stage: Int, site: CallSite?, _ engine: Engine) {
        if stage == 0 && isStubEnabled.load(ordering: .acquiring) {
            let stubbed = shared.withLock { shared in
                if shared.isStubEnabled { shared.stubActions.append(action) }
                return shared.isStubEnabled
            }
            if stubbed { return }
        }
        if engine.actions.isEmpty { return handle(action, site: site, engine) }
        var takenAt: Int?
        guard let transformed = engine.actions.apply(action, from: stage, takenAt: &takenAt) else {
            if let takenAt, let site { engine.timedActionSites[takenAt + 1] = site }
            return
        }
        handle(transformed, site: site, engine)
    }

    /// Records an action that came out of `transform(action:)`, runs `mutate` and the effect's synchronous part.
    @inlinable func handle(_ transformed: Action, site: CallSite?, _ engine: Engine) {
        let cause = engine.recorder?.recordAction(transformed, sentFrom: site)
        if tasks.untilCount.load(ordering: .relaxed) > 0 { tasks.cancel(takenUntil: transformed) }
        // Released (an effect outlived it): nothing more to do.
        guard let reactor = engine.reactor else { return }
        let effect = reactor.mutate(action: transformed)
        switch effect.body {
        case .none:
            break
        case .one(let mutation):
            guard engine.mutations.isEmpty else { return apply(mutation, cause: cause, engine) }
            reduceRecorded(mutation, sequence: engine.recorder?.recordMutation(mutation, cause: cause), engine, reactor)
        case .many(let mutations):
            guard engine.mutations.isEmpty else {
                for mutation in mutations { apply(mutation, cause: cause, engine) }
                return
            }
            if mutations.count > 1, let recorder = engine.recorder {
                // Recorded in one hand-off before the first is reduced (write-ahead), in the order reduced.
                let first = recorder.recordMutations(mutations, cause: cause)
                for index in mutations.indices {
                    reduceRecorded(mutations[index], sequence: first.map { $0 + UInt64(index) }, engine, reactor)
                }
            } else {
                for mutation in mutations {
                    reduceRecorded(mutation, sequence: engine.recorder?.recordMutation(mutation, cause: cause), engine, reactor)
                }
            }
        case .program:
            let driver = EffectDriver<Action, Mutation>(
                emitNow: { [weak self] in self?.apply($0, cause: cause, engine) },
                emitLater: { [weak self] in self?.receive(.mutation($0, cause: cause)) },
                isSynchronous: true, tasks: tasks)
            guard let rest = effect.start(driver) else { return }
            engine.launches.append((tasks.reserve(), rest, cause))
        }
    }

    /// Reduces one mutation: transform, record (write-ahead), reduce, publish.
    @inlinable func apply(_ mutation: Mutation, cause: UInt64?, from stage: Int = 0, _ engine: Engine) {
        if engine.mutations.isEmpty {
            reduce(mutation, cause: cause, engine)
        } else if let transformed = engine.mutations.apply(mutation, from: stage) {
            reduce(transformed, cause: cause, engine)
        }
    }

    /// Records a mutation that came out of `transform(mutation:)` (write-ahead), reduces it, and publishes the
    /// state that comes out of `transform(state:)`.
    @inlinable func reduce(_ transformed: Mutation, cause: UInt64?, _ engine: Engine) {
        reduceRecorded(transformed, sequence: engine.recorder?.recordMutation(transformed, cause: cause), engine)
    }

    /// Reduces a mutation recorded as `sequence` and publishes the state.
    @inlinable func reduceRecorded(_ transformed: Mutation, sequence: UInt64?, _ engine: Engine) {
        // Released (an effect outlived it): nothing more to do.
        guard let reactor = engine.reactor else { return }
        reduceRecorded(transformed, sequence: sequence, engine, reactor)
    }

    /// ``reduceRecorded(_:sequence:_:)`` with the engine's reactor, which the caller holds already: loading the weak
    /// reference takes the reactor's side table, and so does every retain and release of it, which the mutations of
    /// an action's effect need not pay again.
    @inlinable func reduceRecorded(
        _ transformed: Mutation, sequence: UInt64?, _ engine: Engine, _ reactor: any Reactor<Action, Mutation, State>
    ) {
        let next = reactor.reduce(state: engine.reduced, mutation: transformed)
        engine.reduced = next
        if let sequence { engine.recorder?.recordState(next, after: sequence) }
        if engine.states.isEmpty {
            publish(next)
        } else if let published = engine.states.apply(next) {
            publish(published)
        }
    }

    @inlinable func publish(_ state: State) {
        let observers = shared.withLock { shared in
            shared.current = state
            return shared.observers
        }
        for observer in observers { observer.notify(state) }
    }

    // MARK: Observing

    /// Registers `notify`; it first receives the latest state, then every later one; `finish` is called
    /// when the reactor is released.
    func observe<R: Reactor>(
        _ reactor: R, _ notify: @escaping @Sendable (State) -> Void, finish: (@Sendable () -> Void)? = nil
    ) -> Observation where R.Action == Action, R.Mutation == Mutation, R.State == State {
        let engine = start(reactor)
        let id = shared.withLock { shared in
            defer { shared.nextObserverID += 1 }
            return shared.nextObserverID
        }
        dispatch(.observe(Observer(id: id, notify: notify, finish: finish)), engine: engine, from: nil)
        return Observation { [weak self] in
            self?.shared.withLock { $0.observers.removeAll { $0.id == id } }
        }
    }

    // MARK: Recording

    /// Records the reactor with `recorder`, starting from `resumedState` (the initial state when `nil`).
    /// Only before the reactor's first use.
    func install(_ recorder: Recorder, resumedState: State?) throws(ReactorError) {
        try startLock.withLock { (started) throws(ReactorError) in
            guard started == nil else { throw .alreadyStarted }
            shared.withLock { shared in
                shared.recorder = recorder
                shared.resumedState = resumedState
            }
        }
    }

    /// The recorder installed with ``install(_:resumedState:)``.
    var recorder: Recorder? { shared.withLock { $0.recorder } }

    /// Runs `body` with the state `reduce` last produced (before `transform(state:)`) when the reactor has started and
    /// no thread is dispatching, holding dispatch meanwhile: the state after every mutation recorded so far, and nothing
    /// is recorded until `body` returns. `nil` before the first use and during dispatch (never waits for it). Work sent
    /// meanwhile is dispatched as it would have been had the reactor been busy: here, when its scheduler lets any
    /// thread dispatch, or in the scheduler's actor. What closes a log runs it, to keep each recorded reactor's last
    /// state; `body` must not call back into the reactor.
    package func withReducedStateIfIdle<T>(_ body: (State) -> T) -> T? {
        guard let engine = startedEngineIfAny, beginDispatch() else { return nil }
        let result = body(engine.reduced)
        if engine.scheduler.admits(nil) {
            drain(engine, first: nil)
            return result
        }
        let hop = shared.withLock { shared in
            shared.isDispatching = false
            guard !shared.queue.isEmpty, !shared.isHopScheduled else { return false }
            shared.isHopScheduled = true
            return true
        }
        if hop, let actor = engine.scheduler.actor {
            Task { [weak self] in await self?.hop(to: actor, engine: engine) }
        }
        return result
    }

    /// Runs `body` with the state `reduce` last produced, like ``withReducedStateIfIdle(_:)``, at once when the reactor
    /// is idle; when a thread is dispatching (this one included), as work queued behind what was sent before it, which
    /// that dispatcher runs when it gets there: between two pieces of work, holding dispatch, never waited for. Does
    /// nothing before the first use. A log's checkpoint runs it, so that a busy reactor records its state once its
    /// dispatch gets that far instead of not at all; `body` must not call back into the reactor.
    package func withReducedState(_ body: @escaping @Sendable (State) -> Void) {
        guard let engine = startedEngineIfAny, withReducedStateIfIdle(body) == nil else { return }
        // Busy: queued, or run now by `dispatch` if the dispatcher let go since.
        dispatch(.reducedState(body), engine: engine, from: nil)
    }
}

import ReactorLog
import ReactorLogTesting
import TestSupport
import Testing

/// The ReactorKit behaviours the first runtime missed, and what migrating users stumbled on.
@Suite("ReactorKit parity", .timeLimit(.minutes(3)))
struct ReactorKitParityTests {
    /// Every action computes its mutation from `currentState` when its effect starts.
    final class DeferredCounter: Reactor {
        enum Action: Sendable { case increase, increaseTwice }
        enum Mutation: Sendable { case setValue(Int) }
        struct State: Sendable { var value = 0 }
        let initialState = State()
        let runtime = Runtime()
        let published = Recorder<Int>()
        func mutate(action: Action) -> Effect {
            let next: Effect = .deferred { [unowned self] in .just(.setValue(currentState.value + 1)) }
            switch action {
            case .increase: return next
            case .increaseTwice: return .concat(next, next)
            }
        }
        func reduce(state: State, mutation: Mutation) -> State {
            guard case let .setValue(value) = mutation else { return state }
            return State(value: value)
        }
    }

    @Test("deferred effects run synchronously inside send, in order, each seeing the state the previous left")
    func deferredSynchronousMutations() async {
        let reactor = DeferredCounter()
        let observation = reactor.observe { [published = reactor.published] in published.append($0.value) }
        reactor.send(.increase)
        #expect(reactor.currentState.value == 1)
        reactor.send(.increaseTwice)
        #expect(reactor.currentState.value == 3)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { for _ in 0..<250 { reactor.send(.increase) } } }
        }
        #expect(reactor.currentState.value == 1003)
        #expect(reactor.published.all == Array(0...1003))
        observation.cancel()
    }

    /// Loads with a loading flag, through a failing call.
    final class LoadingReactor: Reactor {
        struct Failure: Error {}
        enum Action: Sendable { case load, loadWithCleanup }
        enum Mutation: Sendable, Equatable { case setLoading(Bool) }
        struct State: Sendable { var isLoading = false }
        let initialState = State()
        let runtime = Runtime()
        func mutate(action: Action) -> Effect {
            let failing: Effect = .run { _ in throw Failure() }
            switch action {
            case .load:
                return .concat(.just(.setLoading(true)), failing, .just(.setLoading(false)))
            case .loadWithCleanup:
                return .concat(.just(.setLoading(true)), failing, .just(.setLoading(false)))
                    .catch { _ in .just(.setLoading(false)) }
            }
        }
        func reduce(state: State, mutation: Mutation) -> State {
            guard case let .setLoading(isLoading) = mutation else { return state }
            return State(isLoading: isLoading)
        }
    }

    @Test("an error inside concat ends the parts after it and is recorded; catch runs cleanup and is not an error")
    func errorInsideConcat() async throws {
        let reactor = LoadingReactor()
        let recorder = MemoryRecorder<LoadingReactor.Action, LoadingReactor.Mutation, LoadingReactor.State>()
        try reactor.record(with: recorder)
        reactor.send(.load)
        let recordedError = await recorder.entries(where: { entries in entries.contains { if case .effectError = $0 { true } else { false } } })
        #expect(recordedError)
        #expect(reactor.currentState.isLoading == true)

        reactor.send(.loadWithCleanup)
        #expect(await reactor.state { !$0.isLoading } != nil)
        let errors = recorder.entries.filter { if case .effectError = $0 { true } else { false } }
        #expect(errors.count == 1)
    }

    /// A state with a pulse, assigned through the pulse itself.
    struct PulseState: Sendable {
        @Pulse var message: String? = nil
    }

    @Test("every assignment to a pulse counts, through the property or through the pulse's value")
    func pulseValueAssignment() {
        var state = PulseState()
        state.message = "a"
        state.$message.value = "a"
        state.$message.value = "b"
        #expect(state.$message.valueUpdatedCount == 3)
        #expect(state.message == "b")
    }

    /// Its `transform(state:)` marks every state it passes.
    final class MarkedReactor: Reactor, IdentityHashable {
        enum Action: Sendable { case go }
        typealias Mutation = Action
        struct State: Sendable, Equatable { var marked = false }
        let initialState = State()
        let runtime = Runtime()
        func transform(state: Pipeline<State>) -> Pipeline<State> {
            state.map { _ in State(marked: true) }
        }
    }

    @Test("a stubbed reactor starts from its raw initial state, not through transform(state:)")
    func stubStartsRaw() {
        let stubbed = MarkedReactor()
        stubbed.isStubEnabled = true
        #expect(stubbed.currentState.marked == false)
        let live = MarkedReactor()
        #expect(live.currentState.marked == true)
    }

    @Test("IdentityEquatable and IdentityHashable compare and hash reactors by instance")
    func identity() {
        let first = MarkedReactor(), second = MarkedReactor()
        #expect(first == first)
        #expect(first != second)
        #expect(Set([first, second, first]).count == 2)
    }

    /// A view that binds only once it has loaded.
    final class ProfileViewController: DeferredBindingView {
        var lifetime = LifetimeBag()
        @Bound var reactor: MarkedReactor?
        var bound: [ObjectIdentifier] = []
        func viewDidLoad() { $reactor.viewDidLoad() }
        func bind(reactor: MarkedReactor) { bound.append(ObjectIdentifier(reactor)) }
    }

    @Test("a deferred-binding view binds only when loaded, only the latest reactor, once")
    func deferredViewBinding() {
        let view = ProfileViewController()
        let first = MarkedReactor(), second = MarkedReactor(), third = MarkedReactor()
        view.reactor = first
        view.reactor = second
        #expect(view.bound.isEmpty)
        view.viewDidLoad()
        #expect(view.bound == [ObjectIdentifier(second)])
        view.viewDidLoad()
        #expect(view.bound.count == 1)
        view.reactor = third
        #expect(view.bound == [ObjectIdentifier(second), ObjectIdentifier(third)])

        let unloaded = ProfileViewController()
        unloaded.reactor = first
        unloaded.reactor = nil
        unloaded.viewDidLoad()
        #expect(unloaded.bound.isEmpty)
    }

    /// A generic base reactor, subclassed: reactors need not be final.
    class ListReactor<Item: Sendable>: Reactor, @unchecked Sendable {
        // Unchecked only because the class is open to subclassing; it has no mutable state of its own.
        enum Action: Sendable { case add(Item) }
        typealias Mutation = Action
        struct State: Sendable { var items: [Item] = [] }
        let initialState = State()
        let runtime = Runtime()
        func reduce(state: State, mutation: Action) -> State {
            guard case let .add(item) = mutation else { return state }
            return State(items: state.items + [item])
        }
    }

    final class NameList: ListReactor<String>, @unchecked Sendable {
        override func reduce(state: State, mutation: Action) -> State {
            guard case let .add(name) = mutation else { return state }
            return State(items: state.items + [name.uppercased()])
        }
    }

    @Test("a non-final generic reactor and its subclass work, with the subclass's reduce")
    func nonFinalReactor() {
        let names = NameList()
        names.send(.add("ada"))
        #expect(names.currentState.items == ["ADA"])
        let numbers = ListReactor<Int>()
        numbers.send(.add(1))
        #expect(numbers.currentState.items == [1])
    }

    /// Ticks until a stop action; the predicate is a closure literal over the reactor's own Action.
    final class StopwatchReactor: Reactor {
        enum Action: Sendable, Equatable { case start, stop }
        enum Mutation: Sendable { case tick }
        struct State: Sendable { var ticks = 0 }
        let initialState = State()
        let runtime = Runtime()
        let ticks = AsyncStream<Void>.makeStream()
        func mutate(action: Action) -> Effect {
            switch action {
            case .start:
                .run { [stream = ticks.stream] send in for await _ in stream { send(.tick) } }
                    .take(until: { $0 == .stop })
            case .stop:
                .none
            }
        }
        func reduce(state: State, mutation: Mutation) -> State { State(ticks: state.ticks + 1) }
    }

    @Test("take(until:) accepts a closure literal typed by the reactor's Action")
    func typedTakeUntil() async {
        let reactor = StopwatchReactor()
        reactor.send(.start)
        reactor.ticks.continuation.yield()
        _ = await reactor.state { $0.ticks == 1 }
        reactor.send(.stop)
        reactor.ticks.continuation.yield()
        reactor.send(.stop)
        #expect(reactor.currentState.ticks == 1)
    }

    @Test("an outside action source connects after creation; its end and errors never reach the reactor")
    func outsideActionSource() async {
        let reactor = NameList()
        let (taps, continuation) = AsyncThrowingStream<ListReactor<String>.Action, any Error>.makeStream()
        let connection = reactor.send(contentsOf: taps)
        continuation.yield(.add("a"))
        continuation.yield(.add("b"))
        continuation.finish(throwing: CancellationError())
        #expect(await reactor.state { $0.items.count == 2 }?.items == ["A", "B"])
        reactor.send(.add("c"))
        #expect(reactor.currentState.items == ["A", "B", "C"])
        connection.cancel()
    }

    @Test("states finishes when the reactor is released")
    func statesFinishOnRelease() async {
        var reactor: NameList? = NameList()
        let states = reactor!.states
        let consumer = Task {
            var count = 0
            for await _ in states { count += 1 }
            return count
        }
        reactor?.send(.add("x"))
        reactor = nil
        #expect(await consumer.value >= 1)
    }
}

extension MemoryRecorder {
    /// Waits until the recorded entries satisfy `predicate`; `false` if the task is cancelled first.
    func entries(where predicate: @Sendable ([Entry]) -> Bool) async -> Bool {
        while !Task.isCancelled {
            if predicate(entries) { return true }
            await Task.yield()
        }
        return false
    }
}

import Foundation
import ReactorLog
import TestSupport
import Synchronization
import Testing

/// ReactorKit's behaviours, one test each, in this runtime's API.
@Suite("Reactor semantics", .timeLimit(.minutes(3)))
struct ReactorSemanticsTests {
    /// Records the order in which the runtime calls each hook.
    final class HookReactor: Reactor {
        enum Action: Sendable { case go }
        enum Mutation: Sendable { case went }
        struct State: Sendable { var count = 0 }
        let initialState = State()
        let runtime = Runtime()
        let calls = Recorder<String>()

        func transform(action: Pipeline<Action>) -> Pipeline<Action> {
            action.onEach { [calls] _ in calls.append("transform(action)") }
        }
        func mutate(action: Action) -> Effect {
            calls.append("mutate")
            return .just(.went)
        }
        func transform(mutation: Pipeline<Mutation>) -> Pipeline<Mutation> {
            mutation.onEach { [calls] _ in calls.append("transform(mutation)") }
        }
        func reduce(state: State, mutation: Mutation) -> State {
            calls.append("reduce")
            return State(count: state.count + 1)
        }
        func transform(state: Pipeline<State>) -> Pipeline<State> {
            calls.append("transform(state:) hook")
            return state.onEach { [calls] _ in calls.append("transform(state)") }
        }
    }

    @Test("1. hooks run in order, and the initial state goes through transform(state:)")
    func hookOrder() {
        let reactor = HookReactor()
        _ = reactor.currentState
        #expect(reactor.calls.all == ["transform(state:) hook", "transform(state)"])
        reactor.send(.go)
        #expect(reactor.calls.all.dropFirst(2) == ["transform(action)", "mutate", "transform(mutation)", "reduce", "transform(state)"])
    }

    /// The seed's ProfileViewReactor test: a synchronous mutation is visible right after `send`.
    final class BookmarkReactor: Reactor {
        enum Action: Sendable { case toggleBookmarked }
        enum Mutation: Sendable { case setBookmarked(Bool) }
        struct State: Sendable, Equatable { var isBookmarked = false }
        let initialState = State()
        let runtime = Runtime()
        func mutate(action: Action) -> Effect { .just(.setBookmarked(!currentState.isBookmarked)) }
        func reduce(state: State, mutation: Mutation) -> State {
            guard case let .setBookmarked(value) = mutation else { return state }
            return State(isBookmarked: value)
        }
    }

    @Test("2. synchronous dispatch: currentState is updated before send returns, from any thread or actor")
    func synchronousDispatch() async {
        let reactor = BookmarkReactor()
        reactor.send(.toggleBookmarked)
        #expect(reactor.currentState.isBookmarked == true)
        let fromThread: Bool = await withCheckedContinuation { continuation in
            Thread {
                reactor.send(.toggleBookmarked)
                continuation.resume(returning: reactor.currentState.isBookmarked)
            }.start()
        }
        #expect(fromThread == false)
        actor Sender {
            func toggle(_ reactor: BookmarkReactor) -> Bool {
                reactor.send(.toggleBookmarked)
                return reactor.currentState.isBookmarked
            }
        }
        #expect(await Sender().toggle(reactor) == true)
    }

    /// Adds one per mutation and lets an effect read `currentState` between its mutations.
    final class StepReactor: Reactor {
        enum Action: Sendable { case twoSteps, syncSteps }
        enum Mutation: Sendable { case add }
        struct State: Sendable { var value = 0 }
        let initialState = State()
        let runtime = Runtime()
        let seen = Recorder<Int>()
        func mutate(action: Action) -> Effect {
            switch action {
            case .twoSteps:
                return .run { [unowned self, seen] send in
                    send(.add)
                    seen.append(currentState.value)
                    send(.add)
                    seen.append(currentState.value)
                }
            case .syncSteps:
                return .just(.add, .add, .add)
            }
        }
        func reduce(state: State, mutation: Mutation) -> State { State(value: state.value + 1) }
    }

    @Test("3. reduce runs right after each mutation: a later step of an effect sees the earlier results")
    func reduceAfterEachMutation() async {
        let reactor = StepReactor()
        let states = Recorder<Int>()
        let observation = reactor.observe { states.append($0.value) }
        reactor.send(.syncSteps)
        #expect(states.all == [0, 1, 2, 3])
        reactor.send(.twoSteps)
        _ = await reactor.state { $0.value == 5 }
        #expect(reactor.seen.all == [4, 5])
        observation.cancel()
    }

    @Test("4. an observer gets the latest state first, then every later one; key paths skip repeats")
    func observation() async {
        let reactor = StepReactor()
        reactor.send(.syncSteps)
        let late = Recorder<Int>()
        let observation = reactor.observe { late.append($0.value) }
        #expect(late.all == [3])
        reactor.send(.syncSteps)
        #expect(late.all == [3, 4, 5, 6])

        let bookmark = BookmarkReactor()
        let flags = Recorder<Bool>()
        let flagObservation = bookmark.observe(\.isBookmarked) { flags.append($0) }
        bookmark.send(.toggleBookmarked)
        bookmark.stub.state = BookmarkReactor.State(isBookmarked: true)
        bookmark.send(.toggleBookmarked)
        #expect(flags.all == [false, true, false])

        var iterator = reactor.states.makeAsyncIterator()
        #expect(await iterator.next()?.value == 6)
        reactor.send(.syncSteps)
        #expect(await iterator.next()?.value == 7)
        #expect(await iterator.next()?.value == 8)
        observation.cancel()
        flagObservation.cancel()
    }

    /// Fails after emitting one mutation.
    final class FailingReactor: Reactor {
        struct Boom: Error {}
        enum Action: Sendable { case fail, add }
        enum Mutation: Sendable { case add }
        struct State: Sendable { var value = 0 }
        let initialState = State()
        let runtime = Runtime()
        func mutate(action: Action) -> Effect {
            switch action {
            case .fail: .run { send in
                send(.add)
                throw Boom()
            }
            case .add: .just(.add)
            }
        }
        func reduce(state: State, mutation: Mutation) -> State { State(value: state.value + 1) }
    }

    @Test("5. an effect's error keeps the mutations sent before it, and the reactor keeps working")
    func effectError() async {
        let reactor = FailingReactor()
        reactor.send(.fail)
        _ = await reactor.state { $0.value == 1 }
        reactor.send(.add)
        #expect(reactor.currentState.value == 2)
    }

    /// Sends B from inside reduce of A, and records entering and leaving reduce.
    final class ReentrantReactor: Reactor {
        enum Action: Sendable, Equatable { case a, b, c }
        typealias Mutation = Action
        struct State: Sendable { var last: Action? }
        let initialState = State()
        let runtime = Runtime()
        let trace = Recorder<String>()
        func reduce(state: State, mutation: Action) -> State {
            trace.append("enter \(mutation)")
            if mutation == .a { send(.b) }
            trace.append("exit \(mutation)")
            return State(last: mutation)
        }
    }

    @Test("6. an action sent from reduce or from an observer is handled after the current one, never nested")
    func reentrancy() {
        let reactor = ReentrantReactor()
        reactor.send(.a)
        #expect(reactor.trace.all == ["enter a", "exit a", "enter b", "exit b"])
        #expect(reactor.currentState.last == .b)

        let fromObserver = ReentrantReactor()
        let observation = fromObserver.observe { [unowned fromObserver] state in
            fromObserver.trace.append("observe \(state.last.map { "\($0)" } ?? "nil")")
            if state.last == .c { fromObserver.send(.b) }
        }
        fromObserver.send(.c)
        #expect(fromObserver.trace.all == ["observe nil", "enter c", "exit c", "observe c", "enter b", "exit b", "observe b"])
        observation.cancel()
    }

    @Test("7. many threads sending at once lose nothing; the pipeline is built once under concurrent first access")
    func concurrency() async {
        let reactor = StepReactor()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<500 { reactor.send(.syncSteps) } }
            }
        }
        #expect(reactor.currentState.value == 12_000)

        let fresh = HookReactor()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<100 { group.addTask { _ = fresh.currentState } }
        }
        #expect(fresh.calls.all.filter { $0 == "transform(state:) hook" }.count == 1)
    }

    @Test("8. a stub records actions, runs neither mutate nor reduce, and its state replaces what views see")
    func stub() {
        let reactor = HookReactor()
        reactor.isStubEnabled = true
        reactor.send(.go)
        reactor.send(.go)
        #expect(reactor.stub.actions.count == 2)
        #expect(!reactor.calls.all.contains("mutate"))
        #expect(!reactor.calls.all.contains("reduce"))
        let seen = Recorder<Int>()
        let observation = reactor.observe { seen.append($0.count) }
        reactor.stub.state = HookReactor.State(count: 42)
        #expect(reactor.currentState.count == 42)
        #expect(seen.all == [0, 42])
        reactor.isStubEnabled = false
        reactor.send(.go)
        #expect(reactor.currentState.count == 1)
        observation.cancel()
    }

    /// A state with a pulse that is assigned on every `alert`, even with the same message.
    final class AlertReactor: Reactor {
        enum Action: Sendable { case alert(String), other }
        typealias Mutation = Action
        struct State: Sendable {
            @Pulse var message: String? = nil
            var others = 0
        }
        let initialState = State()
        let runtime = Runtime()
        func reduce(state: State, mutation: Action) -> State {
            var state = state
            switch mutation {
            case let .alert(message): state.message = message
            case .other: state.others += 1
            }
            return state
        }
    }

    @Test("9. a pulse notifies on every assignment, even of an equal value, and its count wraps around")
    func pulse() {
        let reactor = AlertReactor()
        let alerts = Recorder<String?>()
        let observation = reactor.observe(pulse: \.$message) { alerts.append($0) }
        reactor.send(.alert("hi"))
        reactor.send(.other)
        reactor.send(.alert("hi"))
        #expect(alerts.all == ["hi", "hi"])
        #expect(reactor.currentState.$message.valueUpdatedCount == 2)

        var pulse = Pulse<Int>(value: 0, updatedCount: .max)
        pulse.wrappedValue = 0
        #expect(pulse.valueUpdatedCount == 0)
        observation.cancel()
    }

    /// Starts an effect that runs until cancelled and reports its start and its cancellation.
    final class LongRunningReactor: Reactor {
        enum Action: Sendable { case start }
        enum Mutation: Sendable { case never }
        struct State: Sendable {}
        let initialState = State()
        let runtime = Runtime()
        let started = Signal(), cancelled = Signal()
        func mutate(action: Action) -> Effect {
            .run { [started, cancelled] _ in
                started.fire()
                do {
                    try await Task.sleep(for: .seconds(3600))
                } catch {
                    cancelled.fire()
                }
            }
        }
    }

    @Test("10. releasing the reactor cancels its in-flight effects and frees it")
    func release() async {
        weak var released: LongRunningReactor?
        let started: Signal, cancelled: Signal
        do {
            let reactor = LongRunningReactor()
            (started, cancelled) = (reactor.started, reactor.cancelled)
            released = reactor
            reactor.send(.start)
            await started.wait()
        }
        #expect(released == nil)
        await cancelled.wait()
    }

    /// A platform-neutral view that counts its bindings.
    final class CounterView: View {
        var lifetime = LifetimeBag()
        @Bound var reactor: StepReactor?
        var bindings = 0
        let seen = Recorder<Int>()
        func bind(reactor: StepReactor) {
            bindings += 1
            reactor.observe { [seen] in seen.append($0.value) }.store(in: lifetime)
        }
    }

    @Test("11. setting a view's reactor binds it with a fresh bag; reassigning cancels the old bindings; nil unbinds")
    func viewBinding() {
        let view = CounterView()
        let first = StepReactor(), second = StepReactor()
        view.reactor = first
        #expect(view.bindings == 1)
        #expect(view.lifetime.count == 1)
        let firstBag = view.lifetime
        view.reactor = second
        #expect(view.bindings == 2)
        #expect(view.lifetime !== firstBag)
        first.send(.syncSteps)
        #expect(view.seen.all == [0, 0])
        second.send(.syncSteps)
        #expect(view.seen.all == [0, 0, 1, 2, 3])
        view.reactor = nil
        #expect(view.bindings == 2)
        #expect(view.lifetime.count == 0)
        second.send(.syncSteps)
        #expect(view.seen.count == 5)
        #expect(view.reactor == nil)
    }

    @Test("12. observeOnMainActor delivers every state, in order, on the main actor")
    func mainActorDelivery() async {
        let reactor = StepReactor()
        let values = Recorder<Int>()
        let done = Signal()
        let observation = reactor.observeOnMainActor { state in
            MainActor.assertIsolated()
            values.append(state.value)
            if state.value == 3 { done.fire() }
        }
        reactor.send(.syncSteps)
        await done.wait()
        #expect(values.all == [0, 1, 2, 3])
        observation.cancel()
    }
}

import Clocks
import Foundation
import ReactorLog
import ReactorLogTesting
import Testing

/// The test store: exhaustive assertions, fed-back mutations, effects that must end, a test clock.
@Suite("Test store", .timeLimit(.minutes(3)))
struct TestStoreTests {
    /// Ticks once after two seconds on its clock, unless stopped first.
    final class TimerReactor: Reactor {
        enum Action: Sendable, Equatable { case start, stop, forever }
        enum Mutation: Sendable, Equatable { case setRunning(Bool), tick }
        struct State: Sendable, Equatable {
            var isRunning = false
            var ticks = 0
        }
        let initialState = State()
        let runtime = Runtime()
        let clock: any Clock<Duration>
        init(clock: any Clock<Duration>) { self.clock = clock }

        func mutate(action: Action) -> Effect {
            switch action {
            case .start:
                .concat(
                    .just(.setRunning(true)),
                    .run { [clock] send in
                        try await clock.sleep(for: .seconds(2))
                        send(.tick)
                    }
                    .take(until: { $0 == .stop }),
                    .just(.setRunning(false)))
            case .stop:
                .none
            case .forever:
                .run { [clock] _ in try await clock.sleep(for: .seconds(3600)) }
            }
        }

        func reduce(state: State, mutation: Mutation) -> State {
            var state = state
            switch mutation {
            case let .setRunning(isRunning): state.isRunning = isRunning
            case .tick: state.ticks += 1
            }
            return state
        }
    }

    /// Each action's effect emits two mutations at once.
    final class LoadReactor: Reactor {
        enum Action: Sendable, Equatable { case load, loaded([String]) }
        enum Mutation: Sendable, Equatable { case setLoading(Bool), clear, setItems([String]) }
        struct State: Sendable, Equatable {
            var isLoading = false
            var items = ["stale"]
        }
        let initialState = State()
        let runtime = Runtime()

        func mutate(action: Action) -> Effect {
            switch action {
            case .load: .just([.setLoading(true), .clear])
            case let .loaded(items): .just([.setItems(items), .setLoading(false)])
            }
        }

        func reduce(state: State, mutation: Mutation) -> State {
            var state = state
            switch mutation {
            case let .setLoading(isLoading): state.isLoading = isLoading
            case .clear: state.items = []
            case let .setItems(items): state.items = items
            }
            return state
        }
    }

    /// Drops `.dropped` in `transform(action:)`, and while dropping it has another thread send `.elsewhere`: dispatch
    /// queues that (the sending thread is dispatching) and then runs it on the sending thread, in the same `send`.
    final class DroppingReactor: Reactor {
        enum Action: Sendable, Equatable { case dropped, elsewhere }
        enum Mutation: Sendable, Equatable { case arrived }
        struct State: Sendable, Equatable { var arrivals = 0 }
        let initialState = State()
        let runtime = Runtime()

        func transform(action: Pipeline<Action>) -> Pipeline<Action> {
            action.filter { [weak self] action in
                guard action == .dropped, let self else { return true }
                let queued = DispatchSemaphore(value: 0)
                Thread {
                    self.send(.elsewhere)
                    queued.signal()
                }.start()
                queued.wait()
                return false
            }
        }

        func mutate(action: Action) -> Effect { .just(.arrived) }

        func reduce(state: State, mutation: Mutation) -> State { State(arrivals: state.arrivals + 1) }
    }

    /// Its effect sends its mutation from another thread before `send` returns, as an async part that resumes on
    /// another thread at once would.
    final class ElsewhereReactor: Reactor {
        enum Action: Sendable, Equatable { case start }
        enum Mutation: Sendable, Equatable { case fromElsewhere }
        struct State: Sendable, Equatable { var arrived = false }
        let initialState = State()
        let runtime = Runtime()

        func mutate(action: Action) -> Effect {
            .run { send in
                let sent = DispatchSemaphore(value: 0)
                Thread {
                    send(.fromElsewhere)
                    sent.signal()
                }.start()
                sent.wait()
            }
        }

        func reduce(state: State, mutation: Mutation) -> State { State(arrived: true) }
    }

    @Test("a mutation an effect sent from another thread before send returned is received, not the send's")
    func mutationFromElsewhereDuringSend() async {
        let store = TestStore(ElsewhereReactor())
        await store.send(.start)
        await store.receive(.fromElsewhere) { $0.arrived = true }
        await store.finish()
    }

    @Test("an action another thread sent, which the sending thread dispatched meanwhile, is received, not the send's")
    func workQueuedDuringSend() async {
        let store = TestStore(DroppingReactor())
        await store.send(.dropped)
        await store.receive(.arrived) { $0.arrivals = 1 }
        await store.finish()
    }

    @Test("send asserts the state after all the mutations an effect emitted at once")
    func mutationsAtOnce() async {
        let store = patientStore(LoadReactor())
        await store.send(.load) {
            $0.isLoading = true
            $0.items = []
        }
        await store.send(.loaded(["a", "b"])) {
            $0.isLoading = false
            $0.items = ["a", "b"]
        }
        await store.finish()
    }

    @Test("send, receive and finish pass when every change is asserted, with time on a test clock")
    func exhaustivePass() async {
        let clock = TestClock()
        let store = patientStore(TimerReactor(clock: clock))
        await store.send(.start) { $0.isRunning = true }
        await clock.advance(by: .seconds(2))
        await store.receive(.tick) { $0.ticks = 1 }
        await store.receive(.setRunning(false)) { $0.isRunning = false }
        await store.finish()
    }

    @Test("take(until:) under a test clock: stop cancels the timer and the concat goes on")
    func stopEndsTimer() async {
        let clock = TestClock()
        let store = patientStore(TimerReactor(clock: clock))
        await store.send(.start) { $0.isRunning = true }
        await store.send(.stop)
        await store.receive(.setRunning(false)) { $0.isRunning = false }
        await clock.advance(by: .seconds(2))
        await store.finish()
    }

    @Test("a wrong expectation fails with a diff naming the field")
    func wrongExpectation() async {
        let store = patientStore(TimerReactor(clock: TestClock()))
        await withKnownIssue {
            await store.send(.start) { $0.ticks = 5 }
        } matching: { issue in
            let text = "\(issue)"
            return text.contains("not the expected one") && text.contains("ticks")
        }
        store.exhaustivity = .off
        await store.send(.stop)
        await store.finish()
    }

    @Test("an unasserted state change fails")
    func unassertedChange() async {
        let store = patientStore(TimerReactor(clock: TestClock()))
        await withKnownIssue {
            await store.send(.start)
        } matching: { "\($0)".contains("isRunning") }
        await store.send(.stop)
        await store.receive(.setRunning(false)) { $0.isRunning = false }
        await store.finish()
    }

    @Test("a mutation fed back and never received fails at finish; a wrong one fails at receive")
    func unreceivedMutation() async {
        let store = patientStore(TimerReactor(clock: TestClock()))
        await store.send(.start) { $0.isRunning = true }
        await store.send(.stop)
        await withKnownIssue {
            await store.finish()
        } matching: { "\($0)".contains("never received") && "\($0)".contains("setRunning(false)") }

        let second = patientStore(TimerReactor(clock: TestClock()))
        await second.send(.start) { $0.isRunning = true }
        await second.send(.stop)
        await withKnownIssue {
            await second.receive(.tick)
        } matching: { issue in
            // The wrong mutation, then the state it produced, which the test did not expect either.
            "\(issue)".contains("Received setRunning(false), expected tick") || "\(issue)".contains("isRunning")
        }
        second.exhaustivity = .off
        await second.finish()
    }

    @Test("an effect still running at finish fails")
    func runningEffect() async {
        let clock = TestClock()
        let store = patientStore(TimerReactor(clock: clock))
        await store.send(.forever)
        await withKnownIssue {
            await store.finish(timeout: .milliseconds(50))
        } matching: { "\($0)".contains("still running") }
        await clock.advance(by: .seconds(3600))
        await store.finish()
    }

    @Test("skipReceivedMutations drops the fed-back mutations unasserted and goes on from the state they produced")
    func skipReceived() async {
        let clock = TestClock()
        let store = patientStore(TimerReactor(clock: clock))
        await store.send(.start) { $0.isRunning = true }
        await clock.advance(by: .seconds(2))
        // The timer's effect feeds back tick and setRunning(false), and ends.
        await store.reactor.waitForEffects()
        store.skipReceivedMutations()
        // Still exhaustive: a mutation left pending would fail this send, and its expected state starts from the
        // skipped ones' (one tick, not running).
        await store.send(.start) {
            $0.isRunning = true
            #expect($0.ticks == 1)
        }
        await store.send(.stop)
        await store.receive(.setRunning(false)) { $0.isRunning = false }
        await store.finish()
    }

    @Test("non-exhaustive: only the asserted fields are checked, and fed-back mutations may be skipped")
    func nonExhaustive() async {
        let clock = TestClock()
        let store = patientStore(TimerReactor(clock: clock))
        store.exhaustivity = .off
        await store.send(.start)
        await clock.advance(by: .seconds(2))
        await store.receive(.setRunning(false)) { $0.ticks = 1 }
        await store.finish()
    }
}

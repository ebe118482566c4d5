import Clocks
import ReactorLog
import ReactorLogTesting
import Testing

/// Timing operators in transform hooks, on a test clock.
@Suite("Timing operators", .timeLimit(.minutes(3)))
struct TimingOperatorTests {
    /// Debounces or throttles query updates; other actions pass at once.
    final class QueryReactor: Reactor {
        enum Action: Sendable, Equatable {
            case updateQuery(String)
            case clear
            var isQueryUpdate: Bool { if case .updateQuery = self { true } else { false } }
        }
        enum Mutation: Sendable, Equatable { case setQuery(String) }
        struct State: Sendable, Equatable { var query = "" }
        enum Mode: Sendable { case debounce, throttle }
        let initialState = State()
        let runtime = Runtime()
        let clock: TestClock<Duration>
        let mode: Mode
        init(clock: TestClock<Duration>, mode: Mode) {
            self.clock = clock
            self.mode = mode
        }
        func transform(action: Pipeline<Action>) -> Pipeline<Action> {
            switch mode {
            case .debounce: action.debounce(for: .milliseconds(300), clock: clock, where: \.isQueryUpdate)
            case .throttle: action.throttle(for: .seconds(1), clock: clock, latest: true, where: \.isQueryUpdate)
            }
        }
        func mutate(action: Action) -> Effect {
            switch action {
            case let .updateQuery(query): .just(.setQuery(query))
            case .clear: .just(.setQuery(""))
            }
        }
        func reduce(state: State, mutation: Mutation) -> State {
            guard case let .setQuery(query) = mutation else { return state }
            return State(query: query)
        }
    }

    @Test("debounce lets only the last query through once typing stops; unselected actions pass at once")
    func debounce() async {
        let clock = TestClock()
        let store = patientStore(QueryReactor(clock: clock, mode: .debounce))
        await store.send(.updateQuery("s"))
        await store.send(.updateQuery("sw"))
        await clock.advance(by: .milliseconds(100))
        await store.send(.updateQuery("swi"))
        await clock.advance(by: .milliseconds(300))
        await store.receive(.setQuery("swi")) { $0.query = "swi" }
        await store.send(.clear) { $0.query = "" }
        await store.finish()
    }

    @Test("throttle lets the first query through, holds the next until the interval has passed, then lets one through")
    func throttle() async {
        let clock = TestClock()
        let store = patientStore(QueryReactor(clock: clock, mode: .throttle))
        await store.send(.updateQuery("a"))
        await store.receive(.setQuery("a")) { $0.query = "a" }
        await store.send(.updateQuery("b"))                   // within the interval: held, no state change
        await clock.advance(by: .seconds(1))
        await store.send(.updateQuery("c"))                   // after it: the latest held value goes through
        await store.receive(.setQuery("c")) { $0.query = "c" }
        await store.send(.clear) { $0.query = "" }
        await store.finish()
    }
}

import ReactorLog

/// ReactorKit's counter: increase and decrease after a delay, with a loading flag while waiting.
public final class CounterReactor: Reactor {
    /// What the user taps.
    public enum Action: Codable, Sendable, Equatable {
        /// The plus button.
        case increase
        /// The minus button.
        case decrease
    }

    /// What changes the count.
    public enum Mutation: Codable, Sendable, Equatable {
        /// Adds one.
        case increaseValue
        /// Subtracts one.
        case decreaseValue
        /// Turns the loading indicator on or off.
        case setLoading(Bool)
    }

    /// What the counter shows.
    public struct State: Codable, Sendable, Equatable {
        /// The count.
        public var value = 0
        /// Whether a change is on its way.
        public var isLoading = false

        /// A count of zero, not loading.
        public init() {}
    }

    /// A count of zero.
    public let initialState = State()
    /// The reactor's runtime.
    public let runtime = Runtime()
    /// How long a change takes to arrive.
    public let delay: Duration
    /// The clock the delay passes on.
    public let clock: any Clock<Duration>

    /// A counter whose changes arrive after `delay` on `clock` (a delay of 0 for benchmarks; a test clock for tests).
    public init(delay: Duration = .milliseconds(500), clock: any Clock<Duration> = ContinuousClock()) {
        self.delay = delay
        self.clock = clock
    }

    /// Loading on, the change after the delay, loading off.
    public func mutate(action: Action) -> Effect {
        let change: Mutation = action == .increase ? .increaseValue : .decreaseValue
        guard delay > .zero else { return .just(.setLoading(true), change, .setLoading(false)) }
        let (delay, clock) = (delay, clock)
        return .concat(
            .just(.setLoading(true)),
            .run { send in
                try await clock.sleep(for: delay)
                send(change)
            },
            .just(.setLoading(false)))
    }

    /// Applies one mutation.
    public func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation {
        case .increaseValue: state.value += 1
        case .decreaseValue: state.value -= 1
        case .setLoading(let isLoading): state.isLoading = isLoading
        }
        return state
    }
}

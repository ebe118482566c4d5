/// A reactor turns actions into state, ReactorKit's way: `mutate` turns an action into mutations (side
/// effects live here), `reduce` folds each mutation into the state (pure), and `transform` hooks see all
/// three streams.
///
/// ```swift
/// final class ProfileViewReactor: Reactor {
///     enum Action { case follow(Int) }
///     enum Mutation { case setFollowing(Bool) }
///     struct State { var isFollowing = false }
///
///     let initialState = State()
///     let runtime = ReactorRuntime<ProfileViewReactor>()
///
///     func mutate(action: Action) -> Effect<Mutation> {
///         switch action {
///         case let .follow(userID):
///             return .run { send in
///                 try await UserAPI.follow(userID)
///                 send(.setFollowing(true))
///             }
///         }
///     }
///
///     func reduce(state: State, mutation: Mutation) -> State {
///         var state = state
///         switch mutation {
///         case let .setFollowing(isFollowing): state.isFollowing = isFollowing
///         }
///         return state
///     }
/// }
///
/// reactor.send(.follow(42))
/// reactor.currentState.isFollowing
/// ```
///
/// The one stored property a reactor must declare is `runtime`: it holds the state, the observers and
/// the running effects. It is created empty and starts on first use, exactly once.
/// See docs/GUIDE.md for the rules of dispatch, delivery and persistence.
public protocol Reactor: AnyObject, Sendable {
    /// What the user does.
    associatedtype Action: Sendable
    /// What changes the state; the log records mutations, and replaying them rebuilds any state.
    associatedtype Mutation: Sendable = Action
    /// What the view shows.
    associatedtype State: Sendable

    /// The state before the first mutation.
    var initialState: State { get }

    /// The reactor's runtime: declare it as `let runtime = ReactorRuntime<YourReactor>()`.
    var runtime: ReactorRuntime<Self> { get }

    /// Turns an action into mutations; side effects live here. Runs on the thread that sends the action.
    func mutate(action: Action) -> Effect<Mutation>

    /// Returns the state after one mutation. Must be pure: it runs again when a log is replayed.
    func reduce(state: State, mutation: Mutation) -> State

    /// Transforms the actions before `mutate` (and before they are logged). Called once, at start.
    func transform(action: Pipeline<Action>) -> Pipeline<Action>

    /// Transforms the mutations before `reduce` (and before they are logged). Called once, at start.
    func transform(mutation: Pipeline<Mutation>) -> Pipeline<Mutation>

    /// Transforms the states after `reduce`, the initial state included. Called once, at start.
    func transform(state: Pipeline<State>) -> Pipeline<State>
}

extension Reactor {
    /// Emits no mutation.
    public func mutate(action: Action) -> Effect<Mutation> { .none }

    /// Returns the state unchanged.
    public func reduce(state: State, mutation: Mutation) -> State { state }

    /// Passes actions through.
    public func transform(action: Pipeline<Action>) -> Pipeline<Action> { action }

    /// Passes mutations through.
    public func transform(mutation: Pipeline<Mutation>) -> Pipeline<Mutation> { mutation }

    /// Passes states through.
    public func transform(state: Pipeline<State>) -> Pipeline<State> { state }
}

extension Reactor where Action == Mutation {
    /// Emits the action itself as the mutation.
    public func mutate(action: Action) -> Effect<Mutation> { .just(action) }
}

extension Reactor {
    /// The latest state, after `transform(state:)`. Updated before observers see it; reading it inside
    /// `mutate` or an effect gives the state as of that moment.
    public var currentState: State {
        runtime.currentState(of: self)
    }

    /// Sends an action. From any thread or task; mutations the effect emits synchronously are reduced and
    /// published before `send` returns. Sent from inside `reduce` or a state observer, the action is
    /// queued and handled right after the current one.
    public func send(_ action: Action) {
        runtime.send(action, to: self)
    }
}

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
///     let runtime = Runtime()
///
///     func mutate(action: Action) -> Effect {
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
/// the running effects. It is created idle and starts on first use, exactly once. Reactors may be
/// non-final classes: nothing in the protocol mentions `Self`.
///
/// **Dispatch** (docs/GUIDE.md, "Isolation and delivery"): one action or mutation is handled at a time,
/// in one total order. A send that finds the reactor idle, in its ``scheduler``'s isolation, is handled
/// before `send` returns; any other send is queued and handled by whoever is dispatching (or by a hop to
/// the scheduler's actor). No thread ever waits for another thread's `mutate`, `reduce` or observers.
public protocol Reactor<Action, Mutation, State>: AnyObject, Sendable {
    /// What the user does.
    associatedtype Action: Sendable
    /// What changes the state; the log records mutations, and replaying them rebuilds any state.
    associatedtype Mutation: Sendable = Action
    /// What the view shows.
    associatedtype State: Sendable

    /// The runtime type to declare: `let runtime = Runtime()`.
    typealias Runtime = ReactorRuntime<Action, Mutation, State>
    /// The effect type `mutate(action:)` returns.
    typealias Effect = ReactorEffect<Action, Mutation>

    /// The state before the first mutation.
    var initialState: State { get }

    /// The reactor's runtime: declare it as `let runtime = Runtime()`.
    var runtime: Runtime { get }

    /// Where `mutate`, `reduce` and state delivery run (ReactorKit's `scheduler`); read once, at start.
    /// Defaults to ``ReactorScheduler/immediate``: on the sending thread.
    var scheduler: ReactorScheduler { get }

    /// Turns an action into mutations; side effects live here.
    func mutate(action: Action) -> Effect

    /// Returns the state after one mutation. Must be pure: it runs again when a log is replayed.
    func reduce(state: State, mutation: Mutation) -> State

    /// The mutations to apply when the reactor resumes from a recorded state (``Reactor/record(with:resumingFrom:)``,
    /// `attach(to:stream:)` on an existing stream), before anything observes it: clear what was in flight
    /// when the app stopped, such as `[.setCheckingOut(false)]`. They go through `transform(mutation:)`,
    /// `reduce` and the recorder like any mutation with no causing action, so the log still replays exactly.
    /// Called once; not called for a fresh start.
    func resume(from state: State) -> [Mutation]

    /// Transforms the actions before `mutate` (and before they are logged). Called once, at start.
    func transform(action: Pipeline<Action>) -> Pipeline<Action>

    /// Transforms the mutations before `reduce` (and before they are logged). Called once, at start.
    func transform(mutation: Pipeline<Mutation>) -> Pipeline<Mutation>

    /// Transforms the states after `reduce`, the initial state included. Called once, at start.
    func transform(state: Pipeline<State>) -> Pipeline<State>
}

extension Reactor {
    /// Handles actions on the thread that sends them.
    public var scheduler: ReactorScheduler { .immediate }

    /// Emits no mutation.
    public func mutate(action: Action) -> Effect { .none }

    /// Returns the state unchanged.
    public func reduce(state: State, mutation: Mutation) -> State { state }

    /// Resumes as recorded: no mutation.
    public func resume(from state: State) -> [Mutation] { [] }

    /// Passes actions through.
    public func transform(action: Pipeline<Action>) -> Pipeline<Action> { action }

    /// Passes mutations through.
    public func transform(mutation: Pipeline<Mutation>) -> Pipeline<Mutation> { mutation }

    /// Passes states through.
    public func transform(state: Pipeline<State>) -> Pipeline<State> { state }
}

extension Reactor where Action == Mutation {
    /// Emits the action itself as the mutation.
    public func mutate(action: Action) -> Effect { .just(action) }
}

extension Reactor {
    /// The latest state, after `transform(state:)`. Updated before observers see it; reading it inside
    /// `mutate` or an effect gives the state as of that moment.
    @inlinable public var currentState: State {
        runtime.currentState(of: self)
    }

    /// Sends an action, never blocking. Sent from the scheduler's isolation to an idle reactor, the
    /// mutations its effect emits synchronously are reduced and published before `send` returns (the
    /// seed's `testIsBookmarked`). Sent from inside `mutate`, `reduce` or an observer, it is handled right
    /// after the current one; sent while another thread dispatches, it is queued and handled by that thread.
    ///
    /// - Parameters:
    ///   - action: the action.
    ///   - isolation: the caller's isolation, filled in by the compiler; leave it out.
    ///   - fileID: the file of the call, filled in by the compiler: a recorder keeps it (``CallSite``).
    ///   - line: the line of the call, filled in by the compiler.
    @inlinable public func send(
        _ action: Action, isolation: isolated (any Actor)? = #isolation, fileID: StaticString = #fileID, line: UInt = #line
    ) {
        runtime.send(action, to: self, from: isolation, site: CallSite(fileID: fileID, line: line))
    }
}

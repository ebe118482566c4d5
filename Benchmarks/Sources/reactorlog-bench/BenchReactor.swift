import ReactorLog

/// The benchmark's workload: a GitHub-Search-like reactor whose actions each produce one to three small
/// mutations, synchronously, so the benchmark measures the pipeline and the log, not a network.
final class BenchReactor: Reactor {
    enum Action: Codable, Sendable, Equatable {
        case updateQuery(String)
        case loadNextPage
        case toggleStar(Int)
    }

    enum Mutation: Codable, Sendable, Equatable {
        case setQuery(String)
        case setRepos([String], nextPage: Int)
        case setLoadingNextPage(Bool)
        case appendRepos([String], nextPage: Int)
        case setStarred(Int)
    }

    struct State: Codable, Sendable, Equatable {
        var query = ""
        var repos: [String] = []
        var nextPage = 1
        var isLoadingNextPage = false
        var starred = 0
        var mutations = 0
        /// Set by the planted bug and never cleared: what bisect looks for.
        var corrupted = false
    }

    let initialState = State()
    let runtime = Runtime()
    /// Sees every action and mutation (after transform), for the peers that store them themselves.
    let tap: (@Sendable (Tapped) -> Void)?
    /// A planted bug for the bisect figure: the state is corrupted at this mutation count.
    let bugAtMutation: Int?

    /// What the tap sees.
    enum Tapped {
        case action(Action)
        case mutation(Mutation)
    }

    init(tap: (@Sendable (Tapped) -> Void)? = nil, bugAtMutation: Int? = nil) {
        self.tap = tap
        self.bugAtMutation = bugAtMutation
    }

    func transform(action: Pipeline<Action>) -> Pipeline<Action> {
        guard let tap else { return action }
        return action.onEach { tap(.action($0)) }
    }

    func transform(mutation: Pipeline<Mutation>) -> Pipeline<Mutation> {
        guard let tap else { return mutation }
        return mutation.onEach { tap(.mutation($0)) }
    }

    /// The i-th action of the session: queries, pages and stars in a fixed rhythm (2 mutations on average).
    static func action(_ index: Int) -> Action {
        switch index % 4 {
        case 0: .updateQuery("q\(index % 97)")
        case 1, 2: .loadNextPage
        default: .toggleStar(index % 50)
        }
    }

    func mutate(action: Action) -> Effect {
        .just(Self.mutations(for: action, in: currentState))
    }

    /// The mutations an action produces from `state`: what `mutate` emits, and what the raw reduce loop
    /// baseline folds without the runtime.
    static func mutations(for action: Action, in state: State) -> [Mutation] {
        switch action {
        case let .updateQuery(query):
            [.setQuery(query), .setRepos(["\(query)/a", "\(query)/b"], nextPage: 2)]
        case .loadNextPage:
            [.setLoadingNextPage(true), .appendRepos(["p\(state.nextPage)/a", "p\(state.nextPage)/b"], nextPage: state.nextPage + 1),
             .setLoadingNextPage(false)]
        case let .toggleStar(id):
            [.setStarred(id)]
        }
    }

    func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        state.mutations += 1
        if state.mutations == bugAtMutation { state.corrupted = true }
        switch mutation {
        case let .setQuery(query): state.query = query
        case let .setRepos(repos, nextPage):
            state.repos = repos
            state.nextPage = nextPage
        case let .setLoadingNextPage(loading): state.isLoadingNextPage = loading
        case let .appendRepos(repos, nextPage):
            // Keep the state small, as a screen's state is: the last page only.
            state.repos = repos
            state.nextPage = nextPage
        case let .setStarred(id): state.starred = id
        }
        return state
    }
}

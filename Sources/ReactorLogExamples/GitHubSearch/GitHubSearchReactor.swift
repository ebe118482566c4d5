import ReactorLog

/// The GitHub Search example from ReactorKit's documentation, ported: typing a query searches (cancelling
/// the search of the previous query), scrolling to the bottom loads the next page with a loading flag.
public final class GitHubSearchReactor: Reactor {
    /// What the user does.
    public enum Action: Codable, Sendable, Equatable {
        /// The search field changed.
        case updateQuery(String?)
        /// The list was scrolled to the bottom.
        case loadNextPage
    }

    /// What changes the state.
    public enum Mutation: Codable, Sendable, Equatable {
        /// The query being searched.
        case setQuery(String?)
        /// The first page of results.
        case setRepos([String], nextPage: Int?)
        /// A further page of results.
        case appendRepos([String], nextPage: Int?)
        /// Whether the next page is loading.
        case setLoadingNextPage(Bool)
    }

    /// What the screen shows.
    public struct State: Codable, Sendable, Equatable {
        /// The query.
        public var query: String?
        /// The repositories found so far.
        public var repos: [String] = []
        /// The page to load next, if any.
        public var nextPage: Int?
        /// Whether the next page is loading.
        public var isLoadingNextPage = false

        /// No query, no results.
        public init() {}
    }

    /// No query, no results.
    public let initialState = State()
    /// The reactor's runtime.
    public let runtime = Runtime()
    let service: any GitHubSearchService

    /// A reactor searching with `service`.
    public init(service: any GitHubSearchService = FakeGitHubSearchService()) {
        self.service = service
    }

    /// The seed's `mutate`, with `Effect` in place of `Observable`.
    public func mutate(action: Action) -> Effect {
        switch action {
        case let .updateQuery(query):
            return .concat(
                // 1) set the current query
                .just(.setQuery(query)),
                // 2) call the API and set the repos, cancelled when a new query arrives
                .run { [service] send in
                    let (repos, nextPage) = try await Self.search(service, query: query, page: 1)
                    send(.setRepos(repos, nextPage: nextPage))
                }
                .take(until: Self.isUpdateQueryAction))

        case .loadNextPage:
            // prevent loading a page twice
            guard !currentState.isLoadingNextPage, let page = currentState.nextPage else { return .none }
            let query = currentState.query
            return .concat(
                // 1) set loading status to true
                .just(.setLoadingNextPage(true)),
                // 2) call the API and append the repos, cancelled when a new query arrives
                .run { [service] send in
                    let (repos, nextPage) = try await Self.search(service, query: query, page: page)
                    send(.appendRepos(repos, nextPage: nextPage))
                }
                .take(until: Self.isUpdateQueryAction),
                // 3) set loading status to false
                .just(.setLoadingNextPage(false)))
        }
    }

    /// The seed's `reduce`.
    public func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation {
        case let .setQuery(query):
            state.query = query
        case let .setRepos(repos, nextPage):
            state.repos = repos
            state.nextPage = nextPage
        case let .appendRepos(repos, nextPage):
            state.repos.append(contentsOf: repos)
            state.nextPage = nextPage
        case let .setLoadingNextPage(isLoadingNextPage):
            state.isLoadingNextPage = isLoadingNextPage
        }
        return state
    }

    /// Whether `action` is a new query (which cancels the searches in flight).
    public static func isUpdateQueryAction(_ action: Action) -> Bool {
        if case .updateQuery = action { return true }
        return false
    }

    private static func search(_ service: any GitHubSearchService, query: String?, page: Int) async throws -> (repos: [String], nextPage: Int?) {
        guard let query, !query.isEmpty else { return ([], nil) }
        return try await service.search(query: query, page: page)
    }
}

/// An offline stand-in for GitHub's search API: deterministic results after a simulated latency.
///
/// Each query has ``pageCount`` pages of ``pageSize`` repositories named `QUERY/repo-N`; an empty query
/// finds nothing. A query containing `"error"` fails, to exercise error handling.
public struct FakeGitHubSearchService: GitHubSearchService {
    /// The failure of a query containing `"error"`.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        /// The query that failed.
        public let query: String
        /// `GitHub API rate limit exceeded for 'QUERY'`.
        public var description: String { "GitHub API rate limit exceeded for '\(query)'" }
    }

    /// How long each request takes.
    public let latency: Duration
    /// How many pages every query has.
    public let pageCount: Int
    /// How many repositories a page holds.
    public let pageSize: Int
    /// A planted server bug, for the demo's bisect tour: for this query, this page answers that the next
    /// page is itself, so a client that trusts it loads the page twice.
    public let stalePage: (query: String, page: Int)?

    /// A fake with the given latency and result sizes.
    public init(latency: Duration = .milliseconds(100), pageCount: Int = 3, pageSize: Int = 10, stalePage: (query: String, page: Int)? = nil) {
        self.latency = latency
        self.pageCount = pageCount
        self.pageSize = pageSize
        self.stalePage = stalePage
    }

    /// The page's repositories after ``latency``.
    public func search(query: String, page: Int) async throws -> (repos: [String], nextPage: Int?) {
        if latency > .zero { try await Task.sleep(for: latency) }
        if query.contains("error") { throw Failure(query: query) }
        guard !query.isEmpty, page >= 1, page <= pageCount else { return ([], nil) }
        let first = (page - 1) * pageSize + 1
        let repos = (first..<(first + pageSize)).map { "\(query)/repo-\($0)" }
        if let stalePage, stalePage.query == query, stalePage.page == page { return (repos, page) }
        return (repos, page < pageCount ? page + 1 : nil)
    }
}

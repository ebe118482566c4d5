/// Searches GitHub repositories by name, a page at a time.
public protocol GitHubSearchService: Sendable {
    /// The repositories matching `query` on page `page` (from 1), and the next page if there is one.
    func search(query: String, page: Int) async throws -> (repos: [String], nextPage: Int?)
}

import BinaryPayloadKit
import Clocks
import ReactorLog
import TestSupport
import ReactorLogExamples
import Testing

/// Answers after one suspension, as any network call would (an effect that never suspends finishes inside
/// `send`), except the query "slow", which only ends by cancellation.
struct ScriptedSearchService: GitHubSearchService {
    func search(query: String, page: Int) async throws -> (repos: [String], nextPage: Int?) {
        await Task.yield()
        if query == "slow" { try await Task.sleep(for: .seconds(3600)) }
        return try await FakeGitHubSearchService(latency: .zero).search(query: query, page: page)
    }
}

@Suite("Examples", .timeLimit(.minutes(3)))
struct ExampleTests {
    @Test("the GitHub Search example's hand-written binary coding agrees with Codable for every case, nil optionals too")
    func gitHubSearchHandWrittenCoding() throws {
        let actions: [GitHubSearchReactor.Action] = [.updateQuery("swift"), .updateQuery(nil), .updateQuery(""), .loadNextPage]
        for action in actions { try BinaryPayload.checkHandWrittenCoding(of: action) }
        let mutations: [GitHubSearchReactor.Mutation] = [
            .setQuery("rx"), .setQuery(nil), .setRepos(["a/b", "ü/ß"], nextPage: 2), .setRepos([], nextPage: nil),
            .appendRepos(["c/d"], nextPage: nil), .appendRepos([], nextPage: 7), .setLoadingNextPage(true), .setLoadingNextPage(false),
        ]
        for mutation in mutations { try BinaryPayload.checkHandWrittenCoding(of: mutation) }
    }

    @Test("GitHub Search: a query sets the query at once, then the first page")
    func search() async {
        let reactor = GitHubSearchReactor(service: ScriptedSearchService())
        reactor.send(.updateQuery("swift"))
        #expect(reactor.currentState.query == "swift")
        let state = await reactor.state { $0.repos.count == 10 }
        #expect(state?.repos.first == "swift/repo-1")
        #expect(state?.nextPage == 2)
    }

    @Test("GitHub Search: a new query cancels the search of the previous one")
    func newQueryCancels() async {
        let reactor = GitHubSearchReactor(service: ScriptedSearchService())
        let repos = Recorder<[String]>()
        let observation = reactor.observe(\.repos) { repos.append($0) }
        reactor.send(.updateQuery("slow"))
        reactor.send(.updateQuery("rx"))
        _ = await reactor.state { $0.repos.first == "rx/repo-1" }
        #expect(repos.all.allSatisfy { $0.allSatisfy { !$0.hasPrefix("slow") } })
        observation.cancel()
    }

    @Test("GitHub Search: the next page loads with the loading flag on then off, and not twice at once")
    func paging() async {
        let reactor = GitHubSearchReactor(service: ScriptedSearchService())
        reactor.send(.updateQuery("swift"))
        _ = await reactor.state { $0.repos.count == 10 }
        reactor.send(.loadNextPage)
        #expect(reactor.currentState.isLoadingNextPage)
        reactor.send(.loadNextPage)
        let state = await reactor.state { $0.repos.count == 20 && !$0.isLoadingNextPage }
        #expect(state?.repos.last == "swift/repo-20")
        #expect(state?.nextPage == 3)
        reactor.send(.loadNextPage)
        let last = await reactor.state { $0.repos.count == 30 && !$0.isLoadingNextPage }
        #expect(last?.nextPage == nil)
        reactor.send(.loadNextPage)
        #expect(!reactor.currentState.isLoadingNextPage)
    }

    @Test("GitHub Search: an empty query clears the results without calling the service")
    func emptyQuery() async {
        let reactor = GitHubSearchReactor(service: ScriptedSearchService())
        reactor.send(.updateQuery("swift"))
        _ = await reactor.state { $0.repos.count == 10 }
        reactor.send(.updateQuery(""))
        #expect(await reactor.state { $0.repos.isEmpty }?.nextPage == nil)
    }

    @Test("Counter: the loading flag is on at once, the change arrives after the delay")
    func counter() async {
        // On a test clock: a real 5 ms delay could pass before the first checks on a loaded machine.
        let clock = TestClock()
        let reactor = CounterReactor(delay: .milliseconds(5), clock: clock)
        reactor.send(.increase)
        #expect(reactor.currentState.isLoading)
        #expect(reactor.currentState.value == 0)
        await clock.advance(by: .milliseconds(4))
        #expect(reactor.currentState.isLoading && reactor.currentState.value == 0)
        await clock.advance(by: .milliseconds(1))
        let state = await reactor.state { !$0.isLoading }
        #expect(state?.value == 1)
        let instant = CounterReactor(delay: .zero)
        instant.send(.decrease)
        #expect(instant.currentState.value == -1)
        #expect(!instant.currentState.isLoading)
    }

    @Test("Todo: add, edit, toggle, move and delete")
    func todo() {
        let reactor = TodoReactor()
        reactor.send(.add("milk"))
        reactor.send(.add("eggs"))
        reactor.send(.add("bread"))
        reactor.send(.edit(id: 2, title: "six eggs"))
        reactor.send(.toggle(id: 1))
        reactor.send(.move(from: 2, to: 0))
        reactor.send(.delete(id: 3))
        #expect(reactor.currentState.items.map(\.title) == ["milk", "six eggs"])
        #expect(reactor.currentState.items.map(\.isDone) == [true, false])
        reactor.send(.move(from: 5, to: 0))
        #expect(reactor.currentState.items.count == 2)
    }
}

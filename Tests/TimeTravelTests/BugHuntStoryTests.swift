import EventLogKit
import Foundation
import ReactorLog
import ReactorLogPersistence
import ReactorLogExamples
import TestSupport
import TimeTravel
import Testing

/// docs/TIME-TRAVEL.md's bug hunt, step by step, on a recording of the bug: a server whose page 2 of "rx"
/// says the next page is 2 again.
@Suite("The bug hunt story", .timeLimit(.minutes(3)))
struct BugHuntStoryTests {
    @Test("bisect finds the append that duplicated repositories; causal tree and blame explain it; the regression loop catches it")
    func hunt() async throws {
        let scratch = ScratchDirectory()
        let path = scratch.file("bug-1234.reactorlog")
        do {
            let log = try EventLog.open(at: path)
            do {
                let reactor = GitHubSearchReactor(service: FakeGitHubSearchService(latency: .zero, pageCount: 5, stalePage: ("rx", 2)))
                try reactor.attach(to: log, stream: "search")
                reactor.send(.updateQuery("swift"))
                _ = await reactor.state { $0.repos.count == 10 }
                reactor.send(.updateQuery("rx"))
                _ = await reactor.state { $0.repos.first == "rx/repo-1" }
                for expected in [20, 30] {
                    reactor.send(.loadNextPage)
                    _ = await reactor.state { $0.repos.count == expected && !$0.isLoadingNextPage }
                }
            }
            // The log has the reactor's last state: the snapshot its release writes (or closing the log, had it come
            // first), the one recorded state of this short session (the default policy snapshots every 256 mutations).
            try log.close()
        }

        // 1. Find the first bad step.
        let log = try EventLog.openReadOnly(at: path)
        let machine = try TimeMachine(log: log, stream: "search", replayer: ReactorReplayer { GitHubSearchReactor() })
        let result = try machine.bisect { state, _ in Set(state.repos).count == state.repos.count ? .good : .bad }
        let firstBad = try #require(result.firstBad)
        #expect(result.mutation?.caseName == "appendRepos")
        #expect(result.action?.caseName == "loadNextPage")
        #expect(result.diff?.rendered() == [#"+ repos[20...29]: 10 added ("rx/repo-11" … "rx/repo-20")"#])
        #expect(try machine.bisect(replaying: result.probes).firstBad == firstBad)
        // The two ends, then about log2 of the log's length: bisect halves the sequence range itself.
        let steps = Double(try machine.lastStep())
        #expect(result.probes.count <= 3 + Int(log2(steps).rounded(.up)), "\(result.probes)")

        // 2. Look at the cause.
        let action = try #require(result.action)
        let tree = try machine.causalTree(of: action.sequence)
        #expect(tree.caused.map(\.entry.caseName) == ["setLoadingNextPage", "appendRepos", "setLoadingNextPage"])
        // nextPage changed once, to 2, and never moved again: page 2 of "rx" did not advance it.
        let nextPage = try machine.blame(StatePath(parsing: "nextPage"), through: firstBad)
        #expect(nextPage.map(\.new) == [.number(2)])
        #expect(nextPage.first?.mutation.caseName == "setRepos")
        #expect(nextPage.first.map { $0.mutation.sequence < action.sequence } == true)
        #expect(try machine.json(at: firstBad - 1)["nextPage"] == .number(2))

        // 4. The regression test's loop finds the duplicate.
        var states = try machine.states(from: 1)
        var duplicateAt: UInt64?
        while let (entry, state) = try states.next(), duplicateAt == nil {
            if Set(state.repos).count != state.repos.count { duplicateAt = entry.sequence }
        }
        #expect(duplicateAt == firstBad)
        // 5. Today's reduce still replays the recording: checked against the last state, which the session recorded.
        #expect(try log.snapshotSequences(stream: "search") == [try machine.lastStep()])
        try machine.assertReplayMatchesRecording()
        let report = try machine.divergenceReport()
        #expect(report.compared == 1 && report.uncompared == nil)
        // Without a recorded state after it, the assertion would check nothing: it says so instead of passing.
        let short = try #require(try log.sequences(stream: "search", kinds: [.mutation]).dropFirst(3).first)
        #expect(throws: TimeTravelError.nothingToCompare(stream: "search", from: 0, through: short)) {
            try machine.assertReplayMatchesRecording(through: short)
        }
        #expect(try machine.divergenceReport(through: short).uncompared == 0...short)
    }
}

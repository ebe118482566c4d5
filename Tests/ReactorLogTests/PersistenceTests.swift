import EventLogKit
import Foundation
import ReactorLog
import ReactorLogPersistence
import ReactorLogExamples
import TestSupport
import Testing

@Suite("Persistence", .timeLimit(.minutes(3)))
struct PersistenceTests {
    let scratch = ScratchDirectory()

    func openLog(_ policy: SnapshotPolicy = .default) throws -> EventLog {
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = policy
        return try EventLog.open(at: scratch.file("session.reactorlog"), configuration: configuration)
    }

    /// Plays a GitHub Search session: two queries, paging, and a failing query.
    func playSession(_ reactor: GitHubSearchReactor) async {
        reactor.send(.updateQuery("swift"))
        _ = await reactor.state { $0.repos.count == 10 }
        reactor.send(.loadNextPage)
        _ = await reactor.state { $0.repos.count == 20 && !$0.isLoadingNextPage }
        reactor.send(.updateQuery("rx"))
        _ = await reactor.state { $0.repos.first == "rx/repo-1" }
        reactor.send(.loadNextPage)
        _ = await reactor.state { $0.repos.count == 20 && !$0.isLoadingNextPage }
    }

    @Test("actions, mutations with their causes, and effect errors are logged in the order reduce applied them")
    func logsInOrder() async throws {
        let log = try openLog()
        let reactor = GitHubSearchReactor(service: ScriptedSearchService())
        try reactor.attach(to: log, stream: "search")
        reactor.send(.updateQuery("swift"))
        _ = await reactor.state { $0.repos.count == 10 }
        reactor.send(.updateQuery("error"))
        try await log.flush()
        var entries = try log.readEntries(EntryQuery(stream: "search"))
        while !entries.contains(where: { $0.kind == .effectError }) {
            await Task.yield()
            try await log.flush()
            entries = try log.readEntries(EntryQuery(stream: "search"))
        }
        #expect(entries.map { "\($0.kind) \($0.caseName)" } == [
            "opened opened", "action updateQuery", "mutation setQuery", "mutation setRepos",
            "action updateQuery", "mutation setQuery", "error Failure",
        ])
        #expect(entries[2].cause == entries[1].sequence)
        #expect(entries[3].cause == entries[1].sequence)
        #expect(entries[6].cause == entries[4].sequence)
        let error = try log.decode(EffectErrorRecord.self, from: entries[6])
        #expect(error.message == "GitHub API rate limit exceeded for 'error'")
        #expect(try log.decode(GitHubSearchReactor.Action.self, from: entries[1]) == .updateQuery("swift"))
        #expect(reactor.currentState.query == "error")
        #expect(reactor.logFailure == nil)
    }

    @Test("an action and the mutations its effect emits at once share one time; a mutation the effect emits later has its own")
    func oneTimePerStepOfDispatch() async throws {
        final class SearchReactor: Reactor {
            enum Action: Codable, Sendable { case search, other }
            enum Mutation: Codable, Sendable { case setLoading(Bool), setResults(Int) }
            struct State: Codable, Sendable { var loading = false, results = 0 }
            let initialState = State()
            let runtime = Runtime()
            let gate: AsyncStream<Void>
            init(gate: AsyncStream<Void>) { self.gate = gate }
            func mutate(action: Action) -> Effect {
                guard action == .search else { return .just(.setResults(0)) }
                return .concat(.just(.setLoading(true)), .run { [gate] send in
                    for await _ in gate { break }
                    send(.setResults(3))
                    send(.setLoading(false))
                })
            }
            func reduce(state: State, mutation: Mutation) -> State {
                var state = state
                switch mutation {
                case let .setLoading(loading): state.loading = loading
                case let .setResults(count): state.results = count
                }
                return state
            }
        }
        let log = try openLog()
        let gate = AsyncStream<Void>.makeStream()
        let reactor = SearchReactor(gate: gate.stream)
        try reactor.attach(to: log, stream: "search")
        reactor.send(.search)
        reactor.send(.other)
        try await log.flush()
        let beforeTheEffectGoesOn = WallClock.now()
        gate.continuation.yield()
        _ = await reactor.state { !$0.loading }
        try await log.flush()
        let entries = try log.readEntries(EntryQuery(stream: "search", kinds: [.action, .mutation]))
        #expect(entries.map(\.caseName) == ["search", "setLoading", "other", "setResults", "setResults", "setLoading"])
        // The first step: the action and what its effect emitted before it awaited.
        #expect(entries[1].timestamp == entries[0].timestamp)
        // The next action is a step of its own, later, with its synchronous mutation.
        #expect(entries[2].timestamp > entries[0].timestamp)
        #expect(entries[3].timestamp == entries[2].timestamp)
        // What the effect emitted after the gate opened: a later step, not the action's time kept from before.
        #expect(entries[4].timestamp >= beforeTheEffectGoesOn)
        #expect(entries[5].timestamp >= entries[4].timestamp)
    }

    @Test("a mutation is in the log before the state it produces is published (write-ahead)")
    func writeAhead() throws {
        let log = try openLog()
        let reactor = TodoReactor()
        try reactor.attach(to: log, stream: "todo")
        let mismatches = Recorder<String>()
        let observation = reactor.observe { state in
            guard (try? log.flush()) != nil, let entries = try? log.readEntries(EntryQuery(stream: "todo", kinds: [.mutation])) else {
                mismatches.append("could not read the log")
                return
            }
            if entries.count != state.nextID - 1 { mismatches.append("\(entries.count) mutations for state \(state.nextID - 1)") }
        }
        for title in ["a", "b", "c"] { reactor.send(.add(title)) }
        #expect(mismatches.all.isEmpty)
        #expect(reactor.currentState.items.count == 3)
        observation.cancel()
    }

    @Test("a released reactor's stream resumes in a new reactor with an identical state, and replaying the log reproduces every published state")
    func resumeAndReplay() async throws {
        let log = try openLog(.every(mutations: 3))
        let published = Recorder<GitHubSearchReactor.State>()
        var finalState: GitHubSearchReactor.State?
        do {
            let reactor = GitHubSearchReactor(service: ScriptedSearchService())
            try reactor.attach(to: log, stream: "search")
            let observation = reactor.observe { published.append($0) }
            await playSession(reactor)
            finalState = reactor.currentState
            observation.cancel()
        }
        try await log.flush()

        let resumed = GitHubSearchReactor(service: ScriptedSearchService())
        try resumed.attach(to: log, stream: "search")
        #expect(resumed.currentState == finalState)

        // Fold every logged mutation through reduce, from the recorded initial state.
        let info = try #require(try log.stream(named: "search"))
        var state = try log.decode(GitHubSearchReactor.State.self, from: info.initialState, codec: info.initialStateCodec)
        var replayed = [state]
        var iterator = log.entries(EntryQuery(stream: "search", kinds: [.mutation]))
        while let entry = try iterator.next() {
            state = resumed.reduce(state: state, mutation: try log.decode(GitHubSearchReactor.Mutation.self, from: entry))
            replayed.append(state)
        }
        #expect(replayed == published.all)

        // Snapshots were written by the policy, and on release; each equals the state replayed at its step.
        let snapshots = try log.snapshotSequences(stream: "search")
        #expect(snapshots.count >= 4)
        let closed = try #require(try log.readEntries(EntryQuery(stream: "search", kinds: [.streamClosed])).last)
        #expect(snapshots.contains(closed.sequence))
        let atClose = try #require(try log.latestSnapshot(stream: "search", atOrBefore: closed.sequence))
        #expect(try log.decode(GitHubSearchReactor.State.self, from: atClose.state, codec: atClose.codec) == finalState)
    }

    @Test("a resumed stream continues the sequence and keeps logging")
    func resumedContinues() async throws {
        let log = try openLog()
        do {
            let reactor = TodoReactor()
            try reactor.attach(to: log, stream: "todo")
            reactor.send(.add("milk"))
        }
        let reactor = TodoReactor()
        try reactor.attach(to: log, stream: "todo")
        #expect(reactor.currentState.items.map(\.title) == ["milk"])
        reactor.send(.add("eggs"))
        try await log.flush()
        let kinds = try log.readEntries(EntryQuery(stream: "todo")).map(\.kind)
        #expect(kinds == [.streamOpened, .action, .mutation, .streamClosed, .streamResumed, .action, .mutation])
        #expect(try log.allSequencesAreGapless())
    }

    @Test("the redaction hook masks actions in the log; the reactor still gets the original")
    func redaction() async throws {
        let log = try openLog()
        let reactor = TodoReactor()
        try reactor.attach(to: log, stream: "todo") { action in
            if case let .add(title) = action, title.hasPrefix("password") { return .add("<redacted>") }
            return action
        }
        reactor.send(.add("password: hunter2"))
        #expect(reactor.currentState.items.first?.title == "password: hunter2")
        try await log.flush()
        let action = try #require(try log.readEntries(EntryQuery(kinds: [.action])).first)
        #expect(try log.decode(TodoReactor.Action.self, from: action) == .add("<redacted>"))
        // Mutations are logged as they are, because replay needs them (Todo's mutations are its actions).
        let mutation = try #require(try log.readEntries(EntryQuery(kinds: [.mutation])).first)
        #expect(try log.decode(TodoReactor.Action.self, from: mutation) == .add("password: hunter2"))
    }

    @Test("mutations merged from a global stream are logged without a cause")
    func mergedMutationsHaveNoCause() async throws {
        final class ClockReactor: Reactor {
            enum Action: Codable, Sendable { case reset }
            enum Mutation: Codable, Sendable { case tick, reset }
            struct State: Codable, Sendable { var ticks = 0 }
            let initialState = State()
            let runtime = Runtime()
            let ticks: AsyncStream<Void>
            init(ticks: AsyncStream<Void>) { self.ticks = ticks }
            func transform(mutation: Pipeline<Mutation>) -> Pipeline<Mutation> { mutation.merge(ticks.map { Mutation.tick }) }
            func mutate(action: Action) -> Effect { .just(.reset) }
            func reduce(state: State, mutation: Mutation) -> State { State(ticks: mutation == .tick ? state.ticks + 1 : 0) }
        }
        let log = try openLog()
        let ticks = AsyncStream<Void>.makeStream()
        let reactor = ClockReactor(ticks: ticks.stream)
        try reactor.attach(to: log, stream: "clock")
        reactor.send(.reset)
        ticks.continuation.yield()
        _ = await reactor.state { $0.ticks == 1 }
        try await log.flush()
        let mutations = try log.readEntries(EntryQuery(kinds: [.mutation]))
        #expect(mutations.map(\.caseName) == ["reset", "tick"])
        #expect(mutations[0].cause != nil)
        #expect(mutations[1].cause == nil)
    }

    @Test("a log that fills up stops recording, never the reactor: it keeps working in memory and says why, and the next attach resumes from what was committed")
    func logFillsUp() throws {
        var configuration = EventLogConfiguration()
        configuration.initialMapSize = 64 << 10
        configuration.maxMapSize = 256 << 10
        let reported = Recorder<EventLogError>()
        configuration.onWriteFailure = { reported.append($0) }
        let path = scratch.file("full.reactorlog")
        let log = try EventLog.open(at: path, configuration: configuration)
        // The README's counter: one mutation an action, reduced at once.
        let reactor = Readme.CounterReactor()
        try reactor.attach(to: log, stream: "counter")
        var sent = 0
        // The writer finds the map full; the sender learns it at its next append.
        while reactor.logFailure == nil && sent < 1_000_000 {
            reactor.send(.increase)
            sent += 1
        }
        for _ in 0..<10_000 { reactor.send(.increase) }
        #expect(reactor.currentState.value == sent + 10_000)
        guard case .writeFailed(_, let lastCommitted, _, _)? = reactor.logFailure else {
            Issue.record("the reactor's failure is \(String(describing: reactor.logFailure)), not writeFailed")
            return
        }
        #expect(reported.count == 1)
        #expect(throws: EventLogError.self) { try log.flush() }
        // A retry meets the same full map: it throws, the log stays stopped, and the stop is not reported again.
        #expect(throws: EventLogError.self) { try log.resumeWriting() }
        #expect(log.writeFailure != nil && reported.count == 1)
        #expect(throws: EventLogError.self) { try log.close() }

        let written = try EventLog.openReadOnly(at: path)
        #expect(try written.highestSequence() == lastCommitted)
        #expect(try written.verify().isHealthy)
        let committed = try written.readEntries(EntryQuery(stream: "counter", kinds: [.mutation])).count
        #expect(committed > 0 && committed < sent)

        var roomier = EventLogConfiguration()
        roomier.maxMapSize = 4 << 20
        let reopened = try EventLog.open(at: path, configuration: roomier)
        let resumed = Readme.CounterReactor()
        try resumed.attach(to: reopened, stream: "counter")
        #expect(resumed.currentState.value == committed)
        resumed.send(.increase)
        try reopened.flush()
        #expect(resumed.logFailure == nil)
        #expect(try reopened.highestSequence() > lastCommitted)
        try reopened.close()
    }

    @Test("attaching after first use, or a second reactor to an open stream, is refused with a sentence")
    func misuse() throws {
        let log = try openLog()
        let started = TodoReactor()
        started.send(.add("x"))
        let late = #expect(throws: EventLogError.self) { try started.attach(to: log, stream: "todo") }
        #expect(late?.description.contains("before its first use") == true)
        let first = TodoReactor()
        try first.attach(to: log, stream: "todo")
        #expect(throws: EventLogError.streamInUse(name: "todo")) { try TodoReactor().attach(to: log, stream: "todo") }
        _ = first
    }
}

extension EventLog {
    /// Whether the log's sequence numbers run from 1 without a gap.
    func allSequencesAreGapless() throws -> Bool {
        let sequences = try readEntries().map(\.sequence)
        return sequences == Array(1..<UInt64(sequences.count + 1))
    }
}

import Clocks
import EventLogKit
import ReactorLog
import ReactorLogPersistence
import ReactorLogTesting
import TestSupport
import Testing

/// Each recorded action knows where it was sent from.
@Suite("Call sites", .timeLimit(.minutes(3)))
struct CallSiteTests {
    typealias QueryReactor = TimingOperatorTests.QueryReactor

    @Test("an action records its send's file and line; one a debounce lets through, the last send that went in; an outside source's, none")
    @MainActor
    func callSites() async throws {
        let clock = TestClock()
        let reactor = QueryReactor(clock: clock, mode: .debounce)
        let recorder = MemoryRecorder<QueryReactor.Action, QueryReactor.Mutation, QueryReactor.State>()
        try reactor.record(with: recorder)
        let clearLine = UInt(#line + 1)
        reactor.send(.clear)
        reactor.send(.updateQuery("s"))
        let lastLine = UInt(#line + 1)
        reactor.send(.updateQuery("sw"))
        // The debounce runs in a task of its own: once it sleeps on the clock (it has taken the queries, which takes a
        // moment on a busy machine), pass its interval and wait for the query it lets through.
        while (try? await clock.checkSuspension()) != nil {}
        await clock.advance(by: .milliseconds(300))
        _ = await reactor.state { $0.query == "sw" }
        #expect(recorder.entries.count == 4)
        // #1 clear, #2 its mutation, #3 the debounced query, #4 its mutation.
        #expect(recorder.callSite(of: 1)?.line == clearLine)
        #expect("\(recorder.callSite(of: 1).map(String.init(describing:)) ?? "")" == "ReactorLogTests/CallSiteTests.swift:\(clearLine)")
        #expect(recorder.callSite(of: 3)?.line == lastLine, "the debounced action is the last one sent")
        #expect(recorder.callSite(of: 2) == nil, "mutations have no call site")

        let (actions, source) = AsyncStream<QueryReactor.Action>.makeStream()
        let observation = reactor.send(contentsOf: actions)
        source.yield(.clear)
        _ = await reactor.state { $0.query.isEmpty }
        #expect(recorder.entries.count == 6)
        #expect(recorder.callSite(of: 5) == nil, "an outside action source has no call site")
        observation.cancel()
    }

    @Test("a recorded log keeps each action's own call site among 130 lines sent from in turn, across commits")
    func manySitesInALog() throws {
        typealias TallyReactor = DamagedResumeTests.TallyReactor
        let scratch = ScratchDirectory()
        let log = try EventLog.open(at: scratch.file("sites.reactorlog"))
        let reactor = TallyReactor()
        try reactor.attach(to: log, stream: "tally")
        // Lines that share the writer's slots for recent sites (130 lines, 64 slots), in an order that comes back to
        // each, flushed now and then so that sites learned in one commit are looked up in later ones.
        let lines = (0..<400).map { UInt(1_000 + ($0 * 7) % 130) }
        for (index, line) in lines.enumerated() {
            reactor.send(.add(index), fileID: #fileID, line: line)
            if index % 50 == 49 { try log.flush() }
        }
        try log.flush()
        let actions = Array(try log.readEntries(EntryQuery(stream: "tally", kinds: [.action])))
        #expect(actions.count == lines.count)
        for (action, line) in zip(actions, lines) {
            #expect(try log.callSite(at: action.sequence) == "ReactorLogTests/CallSiteTests.swift:\(line)")
        }
    }
}

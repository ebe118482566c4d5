import Clocks
import ReactorLog
import ReactorLogTesting
import Testing

/// Each recorded action knows where it was sent from.
@Suite("Call sites", .timeLimit(.minutes(1)))
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
        // The debounce runs in a task of its own: advance its clock until it has let the query through (it sleeps
        // on the clock only once it has taken the values, which takes a moment on a busy machine).
        for _ in 0..<100_000 where recorder.entries.count < 4 {
            await clock.advance(by: .milliseconds(300))
            await Task.yield()
        }
        #expect(recorder.entries.count == 4)
        // #1 clear, #2 its mutation, #3 the debounced query, #4 its mutation.
        #expect(recorder.callSite(of: 1)?.line == clearLine)
        #expect("\(recorder.callSite(of: 1).map(String.init(describing:)) ?? "")" == "ReactorLogTests/CallSiteTests.swift:\(clearLine)")
        #expect(recorder.callSite(of: 3)?.line == lastLine, "the debounced action is the last one sent")
        #expect(recorder.callSite(of: 2) == nil, "mutations have no call site")

        let (actions, source) = AsyncStream<QueryReactor.Action>.makeStream()
        let observation = reactor.send(contentsOf: actions)
        source.yield(.clear)
        for _ in 0..<100_000 where recorder.entries.count < 6 { await Task.yield() }
        #expect(recorder.entries.count == 6)
        #expect(recorder.callSite(of: 5) == nil, "an outside action source has no call site")
        observation.cancel()
    }
}

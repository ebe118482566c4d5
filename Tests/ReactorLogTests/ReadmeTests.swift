import EventLogKit
import ReactorLog
import ReactorLogPersistence
import TestSupport
import Testing

/// The README's reactor, verbatim inside a namespace (the examples module has a CounterReactor too; `readmeIsVerbatim`
/// checks that it is).
enum Readme {
    final class CounterReactor: Reactor {
        enum Action: Codable, Sendable { case increase }
        enum Mutation: Codable, Sendable { case increaseValue }
        struct State: Codable, Sendable { var value = 0 }

        let initialState = State()
        let runtime = Runtime()

        func mutate(action: Action) -> Effect { .just(.increaseValue) }
        func reduce(state: State, mutation: Mutation) -> State { State(value: state.value + 1) }
    }
}

@Suite("README reactor")
struct ReadmeTests {
    @Test("the README's reactor is this file's, verbatim")
    func readmeIsVerbatim() throws {
        let block = try #require(try DocumentedCode.swiftBlocks(of: "README.md", after: "## A reactor, recorded").first)
        // The reactor, without the lines after it, which open a log at a fixed path (the test opens one in a scratch
        // directory).
        let reactor = try #require(block.range(of: "\n}\n").map { block[..<$0.upperBound] })
        #expect(reactor.contains("final class CounterReactor: Reactor {"))
        #expect(DocumentedCode.holds(try DocumentedCode.file("Tests/ReactorLogTests/ReadmeTests.swift"), reactor), "\(reactor)")
    }

    @Test("the README's recorded counter counts, and a second run resumes from the log")
    func recordedCounter() throws {
        let scratch = ScratchDirectory()
        let log = try EventLog.open(at: scratch.file("counter.reactorlog"))
        do {
            let reactor = Readme.CounterReactor()
            try reactor.attach(to: log, stream: "counter")
            reactor.send(.increase)
            #expect(reactor.currentState.value == 1)
        }
        let reactor = Readme.CounterReactor()
        try reactor.attach(to: log, stream: "counter")
        reactor.send(.increase)
        #expect(reactor.currentState.value == 2)
    }
}

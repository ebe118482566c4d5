import EventLogKit
import ReactorLog
import ReactorLogPersistence
import TestSupport
import Testing

/// The README's reactor, verbatim inside a namespace (the examples module has a CounterReactor too).
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

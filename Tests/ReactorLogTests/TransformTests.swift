import ReactorLog
import TestSupport
import Testing

/// The seed's three uses of `transform`.
@Suite("Transforms", .timeLimit(.minutes(3)))
struct TransformTests {
    final class UserReactor: Reactor {
        enum Action: Sendable, CustomStringConvertible {
            case rename(String)
            var description: String { if case let .rename(name) = self { "rename(\(name))" } else { "" } }
        }
        enum Mutation: Sendable { case setName(String), setUser(String) }
        struct State: Sendable { var name = "", user = "", title = "" }
        let initialState = State()
        let runtime = Runtime()
        let printed = Recorder<String>()
        let currentUser: AsyncStream<String>

        init(currentUser: AsyncStream<String>) { self.currentUser = currentUser }

        func transform(action: Pipeline<Action>) -> Pipeline<Action> {
            action.debug("action", print: { [printed] in printed.append($0) })
        }
        func transform(mutation: Pipeline<Mutation>) -> Pipeline<Mutation> {
            mutation.merge(currentUser.map(Mutation.setUser))
        }
        func transform(state: Pipeline<State>) -> Pipeline<State> {
            state.map { state in
                var state = state
                state.title = state.name.uppercased()
                return state
            }
        }
        func mutate(action: Action) -> Effect {
            guard case let .rename(name) = action else { return .none }
            return .just(.setName(name))
        }
        func reduce(state: State, mutation: Mutation) -> State {
            var state = state
            switch mutation {
            case let .setName(name): state.name = name
            case let .setUser(user): state.user = user
            }
            return state
        }
    }

    @Test("debug-logging every action prints RxSwift-style lines")
    func debugActions() {
        let reactor = UserReactor(currentUser: AsyncStream { $0.finish() })
        reactor.send(.rename("ann"))
        let line = reactor.printed.all.first ?? ""
        #expect(line.hasSuffix(": action -> rename(ann)"))
        #expect(line.wholeMatch(of: /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}: action -> rename\(ann\)/) != nil)
    }

    @Test("a global event stream merged into the mutations is reduced as it comes")
    func mergedStream() async {
        let users = AsyncStream<String>.makeStream()
        let reactor = UserReactor(currentUser: users.stream)
        _ = reactor.currentState
        users.continuation.yield("devxoul")
        #expect(await reactor.state { $0.user == "devxoul" } != nil)
        users.continuation.yield("kzaher")
        #expect(await reactor.state { $0.user == "kzaher" } != nil)
    }

    @Test("the state stream is transformed, the initial state included")
    func stateTransform() {
        let reactor = UserReactor(currentUser: AsyncStream { $0.finish() })
        reactor.send(.rename("ann"))
        #expect(reactor.currentState.title == "ANN")
    }
}

import ReactorLog
import TestSupport
import Testing

@Suite("Effects", .timeLimit(.minutes(3)))
struct EffectTests {
    /// Each action returns the effect the test puts in `next`; mutations append to a list.
    final class ScriptReactor: Reactor {
        enum Action: Sendable, Equatable { case run, stop, other }
        enum Mutation: Sendable, Equatable { case add(String) }
        struct State: Sendable { var log: [String] = [] }
        let initialState = State()
        let runtime = Runtime()
        let effects: @Sendable (Action) -> Effect
        init(_ effects: @escaping @Sendable (Action) -> Effect) { self.effects = effects }
        func mutate(action: Action) -> Effect { effects(action) }
        func reduce(state: State, mutation: Mutation) -> State {
            guard case let .add(text) = mutation else { return state }
            return State(log: state.log + [text])
        }
    }

    @Test("just, several in order, and none are all reduced before send returns")
    func synchronous() {
        let reactor = ScriptReactor { action in
            action == .run ? .just(.add("a"), .add("b")) : .none
        }
        reactor.send(.run)
        #expect(reactor.currentState.log == ["a", "b"])
        reactor.send(.other)
        #expect(reactor.currentState.log == ["a", "b"])
    }

    @Test("concat runs its synchronous start now and the rest in order after the async part")
    func concat() async {
        // The async part waits for the test, so that nothing but the synchronous start can have run at the check.
        let (gate, open) = AsyncStream<Void>.makeStream()
        let reactor = ScriptReactor { _ in
            .concat(.just(.add("now")), .run { send in
                for await _ in gate { break }
                send(.add("async"))
            }, .just(.add("after")))
        }
        reactor.send(.run)
        #expect(reactor.currentState.log == ["now"])
        open.yield()
        let state = await reactor.state { $0.log.count == 3 }
        #expect(state?.log == ["now", "async", "after"])
    }

    @Test("merge runs effects concurrently and emits all their mutations")
    func merge() async {
        let gate = AsyncStream<Void>.makeStream()
        let reactor = ScriptReactor { _ in
            .merge(
                .run { send in
                    for await _ in gate.stream { break }
                    send(.add("waited"))
                },
                .run { send in
                    send(.add("first"))
                    gate.continuation.yield()
                })
        }
        reactor.send(.run)
        let state = await reactor.state { $0.log.count == 2 }
        #expect(state?.log == ["first", "waited"])
    }

    @Test("an async sequence becomes mutations, in order")
    func sequence() async {
        let reactor = ScriptReactor { _ in
            .sequence(AsyncStream { continuation in
                for text in ["x", "y", "z"] { continuation.yield(EffectTests.ScriptReactor.Mutation.add(text)) }
                continuation.finish()
            })
        }
        reactor.send(.run)
        #expect(await reactor.state { $0.log.count == 3 }?.log == ["x", "y", "z"])
    }

    @Test("take(until:) stops a ticking effect at the stop action, and the concat goes on (the stopwatch)")
    func takeUntil() async {
        let ticks = AsyncStream<Void>.makeStream()
        let reactor = ScriptReactor { action in
            switch action {
            case .run:
                .concat(
                    .run { send in
                        for await _ in ticks.stream { send(.add("tick")) }
                    }
                    .take(until: { (action: ScriptReactor.Action) in action == .stop }),
                    .just(.add("stopped")))
            case .stop, .other: .none
            }
        }
        reactor.send(.run)
        ticks.continuation.yield()
        _ = await reactor.state { $0.log == ["tick"] }
        ticks.continuation.yield()
        _ = await reactor.state { $0.log == ["tick", "tick"] }
        reactor.send(.other)
        reactor.send(.stop)
        _ = await reactor.state { $0.log.last == "stopped" }
        ticks.continuation.yield()
        reactor.send(.other)
        #expect(reactor.currentState.log == ["tick", "tick", "stopped"])
    }

    @Test("cancel(id:) stops a cancellable effect; cancelInFlight replaces the running one")
    func cancellation() async {
        let firstCancelled = Signal()
        let reactor = ScriptReactor { action in
            switch action {
            case .run:
                .run { send in
                    send(.add("started"))
                    do {
                        try await Task.sleep(for: .seconds(3600))
                    } catch {
                        firstCancelled.fire()
                        throw error
                    }
                    send(.add("never"))
                }
                .cancellable(id: "search", cancelInFlight: true)
            case .stop:
                .cancel(id: "search")
            case .other:
                .none
            }
        }
        reactor.send(.run)
        _ = await reactor.state { $0.log.count == 1 }
        reactor.send(.run)
        await firstCancelled.wait()
        _ = await reactor.state { $0.log.count == 2 }
        reactor.send(.stop)
        await firstCancelled.wait()
        reactor.send(.other)
        #expect(reactor.currentState.log == ["started", "started"])
    }

    @Test("map turns an effect's mutations into another type, synchronous and async parts alike")
    func map() async {
        struct Wrapped: Sendable, Equatable { let text: String }
        let effect = ReactorEffect<ScriptReactor.Action, String>.concat(.just("a"), .run { send in send("b") }).map { Wrapped(text: $0) }
        let reactor = ScriptReactor { _ in effect.map { .add($0.text) } }
        reactor.send(.run)
        #expect(await reactor.state { $0.log.count == 2 }?.log == ["a", "b"])
    }
}

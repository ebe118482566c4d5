import Dispatch
import Foundation
import ReactorLog
import ReactorLogTesting
import Synchronization
import TestSupport
import Testing

/// The dispatch rules: no thread waits for another's user code, one total order, schedulers.
@Suite("Isolation and dispatch", .timeLimit(.minutes(3)))
struct IsolationTests {
    /// Adds one per mutation; its `reduce` can be made to wait for a gate, on the first mutation only.
    final class GatedReactor: Reactor {
        enum Action: Sendable, Equatable { case add(Int) }
        enum Mutation: Sendable, Equatable { case add(Int) }
        struct State: Sendable { var values: [Int] = [] }
        let initialState = State()
        let runtime = Runtime()
        let gate = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let holdFirst: Bool
        let reduced = Recorder<Int>()
        init(holdFirst: Bool = false) { self.holdFirst = holdFirst }
        func mutate(action: Action) -> Effect {
            guard case let .add(value) = action else { return .none }
            return .just(.add(value))
        }
        func reduce(state: State, mutation: Mutation) -> State {
            guard case let .add(value) = mutation else { return state }
            if holdFirst && state.values.isEmpty {
                entered.signal()
                gate.wait()
            }
            reduced.append(value)
            return State(values: state.values + [value])
        }
    }

    /// Starts `body` on a thread of its own (not the cooperative pool) and returns when it has finished.
    static func onThread(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread {
                body()
                done.resume()
            }.start()
        }
    }

    @Test("no cooperative-pool thread blocks: sends return while another thread's reduce is still running")
    func poolNeverBlocks() async {
        let reactor = GatedReactor(holdFirst: true)
        let first = Task { await Self.onThread { reactor.send(.add(0)) } }
        reactor.entered.wait()
        // reduce of #0 is running and holds. Every pool thread now sends; were a send to wait for that
        // reduce, the group below could never finish, since the gate opens only after it.
        await withTaskGroup(of: Void.self) { group in
            for task in 1...16 {
                group.addTask { for step in 0..<20 { reactor.send(.add(task * 100 + step)) } }
            }
        }
        #expect(reactor.reduced.all.isEmpty)  // every send was queued behind the held reduce
        reactor.gate.signal()
        await first.value
        #expect(reactor.currentState.values.count == 1 + 16 * 20)
    }

    @Test("an observer that waits for another thread sending to the same reactor does not deadlock")
    func observerWaitingForSender() async {
        let reactor = GatedReactor()
        let seen = Recorder<[Int]>()
        let observation = reactor.observe { [unowned reactor] state in
            seen.append(state.values)
            guard state.values == [1] else { return }
            let sent = DispatchSemaphore(value: 0)
            Thread {
                reactor.send(.add(2))
                sent.signal()
            }.start()
            sent.wait()
        }
        await Self.onThread { reactor.send(.add(1)) }
        #expect(seen.all == [[], [1], [1, 2]])
        observation.cancel()
    }

    @Test("one total order: the recorder sees exactly reduce's order, under concurrent senders")
    func recorderOrderIsReduceOrder() async throws {
        let reactor = GatedReactor()
        let recorder = MemoryRecorder<GatedReactor.Action, GatedReactor.Mutation, GatedReactor.State>()
        try reactor.record(with: recorder)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask { for step in 0..<250 { reactor.send(.add(task * 1000 + step)) } }
            }
        }
        let recorded = recorder.entries.compactMap { entry -> Int? in
            if case let .mutation(.add(value), _, _) = entry { value } else { nil }
        }
        #expect(recorded.count == 2000)
        #expect(recorded == reactor.reduced.all)
        #expect(reactor.currentState.values == recorded)
        // Each mutation directly follows the action that caused it, and names it.
        let entries = recorder.entries
        for (index, entry) in entries.enumerated() {
            guard case let .mutation(.add(value), _, cause) = entry else { continue }
            guard case let .action(.add(actionValue), sequence) = entries[index - 1] else {
                Issue.record("mutation \(value) does not follow its action")
                continue
            }
            #expect(actionValue == value)
            #expect(cause == sequence)
        }
    }

    /// An actor a reactor can be scheduled on, as one per server session.
    actor Session {
        func send(_ reactor: ScheduledReactor, _ value: Int) -> [Int] {
            reactor.send(.add(value))
            return reactor.currentState.values
        }
    }

    /// Scheduled on a `Session` actor; checks in `reduce` that it runs there.
    final class ScheduledReactor: Reactor {
        enum Action: Sendable { case add(Int) }
        typealias Mutation = Action
        struct State: Sendable { var values: [Int] = [] }
        let initialState = State()
        let runtime = Runtime()
        let session: Session
        let isolated = Recorder<Bool>()
        init(session: Session) { self.session = session }
        var scheduler: ReactorScheduler { .actor(session) }
        func reduce(state: State, mutation: Action) -> State {
            session.assertIsolated()
            isolated.append(true)
            guard case let .add(value) = mutation else { return state }
            return State(values: state.values + [value])
        }
    }

    @Test("an actor scheduler: inside the actor send is synchronous; from outside it hops, never running reduce elsewhere")
    func actorScheduler() async {
        let session = Session()
        let reactor = ScheduledReactor(session: session)
        #expect(await session.send(reactor, 1) == [1])
        await Self.onThread { reactor.send(.add(2)) }
        await withTaskGroup(of: Void.self) { group in
            for value in 3...10 { group.addTask { reactor.send(.add(value)) } }
        }
        let state = await reactor.state { $0.values.count == 10 }
        #expect(state?.values.sorted() == Array(1...10))
        #expect(reactor.isolated.count == 10)
    }

    /// Scheduled on the main actor, like a UI reactor.
    final class MainReactor: Reactor {
        enum Action: Sendable { case add }
        typealias Mutation = Action
        struct State: Sendable { var count = 0 }
        let initialState = State()
        let runtime = Runtime()
        var scheduler: ReactorScheduler { .mainActor }
        func reduce(state: State, mutation: Action) -> State {
            MainActor.assertIsolated()
            return State(count: state.count + 1)
        }
    }

    @Test("the main-actor scheduler: synchronous from the main actor, delivered there from a background task")
    @MainActor
    func mainActorScheduler() async {
        let reactor = MainReactor()
        reactor.send(.add)
        #expect(reactor.currentState.count == 1)
        await Task.detached { reactor.send(.add) }.value
        let state = await reactor.state { $0.count == 2 }
        #expect(state?.count == 2)
    }
}

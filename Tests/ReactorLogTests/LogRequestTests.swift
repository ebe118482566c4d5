import EventLogKit
import Foundation
import ReactorLog
import ReactorLogPersistence
import TestSupport
import TimeTravel
import Testing

/// A log asks the reactors it records for their states: at a checkpoint, and when it closes while they are still alive
/// (each idle one closes its stream with its last state, as its release would have), so that a short session keeps
/// more than its initial state.
@Suite("A log asks its reactors for their states", .timeLimit(.minutes(3)))
struct LogRequestTests {
    let scratch = ScratchDirectory()

    /// Adds numbers; its published state also carries a label that `transform(state:)` derives, which the log must not
    /// hold (replay rebuilds what `reduce` produced).
    final class Tally: Reactor {
        enum Action: Codable, Sendable { case add(Int) }
        enum Mutation: Codable, Sendable { case add(Int) }
        struct State: Codable, Sendable, Equatable {
            var total = 0
            var label = ""
        }

        let initialState = State()
        let runtime = Runtime()
        let scheduler: ReactorScheduler

        init(scheduler: ReactorScheduler = .immediate) {
            self.scheduler = scheduler
        }

        func mutate(action: Action) -> Effect {
            guard case let .add(n) = action else { return .none }
            return .just(.add(n))
        }
        func reduce(state: State, mutation: Mutation) -> State {
            guard case let .add(n) = mutation else { return state }
            var state = state
            state.total += n
            return state
        }
        func transform(state: Pipeline<State>) -> Pipeline<State> {
            state.map { state in
                var state = state
                state.label = "total \(state.total)"
                return state
            }
        }
    }

    /// A new log at `file` in the scratch directory, with a ``Tally`` on `scheduler` recorded in its stream "tally".
    func recordedTally(
        _ file: String, scheduler: ReactorScheduler = .immediate
    ) throws -> (path: String, log: EventLog, tally: Tally) {
        let path = scratch.file(file)
        let log = try EventLog.open(at: path)
        let tally = Tally(scheduler: scheduler)
        try tally.attach(to: log, stream: "tally")
        return (path, log, tally)
    }

    /// The state `reader` holds for `stream` right after `sequence`, decoded; `nil` when it holds none there.
    func recordedState(_ reader: EventLog, stream: String = "tally", at sequence: UInt64) throws -> Tally.State? {
        guard let snapshot = try reader.snapshot(stream: stream, at: sequence) else { return nil }
        return try reader.decode(Tally.State.self, from: snapshot.state, codec: snapshot.codec)
    }

    /// The sequence numbers of the mutations `reader` holds in stream "tally", in order.
    func mutationSequences(_ reader: EventLog) throws -> [UInt64] {
        try reader.sequences(stream: "tally", kinds: [.mutation], from: 1, through: .max)
    }

    func entries(_ path: String, stream: String) throws -> [LogEntry] {
        let log = try EventLog.openReadOnly(at: path)
        defer { try? log.close() }
        return try log.readEntries(EntryQuery(stream: stream))
    }

    @Test("a checkpoint records each idle reactor's reduced state after its latest entry, committed, once; recording goes on")
    func checkpoint() async throws {
        let path = scratch.file("checkpoint.reactorlog")
        let log = try EventLog.open(at: path)
        let tally = Tally(), unused = Tally()
        try tally.attach(to: log, stream: "tally")
        try unused.attach(to: log, stream: "unused")
        for n in 1...3 { tally.send(.add(n)) }
        try await log.checkpoint()
        // Committed when it returns: another reader sees it.
        let first = try EventLog.openReadOnly(at: path)
        let mutations = try mutationSequences(first)
        try #require(mutations.count == 3)
        #expect(try first.snapshotSequences(stream: "tally") == [mutations[2]])
        #expect(try recordedState(first, at: mutations[2]) == Tally.State(total: 6, label: ""))
        #expect(try first.snapshotSequences(stream: "unused").isEmpty)
        try first.close()

        try await log.checkpoint()
        tally.send(.add(4))
        try await log.checkpoint()
        let second = try EventLog.openReadOnly(at: path)
        #expect(try second.snapshotSequences(stream: "tally").count == 2, "nothing new at the second checkpoint; the fourth mutation at the third")
        #expect(try second.readEntries(EntryQuery(stream: "tally")).last?.kind == .mutation, "the stream stays open")
        try second.close()
        tally.send(.add(5))
        try await log.flush()
        #expect(tally.logFailure == nil)
        #expect(try log.readEntries(EntryQuery(stream: "tally", kinds: [.mutation])).count == 5)
        try log.close()
    }

    @Test("an app killed after a checkpoint leaves a log whose latest state reads without the reducer")
    func killedAfterCheckpoint() throws {
        let log = try EventLog.open(at: scratch.file("app.reactorlog"))
        let tally = Tally()
        try tally.attach(to: log, stream: "tally")
        for n in 1...10 { tally.send(.add(n)) }
        try log.checkpoint()
        let killed = scratch.file("killed.reactorlog")
        try ScratchDirectory.copyLog(at: log.path, to: killed)   // what a killed app leaves
        try log.close()

        let machine = try TimeMachine(log: try EventLog.openReadOnly(at: killed), stream: "tally", replayer: RecordedStates())
        #expect(try machine.json(at: try machine.lastStep())["total"] == .number(55))
    }

    @Test("closing the log closes each idle reactor's stream with a snapshot of its reduced state; the reactor works on in memory")
    func idleReactorsKeepTheirLastState() throws {
        let path = scratch.file("close.reactorlog")
        let log = try EventLog.open(at: path)
        let first = Tally(), second = Tally(), unused = Tally()
        try first.attach(to: log, stream: "first")
        try second.attach(to: log, stream: "second")
        try unused.attach(to: log, stream: "unused")
        for n in 1...3 { first.send(.add(n)) }
        second.send(.add(10))
        try log.close()

        for (name, reactor) in [("first", first), ("second", second)] {
            let recorded = try entries(path, stream: name)
            let last = try #require(recorded.last)
            #expect(last.kind == .streamClosed, "\(name): \(recorded.map(\.kind))")
            let reader = try EventLog.openReadOnly(at: path)
            let state = try #require(try recordedState(reader, stream: name, at: last.sequence))
            // `reduce`'s state, not the published one `transform(state:)` labels.
            #expect(state == Tally.State(total: reactor.currentState.total, label: ""))
            #expect(reactor.currentState.label == "total \(state.total)")
            try reader.close()
        }
        // The streams were closed in the order they were made.
        let closings = try EventLog.openReadOnly(at: path).readEntries(EntryQuery(kinds: [.streamClosed]))
        #expect(closings.map(\.stream) == ["first", "second"])
        // A reactor never used has nothing to keep: its stream holds its initial state already.
        #expect(try entries(path, stream: "unused").map(\.kind) == [.streamOpened])

        // Sending on works in memory; the log says it is no longer recorded.
        first.send(.add(4))
        #expect(first.currentState.total == 10)
        #expect(first.logFailure.map { "\($0)".contains("closed") } == true)
        #expect(try entries(path, stream: "first").last?.kind == .streamClosed)
    }

    @Test("the next run resumes from the state the closed log kept")
    func resumesFromTheKeptState() throws {
        let path = scratch.file("resume.reactorlog")
        do {
            let log = try EventLog.open(at: path)
            let tally = Tally()
            try tally.attach(to: log, stream: "tally")
            for n in 1...5 { tally.send(.add(n)) }
            try log.close()
            _ = tally
        }
        let log = try EventLog.open(at: path)
        let snapshots = try log.snapshotSequences(stream: "tally")
        #expect(snapshots.count == 1)
        let tally = Tally()
        try tally.attach(to: log, stream: "tally")
        #expect(tally.currentState.total == 15)
        try log.close()
    }

    @Test("a main-actor reactor's state is kept when its log closes on another thread, and it dispatches on afterwards")
    @MainActor func mainActorReactor() async throws {
        let (path, log, tally) = try recordedTally("main.reactorlog", scheduler: .mainActor)
        tally.send(.add(2))
        try await Task.detached { try log.close() }.value
        let reader = try EventLog.openReadOnly(at: path)
        let last = try #require(try reader.readEntries(EntryQuery(stream: "tally")).last)
        #expect(try recordedState(reader, at: last.sequence)?.total == 2)
        // Dispatch was handed back: a send in the scheduler's isolation is handled at once, as before.
        tally.send(.add(3))
        #expect(tally.currentState.total == 5)
    }

    @Test("a log closed while another thread sends keeps, at the closed entry, the state after every mutation before it")
    func closedWhileSending() async throws {
        // Whether a close finds the reactor between two sends is up to the threads: rounds go on until two did.
        var kept = 0
        for round in 1...40 where kept < 2 {
            let path = scratch.file("sending-\(round).reactorlog")
            let log = try EventLog.open(at: path)
            let tally = Tally()
            try tally.attach(to: log, stream: "tally")
            let sender = Task.detached { for _ in 1...10_000 { tally.send(.add(1)) } }
            _ = await tally.state { $0.total >= 500 }
            try log.close()
            await sender.value
            let recorded = try entries(path, stream: "tally")
            // Busy at that moment, the reactor kept no state there: nothing to check in this round.
            guard let closed = recorded.last(where: { $0.kind == .streamClosed }) else { continue }
            kept += 1
            let reader = try EventLog.openReadOnly(at: path)
            let state = try #require(try recordedState(reader, at: closed.sequence))
            #expect(state.total == recorded.filter { $0.kind == .mutation && $0.sequence < closed.sequence }.count, "round \(round)")
            #expect(recorded.last?.sequence == closed.sequence, "nothing is recorded after the closed entry")
            try reader.close()
        }
        #expect(kept > 0, "the reactor was idle at some close")
    }

    @Test("a reactor in the middle of dispatch when its log closes is not waited for: it keeps the snapshots written before")
    func busyReactorIsNotWaitedFor() throws {
        let (path, log, tally) = try recordedTally("busy.reactorlog")
        // Closed from inside dispatch (an observer), where waiting for dispatch to end would never return.
        let observation = tally.observe { state in if state.total == 3 { try? log.close() } }
        tally.send(.add(1))
        tally.send(.add(2))
        #expect(tally.currentState.total == 3)
        let kinds = try entries(path, stream: "tally").map(\.kind)
        #expect(kinds == [.streamOpened, .action, .mutation, .action, .mutation])
        #expect(try EventLog.openReadOnly(at: path).snapshotSequences(stream: "tally").isEmpty)
        observation.cancel()
    }

    @Test("a checkpoint that finds the reactor dispatching on another thread returns at once; the state is recorded when that dispatch ends")
    func checkpointDuringDispatchElsewhere() throws {
        let (path, log, tally) = try recordedTally("elsewhere.reactorlog")
        tally.send(.add(1))
        let entered = DispatchSemaphore(value: 0), resume = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        // Holds the sending thread inside dispatch, in an observer of the state the second send made.
        let observation = tally.observe { state in
            guard state.total == 3 else { return }
            entered.signal()
            resume.wait()
        }
        Thread { tally.send(.add(2)); done.signal() }.start()
        entered.wait()
        try log.checkpoint()   // returns while the other thread still dispatches: waiting for it would never return
        #expect(try EventLog.openReadOnly(at: path).snapshotSequences(stream: "tally").isEmpty)
        resume.signal()
        done.wait()
        try log.flush()
        let reader = try EventLog.openReadOnly(at: path)
        let mutations = try mutationSequences(reader)
        try #require(mutations.count == 2)
        #expect(try reader.snapshotSequences(stream: "tally") == [mutations[1]])
        #expect(try recordedState(reader, at: mutations[1])?.total == 3)
        try reader.close()
        observation.cancel()
        try log.close()
    }

    @Test("a checkpoint asked from inside the reactor's own dispatch records its state after the work under way")
    func checkpointFromInsideDispatch() throws {
        let (path, log, tally) = try recordedTally("inside.reactorlog")
        let observation = tally.observe { state in if state.total == 3 { try? log.checkpoint() } }
        tally.send(.add(1))
        tally.send(.add(2))
        tally.send(.add(3))
        try log.flush()
        let reader = try EventLog.openReadOnly(at: path)
        let mutations = try mutationSequences(reader)
        try #require(mutations.count == 3)
        // At the second mutation, the one whose state asked: not at the third, sent after the checkpoint ran.
        #expect(try reader.snapshotSequences(stream: "tally") == [mutations[1]])
        #expect(try recordedState(reader, at: mutations[1]) == Tally.State(total: 3, label: ""))
        try reader.close()
        observation.cancel()
        try log.close()
    }

    @Test("a main-actor reactor dispatching when another thread checkpoints records its state once that dispatch ends")
    @MainActor func mainActorCheckpoint() async throws {
        let (path, log, tally) = try recordedTally("main-checkpoint.reactorlog", scheduler: .mainActor)
        let answered = DispatchSemaphore(value: 0)
        // The main actor stays in dispatch until the other thread's checkpoint has returned.
        let observation = tally.observe { state in
            guard state.total == 2 else { return }
            Thread { try? log.checkpoint(); answered.signal() }.start()
            answered.wait()
        }
        tally.send(.add(2))
        try await log.flush()
        let reader = try EventLog.openReadOnly(at: path)
        let mutations = try mutationSequences(reader)
        #expect(try reader.snapshotSequences(stream: "tally") == mutations)
        #expect(try recordedState(reader, at: try #require(mutations.first))?.total == 2)
        try reader.close()
        observation.cancel()
        tally.send(.add(3))
        #expect(tally.currentState.total == 5, "dispatch goes on in the main actor")
        try log.close()
    }
}

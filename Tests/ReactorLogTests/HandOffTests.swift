#if canImport(Glibc)
import Glibc
#endif
import EventLogKit
import Foundation
import ReactorLog
import ReactorLogPersistence
import ReactorLogTesting
import Synchronization
import TestSupport
import Testing
import TimeTravel

/// A recorded reactor's sender only hands values over: encoding happens on the log's writer thread.
@Suite("Logging hand-off", .serialized, .timeLimit(.minutes(3)))
struct HandOffTests {
    let scratch = ScratchDirectory()

    /// The threads that encoded something, by what they encoded.
    static let encoders = Mutex<[String: [UInt]]>([:])

    static func noteEncoding(_ what: String) {
        let thread = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: UInt(pthread_self()))))
        encoders.withLock { $0[what, default: []].append(thread) }
    }

    /// Mutations and states that note the thread that encodes them; `.poison` cannot be encoded.
    final class NotingReactor: Reactor {
        enum Action: Codable, Sendable { case add(Int), poison, burst }
        enum Mutation: Codable, Sendable {
            case add(Int)
            case poison
            struct Refused: Error {}
            func encode(to encoder: any Encoder) throws {
                HandOffTests.noteEncoding("mutation")
                var container = encoder.singleValueContainer()
                switch self {
                case let .add(value): try container.encode(["add": ["_0": value]])
                case .poison: throw Refused()
                }
            }
        }
        struct State: Codable, Sendable {
            var total = 0
            var padding = [UInt8](repeating: 7, count: 1 << 18)
            func encode(to encoder: any Encoder) throws {
                HandOffTests.noteEncoding("state")
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(total, forKey: .total)
                try container.encode(padding, forKey: .padding)
            }
        }
        let initialState = State()
        let runtime = Runtime()
        func mutate(action: Action) -> Effect {
            switch action {
            case let .add(value): .just(.add(value))
            case .poison: .just(.poison)
            case .burst: .just(.add(1), .poison, .add(2), .poison, .add(3))
            }
        }
        func reduce(state: State, mutation: Mutation) -> State {
            var state = state
            if case let .add(value) = mutation { state.total += value }
            return state
        }
    }

    @Test("sending encodes nothing: mutations and snapshots of a 256 KB state are encoded on the writer thread")
    func encodedOffTheSender() throws {
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = .every(mutations: 2)
        let log = try EventLog.open(at: scratch.file("handoff.reactorlog"), configuration: configuration)
        let sender = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: UInt(pthread_self()))))
        do {
            let reactor = NotingReactor()
            try reactor.attach(to: log, stream: "noting")   // encodes the initial state here, once
            Self.encoders.withLock { $0 = [:] }
            for value in 1...6 { reactor.send(.add(value)) }
            #expect(reactor.currentState.total == 21)
        }
        try log.flush()
        let encoders = Self.encoders.withLock { $0 }
        #expect(encoders["mutation"]?.count == 6)
        #expect((encoders["state"]?.count ?? 0) >= 3)
        #expect(encoders.values.joined().allSatisfy { $0 != sender })
        try log.close()
    }

    @Test("the mutations an effect emits at once are handed over together and each written: one that cannot be encoded keeps its number, the rest their values")
    func runWithUnencodableMutations() throws {
        let log = try EventLog.open(at: scratch.file("burst.reactorlog"))
        let reactor = NotingReactor()
        try reactor.attach(to: log, stream: "noting")
        reactor.send(.burst)
        reactor.send(.add(10))
        reactor.send(.burst)
        try log.flush()
        #expect(reactor.currentState.total == 22)
        let entries = Array(try log.readEntries(EntryQuery(stream: "noting")))
        let sequences = entries.map(\.sequence)
        let first = try #require(sequences.first)
        #expect(sequences == Array(first...first + UInt64(sequences.count - 1)))
        let burst = ["add", "unencodable", "add", "unencodable", "add"]
        let mutations = entries.filter { $0.kind == .mutation }
        #expect(mutations.map(\.caseName) == burst + ["add"] + burst)
        // Each caused by its own action; the values that were encoded read back in order.
        let actions = entries.filter { $0.kind == .action }.map(\.sequence)
        try #require(actions.count == 3)
        #expect(mutations.map(\.cause) == Array(repeating: actions[0], count: 5) + [actions[1]] + Array(repeating: actions[2], count: 5))
        let values = try mutations.filter { !$0.lacksValue }.map { try $0.codec.json($0.payload).map { String(decoding: $0, as: UTF8.self) } }
        #expect(values == [1, 2, 3, 10, 1, 2, 3].map { #"{"add":{"_0":\#($0)}}"# })
        #expect(entries.filter(\.lacksValue).allSatisfy { $0.codec == .none && $0.payload.isEmpty })
        #expect(reactor.logFailure != nil)
        try log.close()
    }

    @Test("a value that cannot be encoded keeps its sequence number as an unencodable entry, and is reported")
    func unencodableKeepsItsPlace() throws {
        let log = try EventLog.open(at: scratch.file("poison.reactorlog"))
        let reactor = NotingReactor()
        try reactor.attach(to: log, stream: "noting")
        reactor.send(.add(1))
        reactor.send(.poison)
        reactor.send(.poison)
        reactor.send(.add(2))
        try log.flush()
        #expect(reactor.currentState.total == 3)
        let entries = Array(try log.readEntries(EntryQuery(stream: "noting")))
        let sequences = entries.map(\.sequence)
        #expect(sequences == Array(sequences[0]...sequences[0] + UInt64(sequences.count - 1)))
        let poisoned = try #require(entries.first { $0.caseName == "unencodable" })
        #expect(poisoned.kind == .mutation)
        #expect(poisoned.codec == .none && poisoned.payload.isEmpty)
        // Readers tell those entries, and only those, as without their values; markers have codec none too.
        #expect(entries.filter(\.lacksValue).map(\.sequence) == entries.filter { $0.caseName == "unencodable" }.map(\.sequence))
        #expect(entries.filter(\.lacksValue).count == 2 && entries.contains { $0.kind.isLifecycle && $0.codec == .none && !$0.lacksValue })
        let unencodable = Set(entries.filter { $0.caseName == "unencodable" }.map(\.sequence))
        try log.forEachEntry(EntryQuery(stream: "noting")) { view in #expect(view.lacksValue == unencodable.contains(view.sequence)) }
        #expect(entries.filter { $0.kind == .mutation && $0.caseName == "add" }.count == 2)
        // Reported as the log words a codec's failure, naming the type.
        let failure = try #require(reactor.logFailure)
        guard case .codec(let message) = failure else {
            Issue.record("the failure is \(failure), not a codec error")
            return
        }
        #expect(message.hasPrefix("Could not encode a Mutation with the binary codec:"))
        // Verify warns of them in one line, naming the first: the log is not damaged.
        #expect(try log.verify().problems.map(\.description) == [
            "warning at #\(poisoned.sequence): stream 'noting' has 2 mutations logged without their values, the first here: they could not be encoded when they were recorded, so the stream's states from each to its next snapshot cannot be rebuilt",
        ])
    }

    @Test("a mutation logged without its value asks for a snapshot at the next one, whatever the policy; time travel names the steps it leaves unknown")
    func snapshotAfterUnencodable() throws {
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = .never
        let log = try EventLog.open(at: scratch.file("poison-snapshot.reactorlog"), configuration: configuration)
        let reactor = NotingReactor()
        try reactor.attach(to: log, stream: "noting")
        reactor.send(.add(1))
        reactor.send(.poison)
        // The writer learns that the value does not encode when it encodes it: after this, the sender knows.
        try log.flush()
        reactor.send(.add(2))
        reactor.send(.add(4))
        try log.flush()
        let mutations = try log.readEntries(EntryQuery(stream: "noting", kinds: [.mutation]))
        #expect(mutations.map(\.caseName) == ["add", "unencodable", "add", "add"])
        let (poison, next) = (mutations[1].sequence, mutations[2].sequence)
        // One snapshot, of the state after the first mutation that followed; none before it, none after.
        #expect(try log.snapshotSequences(stream: "noting") == [next])

        let machine = try TimeMachine(log: log, stream: "noting", replayer: ReactorReplayer { NotingReactor() })
        #expect(try machine.state(at: poison - 1).total == 1)
        for step in poison..<next {
            #expect(throws: TimeTravelError.valueNotRecorded(step: step, stream: "noting", mutation: poison, missing: .unencodable, readableFrom: next)) {
                try machine.state(at: step)
            }
        }
        #expect(try machine.state(at: next).total == 3)
        #expect(try machine.state(at: mutations[3].sequence).total == 7)
        // Blame throws there; its report goes round it: the change before, the stretch with the value on either side of
        // it, and the change after.
        let total = try StatePath(parsing: "total")
        #expect(throws: TimeTravelError.self) { try machine.blame(total) }
        let blame = try machine.blameReport(total)
        #expect(blame.changes.map(\.mutation.sequence) == [mutations[0].sequence, mutations[3].sequence])
        let stretch = try #require(blame.unknownStretches.first)
        #expect(blame.unknownStretches.count == 1 && stretch.steps == poison...next && stretch.damage == nil)
        #expect(stretch.reason == .valueNotRecorded(step: poison, stream: "noting", mutation: poison, missing: .unencodable, readableFrom: next))
        #expect(stretch.old == .known(.number(1)) && stretch.new == .known(.number(3)))
        #expect(try machine.blameReport(total, latest: 1).rows == [blame.rows.last])
        // Verify names it, as a warning: the log is not damaged.
        let report = try log.verify()
        #expect(report.isHealthy)
        #expect(report.problems.map(\.description) == [
            "warning at #\(poison): stream 'noting' has a mutation logged without its value: it could not be encoded when it was recorded, so the stream's states from it to its next snapshot cannot be rebuilt",
        ])
        let unknown = TimeTravelError.valueNotRecorded(step: poison, stream: "noting", mutation: poison, missing: .unencodable, readableFrom: next)
        #expect(unknown.description.contains("which the log holds without its value"))
        #expect(unknown.hint == "Pick a step before #\(poison), or from #\(next) on, rebuilt from the snapshot there.")
        try log.close()
    }

    @Test("a relaunch that meets a mutation logged without its value, with no snapshot after it, starts a new generation and says why")
    func resumeThroughUnencodable() throws {
        struct Refused: Error {}
        let path = scratch.file("poison-resume.reactorlog")
        do {
            // The stream as the app left it when it crashed before its next mutation: no snapshot after the poison.
            let log = try EventLog.open(at: path)
            let stream = try log.openStream(
                named: "noting", reactorType: String(reflecting: NotingReactor.self),
                schemaFingerprint: NotingReactor.defaultSchemaFingerprint, initialState: NotingReactor.State())
            let (sent, added) = (try log.encode(NotingReactor.Action.add(1)), try log.encode(NotingReactor.Mutation.add(1)))
            let action = try stream.append(.action, encoding: { ("add", sent) })
            try stream.append(.mutation, cause: action, encoding: { ("add", added) })
            try stream.append(.mutation, cause: action, encoding: { throw Refused() })
            try log.close()
        }
        let log = try EventLog.open(at: path)
        let reactor = NotingReactor()
        let change = try #require(try reactor.attach(to: log, stream: "noting"))
        #expect(change.retiredAs == "noting@1")
        #expect(change.problem?.contains("is in the log without its value (it could not be encoded when it was recorded), and no snapshot after it holds the state.") == true, "\(String(describing: change.problem))")
        #expect(reactor.currentState.total == 0)
        try log.close()
    }

    /// An action whose effect emits `count` mutations at once.
    final class BurstReactor: Reactor {
        enum Action: Codable, Sendable { case burst(Int) }
        enum Mutation: Codable, Sendable, Equatable { case add(Int) }
        struct State: Codable, Sendable, Equatable { var total = 0 }
        let initialState = State()
        let runtime = Runtime()
        func mutate(action: Action) -> Effect {
            guard case let .burst(count) = action else { return .none }
            return .just((1...count).map { .add($0) })
        }
        func reduce(state: State, mutation: Mutation) -> State {
            guard case let .add(value) = mutation else { return state }
            return State(total: state.total * 10 + value)
        }
    }

    @Test("the mutations an effect emits at once are handed over together before the first is reduced, numbered in order with their action as cause", arguments: [
        Durability.grouped, .sync,
    ])
    func runHandedOverAtOnce(durability: Durability) throws {
        let log = try EventLog.open(at: scratch.file("burst-\(durability).reactorlog"), configuration: EventLogConfiguration(durability: durability))
        let reactor = BurstReactor()
        try reactor.attach(to: log, stream: "burst")
        // At the first mutation's state, the whole run is in the log already (write-ahead holds for each).
        let onDisk = Mutex<[Int]>([])
        let observation = reactor.observe { state in
            guard state.total == 1 else { return }
            try? log.flush()
            let count = (try? log.readEntries(EntryQuery(stream: "burst", kinds: [.mutation])).count) ?? -1
            onDisk.withLock { $0.append(count) }
        }
        reactor.send(.burst(3))
        #expect(onDisk.withLock { $0 } == [3])
        #expect(reactor.currentState.total == 123)
        observation.cancel()
        try log.flush()
        let entries = Array(try log.readEntries(EntryQuery(stream: "burst", kinds: [.action, .mutation])))
        let action = try #require(entries.first)
        #expect(action.kind == .action)
        #expect(entries.dropFirst().map(\.sequence) == [action.sequence + 1, action.sequence + 2, action.sequence + 3])
        #expect(entries.dropFirst().allSatisfy { $0.kind == .mutation && $0.cause == action.sequence })
        #expect(try entries.dropFirst().map { try log.decode(BurstReactor.Mutation.self, from: $0) } == [.add(1), .add(2), .add(3)])
        try log.close()
    }

    @Test("a memory recorder numbers the mutations an effect emits at once one after another, and keeps the state after each")
    func memoryRecorderRun() throws {
        let reactor = BurstReactor()
        let recorder = MemoryRecorder<BurstReactor.Action, BurstReactor.Mutation, BurstReactor.State>()
        try reactor.record(with: recorder)
        reactor.send(.burst(3))
        let numbered = recorder.entries.map { entry -> (UInt64, UInt64?) in
            switch entry {
            case let .action(_, sequence): (sequence, nil)
            case let .mutation(_, sequence, cause): (sequence, cause)
            case let .effectError(_, sequence, cause): (sequence, cause)
            }
        }
        #expect(numbered.map(\.0) == [1, 2, 3, 4])
        #expect(numbered.map(\.1) == [nil, 1, 1, 1])
        #expect(recorder.states.map(\.total) == [1, 12, 123])
    }

    @Test("snapshots fall after the same mutations, and hold the same states, whether the mutations came one at a time or at once", arguments: [
        SnapshotPolicy.everyMutation, .every(mutations: 2), .every(mutations: 4),
    ])
    func snapshotsOfARun(policy: SnapshotPolicy) throws {
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = policy
        let log = try EventLog.open(at: scratch.file("snapshots-\(policy).reactorlog"), configuration: configuration)
        let reactor = BurstReactor()
        try reactor.attach(to: log, stream: "burst")
        var states: [UInt64: BurstReactor.State] = [:]
        for count in [3, 1, 2, 3] { reactor.send(.burst(count)) }
        try log.flush()
        // The state after each mutation, replayed, and where the policy wants a snapshot: after every n-th.
        let every = if case .every(let n) = policy { n } else { 1 }
        var expected: [UInt64] = []
        var state = BurstReactor.State()
        for (index, entry) in try log.readEntries(EntryQuery(stream: "burst", kinds: [.mutation])).enumerated() {
            state = reactor.reduce(state: state, mutation: try log.decode(BurstReactor.Mutation.self, from: entry))
            states[entry.sequence] = state
            if (index + 1) % every == 0 { expected.append(entry.sequence) }
        }
        #expect(states.count == 9)
        let taken = try log.snapshotSequences(stream: "burst").filter { states[$0] != nil }
        #expect(taken == expected)
        for sequence in taken {
            let snapshot = try #require(try log.latestSnapshot(stream: "burst", atOrBefore: sequence))
            #expect(try log.decode(BurstReactor.State.self, from: snapshot.state, codec: snapshot.codec) == states[sequence])
        }
        try log.close()
    }
}

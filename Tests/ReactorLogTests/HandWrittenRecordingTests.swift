import EventLogKit
import Foundation
import ReactorLog
import ReactorLogPersistence
import Synchronization
import TestSupport
import Testing
import TimeTravel

/// A recorded reactor whose values have hand-written binary conformances: the writer thread encodes them through
/// those conformances, and a resume reads them back through them, to the same state as `Codable` would.
@Suite("Recording with hand-written binary coding", .serialized)
struct HandWrittenRecordingTests {
    let scratch = ScratchDirectory()

    /// How many mutations went through the hand-written conformance each way.
    static let written = Atomic<Int>(0), read = Atomic<Int>(0)

    /// `.poison` makes a mutation whose conformance throws after writing its case name and key.
    final class Counter: Reactor {
        enum Action: Codable, Sendable { case add(Int), poison }
        enum Mutation: Codable, Sendable, BinaryPayloadCodable {
            case add(Int)
            case poison(Double)
            func encode(to writer: inout BinaryPayloadWriter) throws {
                HandWrittenRecordingTests.written.add(1, ordering: .relaxed)
                switch self {
                case let .add(amount): try writer.encodeCase("add") { try $0.encode(amount, forKey: "_0") }
                case let .poison(value): try writer.encodeCase("poison") { try $0.encode(value, forKey: "_0") }
                }
            }
            init(from reader: inout BinaryPayloadReader) throws {
                HandWrittenRecordingTests.read.add(1, ordering: .relaxed)
                self = try reader.decodeCase { name, reader in
                    switch name {
                    case "add": .add(try reader.decodeMember(Int.self, forKey: "_0"))
                    case "poison": .poison(try reader.decodeMember(Double.self, forKey: "_0"))
                    default: throw reader.unknownCase(name, of: Mutation.self)
                    }
                }
            }
        }
        struct State: Codable, Sendable { var total = 0 }
        let initialState = State()
        let runtime = Runtime()
        func mutate(action: Action) -> Effect {
            switch action {
            case let .add(amount): .just(.add(amount))
            case .poison: .just(.poison(.nan))
            }
        }
        func reduce(state: State, mutation: Mutation) -> State {
            switch mutation {
            case let .add(amount): State(total: state.total + amount)
            case .poison: state
            }
        }
    }

    @Test("mutations are written and read through the conformance, with their case names, in time travel too, and resume to the same state")
    func recordAndResume() throws {
        let path = scratch.file("counter.reactorlog")
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = .never
        Self.written.store(0, ordering: .relaxed)
        do {
            let log = try EventLog.open(at: path, configuration: configuration)
            do {
                let reactor = Counter()
                try reactor.attach(to: log, stream: "counter")
                for amount in 1...10 { reactor.send(.add(amount)) }
            }
            try log.flush()
            #expect(Self.written.load(ordering: .relaxed) == 10)
            let mutations = try log.readEntries(EntryQuery(stream: "counter", kinds: [.mutation]))
            #expect(mutations.map(\.caseName) == Array(repeating: "add", count: 10))
            Self.read.store(0, ordering: .relaxed)
            #expect(try mutations.map { try log.decode(Counter.Mutation.self, from: $0) } == (1...10).map { .add($0) })
            #expect(Self.read.load(ordering: .relaxed) == 10)
            // Time travel replays in place, through the conformance too.
            Self.read.store(0, ordering: .relaxed)
            let machine = try TimeMachine(log: log, stream: "counter", replayer: ReactorReplayer { Counter() })
            let state = try machine.state(at: mutations[3].sequence)
            #expect(state.total == 1 + 2 + 3 + 4)
            #expect(Self.read.load(ordering: .relaxed) == 4)
            try log.close()
        }
        let log = try EventLog.open(at: path, configuration: configuration)
        let resumed = Counter()
        try resumed.attach(to: log, stream: "counter")
        #expect(resumed.currentState.total == 55)
    }

    @Test("a value whose encoding throws partway leaves nothing of itself in its batch: the entries around it read back whole")
    func halfWrittenValueLeavesNothing() throws {
        let log = try EventLog.open(at: scratch.file("half.reactorlog"))
        let reactor = Counter()
        try reactor.attach(to: log, stream: "half")
        for value in 1...50 {
            reactor.send(.add(value))
            if value % 10 == 0 { reactor.send(.poison) }
        }
        try log.flush()
        let mutations = Array(try log.readEntries(EntryQuery(stream: "half"))).filter { $0.kind == .mutation }
        #expect(mutations.count == 55)
        let unencodable = mutations.filter { $0.caseName == "unencodable" }
        #expect(unencodable.count == 5 && unencodable.allSatisfy { $0.payload.isEmpty && $0.codec == .none })
        let added = try mutations.filter { $0.caseName == "add" }.map { try log.decode(Counter.Mutation.self, from: $0) }
        #expect(added == (1...50).map { .add($0) })
        #expect(try log.verify().problems.allSatisfy { $0.severity != .error })
    }
}

extension HandWrittenRecordingTests.Counter.Mutation: Equatable {}

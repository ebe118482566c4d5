#if canImport(Glibc)
import Glibc
#endif
import EventLogKit
import Foundation
import ReactorLog
import ReactorLogPersistence
import Synchronization
import TestSupport
import Testing

/// A recorded reactor's sender only hands values over: encoding happens on the log's writer thread.
@Suite("Logging hand-off", .serialized, .timeLimit(.minutes(1)))
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
        enum Action: Codable, Sendable { case add(Int), poison }
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

    @Test("a value that cannot be encoded keeps its sequence number as an unencodable entry, and is reported")
    func unencodableKeepsItsPlace() throws {
        let log = try EventLog.open(at: scratch.file("poison.reactorlog"))
        let reactor = NotingReactor()
        try reactor.attach(to: log, stream: "noting")
        reactor.send(.add(1))
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
        #expect(entries.filter { $0.kind == .mutation && $0.caseName == "add" }.count == 2)
        // Reported as the log words a codec's failure, naming the type.
        let failure = try #require(reactor.logFailure)
        guard case .codec(let message) = failure else {
            Issue.record("the failure is \(failure), not a codec error")
            return
        }
        #expect(message.hasPrefix("Could not encode a Mutation with the binary codec:"))
        #expect(try log.verify().problems.allSatisfy { $0.severity != .error })
    }
}

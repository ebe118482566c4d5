@testable import BinaryPayloadKit
@testable import EventLogKit
import Foundation
import Synchronization
import Testing

/// The keys a decoder keeps for objects of one member (every enum case): kept per key type and name, so that
/// enums sharing case names, unknown names and run-time keys past the limit decode as they would afresh.
@Suite("Keys kept by the binary decoder")
struct KnownKeysTests {
    enum First: Codable, Equatable {
        case shared(Int)
        case onlyFirst
    }

    enum Second: Codable, Equatable {
        case shared(String)
        case onlySecond(Bool)
    }

    @Test("enums sharing a case name decode as themselves, payload after payload through one codec")
    func sharedNames() throws {
        let codec = BinaryLogCodec()
        let first: [First] = [.shared(1), .onlyFirst, .shared(-7)]
        let second: [Second] = [.shared("a"), .onlySecond(true), .shared("")]
        for round in 0..<3 {
            for (one, other) in zip(first, second) {
                #expect(try codec.decode(First.self, from: try codec.encode(one)) == one, "round \(round)")
                #expect(try codec.decode(Second.self, from: try codec.encode(other)) == other, "round \(round)")
            }
        }
    }

    @Test("a case name the enum does not have is refused every time, not only the first")
    func unknownName() throws {
        let codec = BinaryLogCodec()
        let payload = try codec.encode(Second.onlySecond(false))
        for _ in 0..<3 {
            #expect(throws: DecodingError.self) { try codec.decode(First.self, from: payload) }
        }
        #expect(try codec.decode(Second.self, from: payload) == .onlySecond(false))
    }

    @Test("one-member dictionaries with more names than are kept all decode")
    func pastTheLimit() throws {
        let codec = BinaryLogCodec()
        for round in 0..<2 {
            for index in 0..<(KnownKeys.limit * 2) {
                let value = ["key \(index)": index]
                #expect(try codec.decode([String: Int].self, from: try codec.encode(value)) == value, "round \(round)")
            }
        }
    }

    @Test("many threads decoding through one codec at once each get their own decoder")
    func threads() throws {
        let codec = BinaryLogCodec()
        let values: [First] = (0..<200).map { $0 % 3 == 0 ? .onlyFirst : .shared($0) }
        let payloads = try values.map { try codec.encode($0) }
        let wrong = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for (value, payload) in zip(values, payloads) where (try? codec.decode(First.self, from: payload)) != value {
                wrong.add(1, ordering: .relaxed)
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
    }
}

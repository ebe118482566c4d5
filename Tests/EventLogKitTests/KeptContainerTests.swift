@testable import EventLogKit
import Foundation
import Testing

/// The keyed containers an encoder keeps from value to value for a value's first frames: the same key type at
/// several depths at once, and values of several types through one codec, stream exactly as made afresh.
@Suite("Containers kept by the binary encoder")
struct KeptContainerTests {
    /// Keys in reverse alphabetical order: the sorted-keys fallback, which a wrong container would send the value
    /// down (it throws out of order there), writes `alpha` first; streaming writes `zulu` first.
    struct Branch: Codable, Equatable {
        /// None or one: the same key type again, two frames deeper.
        var zulu: [Branch]
        var alpha: Int
    }

    enum Event: Codable, Equatable {
        case moved(Branch)
        case named(String)
    }

    static func chain(_ depth: Int) -> Branch {
        (1..<depth).reduce(Branch(zulu: [], alpha: depth)) { inner, level in Branch(zulu: [inner], alpha: depth - level) }
    }

    /// The JSON text streaming writes for `branch`.
    static func text(_ branch: Branch) -> String {
        "{\"zulu\":[" + branch.zulu.map(text).joined(separator: ",") + "],\"alpha\":\(branch.alpha)}"
    }

    @Test("one key type open at many depths at once, value after value, streams in declaration order")
    func nestedSameKeys() throws {
        let codec = BinaryLogCodec()
        for round in 0..<3 {
            for depth in [1, 3, 6, 2, 9] {
                let value = Self.chain(depth)
                let payload = try codec.encode(value)
                #expect(String(decoding: try BinaryPayload.json(payload), as: UTF8.self) == Self.text(value), "round \(round), depth \(depth)")
                #expect(try codec.decode(Branch.self, from: payload) == value)
            }
        }
    }

    @Test("values of several types through one codec stream as a fresh codec streams them")
    func severalTypes() throws {
        let kept = BinaryLogCodec()
        let values: [Event] = [.moved(Self.chain(4)), .named("a"), .moved(Self.chain(1)), .named(""), .moved(Self.chain(7))]
        for _ in 0..<3 {
            for value in values {
                #expect(try kept.encode(value) == BinaryLogCodec().encode(value))
                #expect(try kept.encodeNamingCase(value).caseName == (value == .named("a") || value == .named("") ? "named" : "moved"))
            }
            #expect(try kept.encode(Self.chain(5)) == BinaryLogCodec().encode(Self.chain(5)))
        }
    }

    /// A keyed type for each `T`: `Box<Int>.CodingKeys` and `Box<Box<Int>>.CodingKeys` are types of their own.
    struct Box<T: Codable & Equatable & Sendable>: Codable, Equatable, Sendable {
        var value: T
        var tag: Int
    }

    /// Forty-two key types across the first three frames, more than the encoder's recent slots hold, so that types
    /// share and take over slots.
    static let manyTypes: [any Encodable & Sendable] = {
        func levels<T: Codable & Equatable & Sendable>(_ leaf: T) -> [any Encodable & Sendable] {
            [Box(value: leaf, tag: 1), Box(value: Box(value: leaf, tag: 2), tag: 1),
             Box(value: Box(value: Box(value: leaf, tag: 3), tag: 2), tag: 1)]
        }
        return levels(1) + levels("s") + levels(true) + levels(2.5) + levels([1]) + levels(["s"]) + levels(Int8(1))
            + levels(UInt16(2)) + levels(Float(0.5)) + levels([true]) + levels([[1]]) + levels(Int32(3)) + levels(UInt(4))
            + levels(["k": 1])
    }()

    @Test("more key types than the recent slots hold, value after value, stream as a fresh codec streams them")
    func moreTypesThanSlots() throws {
        let kept = BinaryLogCodec()
        func encoded(_ value: any Encodable & Sendable, with codec: BinaryLogCodec) throws -> Data {
            func open<Value: Encodable & Sendable>(_ value: Value) throws -> Data { try codec.encode(value) }
            return try open(value)
        }
        for round in 0..<3 {
            for (index, value) in Self.manyTypes.enumerated() {
                #expect(try encoded(value, with: kept) == encoded(value, with: BinaryLogCodec()), "round \(round), value \(index)")
            }
        }
    }
}

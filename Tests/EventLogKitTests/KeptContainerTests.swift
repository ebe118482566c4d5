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
}

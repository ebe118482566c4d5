import EventLogKit
import Foundation
import Testing
@testable import TimeTravel

/// Time travel builds a binary payload's JSON value straight from its bytes; it must be exactly the value that
/// rendering the payload as JSON text and parsing that gives, and refuse exactly what rendering refuses.
@Suite("JSON values of binary payloads")
struct JSONValueBinaryTests {
    struct Sample: Codable {
        enum Mode: Codable { case idle, loading(page: Int), failed(String) }
        var title = "quote \" backslash \\ tab \t ü 🙂"
        var count = -42
        var big = UInt64.max
        var small = Int64.min
        var ratio = 0.1
        var tiny = Double.leastNonzeroMagnitude
        var price = Decimal(string: "12.345")!
        var rate = Decimal(string: "0.12345678901234567891")!
        var flags = [true, false]
        var nested: [String: [Int]] = ["a": [1, 2], "b": []]
        var missing: Int? = nil
        var mode = Mode.loading(page: 3)
        var grid: [[Double]] = [[1.5, -0.0], []]
    }

    /// The value both ways, or `nil` where that way throws.
    private func bothWays(_ payload: Data) -> (direct: JSONValue?, throughText: JSONValue?) {
        let direct = try? JSONValue(binary: payload)
        let throughText = (try? BinaryPayload.json(payload)).flatMap { try? JSONValue(parsing: $0) }
        return (direct, throughText)
    }

    @Test("every value, every truncation and every flipped bit agrees with rendering and parsing")
    func agrees() throws {
        let codec = BinaryLogCodec()
        let payloads = [
            try codec.encode(Sample()), try codec.encode(Sample.Mode.failed("x")), try codec.encode([Sample(), Sample()]),
            try codec.encode("text"), try codec.encode(7), try codec.encode([String: Int]()),
        ]
        var compared = 0
        var refused = 0
        for payload in payloads {
            let whole = bothWays(payload)
            #expect(whole.direct != nil && whole.direct == whole.throughText)
            var variants = (0..<payload.count).map { Data(payload.prefix($0)) }
            for index in payload.indices {
                for bit in 0..<8 {
                    var bytes = payload
                    bytes[index] ^= 1 << bit
                    variants.append(bytes)
                }
            }
            for variant in variants {
                let (direct, throughText) = bothWays(variant)
                #expect(direct == throughText, "\(Array(variant))")
                compared += 1
                if direct == nil { refused += 1 }
            }
        }
        // Both outcomes were met many times, so the agreement covers each.
        #expect(refused > 100 && compared - refused > 100)
    }

    struct Wide: Encodable {
        var sample = Sample()
        var date = Date(timeIntervalSinceReferenceDate: 12_345.678)
        var url = URL(string: "https://example.com/a?b=c")!
        var data = Data([0, 1, 2, 250])
        var float: Float = 0.1
        var byNumber: [Int: String] = [1: "one", 20: "twenty"]
        var byPair: [[Int]: Bool] = [[1, 2]: true]
        var optional: Int?? = .some(nil)
        var set: Set<String> = ["only"]
    }

    @Test("the JSON form of a value, made through the binary codec, is the form Foundation's JSONEncoder gives")
    func encodingMatchesFoundation() throws {
        let foundation = JSONEncoder()
        for value in [Wide(), Wide(float: -3.5e-7, byNumber: [:], optional: 5)] {
            #expect(try JSONValue(encoding: value) == (try JSONValue(parsing: foundation.encode(value))))
        }
        #expect(try JSONValue(encoding: "fragment") == .string("fragment"))
        #expect(throws: (any Error).self) { try JSONValue(encoding: [Double.nan]) }
    }

    /// Keys a dictionary tells apart differently from their bytes: the same "é" precomposed and decomposed.
    struct Keys: Encodable {
        var items: [[String: Int]] = [["count": 3, "b": 4], [:]]
        var accented: [String: Int] = ["\u{E9}": 1, "x": 2]
        var words = ["one", "two", "three"]
        var title = "a 🙂 é"
    }

    @Test("the value at a path, read straight from the bytes, is the whole value's at that path", arguments: [
        "", "title", "title.count", "count", "count.count", "grid", "grid[0]", "grid[0][1]", "grid[1][0]", "grid[2]",
        "grid.count", "grid[0].count", "nested.a", "nested.a[1]", "nested.count", "nested.zz", "mode.loading.page",
        "mode.failed", "flags[1]", "flags[-0]", "missing", "price", "title[0]", "items[0].count", "items[1].count",
        "items.count", "accented.\u{65}\u{301}", "accented.\u{E9}", "accented.count", "words[2]", "words.count",
    ])
    func valueAtPath(path: String) throws {
        let path = try StatePath(parsing: path)
        let codec = BinaryLogCodec()
        for payload in [try codec.encode(Sample()), try codec.encode(Keys()), try codec.encode([Sample()]), try codec.encode("text")] {
            let whole = try JSONValue(binary: payload)
            #expect(try JSONValue(binary: payload, at: path) == whole[path], "\(path)")
        }
    }

    @Test("reading a path from damaged bytes never traps")
    func valueAtPathOfDamagedBytes() throws {
        let payload = try BinaryLogCodec().encode(Sample())
        let paths = try ["grid[0][1]", "nested.count", "mode.loading.page", "title.count"].map(StatePath.init(parsing:))
        for length in 0..<payload.count {
            for path in paths { _ = try? JSONValue(binary: Data(payload.prefix(length)), at: path) }
        }
        for index in payload.indices {
            var bytes = payload
            bytes[index] ^= 0xFF
            for path in paths { _ = try? JSONValue(binary: bytes, at: path) }
        }
    }

    @Test("a binary entry's payload is read through the direct path")
    func payloadInit() throws {
        let payload = try BinaryLogCodec().encode(Sample())
        #expect(try JSONValue(payload: payload, codec: .binary) == (try JSONValue(parsing: try BinaryPayload.json(payload))))
        #expect(throws: BinaryPayload.Malformed.self) { try JSONValue(payload: payload + Data([0]), codec: .binary) }
    }
}

import BinaryPayloadFixtures
@testable import BinaryPayloadKit
@testable import EventLogKit
import Foundation
import Testing

/// Hand-written binary conformances (`BinaryPayloadCodable`): the codec uses them, they write what `Codable` writes,
/// and what a conformance gets wrong, or what a payload holds that is wrong, is refused rather than logged or trapped on.
@Suite("Hand-written binary coding")
struct HandWrittenCodingTests {
    @Test("every shape of case and struct writes the bytes Codable writes, names the same case and reads them back")
    func matchesCodable() throws {
        for shape in HandWrittenFixtures.shapes { try BinaryPayload.checkHandWrittenCoding(of: shape) }
        for record in HandWrittenFixtures.records { try BinaryPayload.checkHandWrittenCoding(of: record) }
        for tree in HandWrittenFixtures.trees { try BinaryPayload.checkHandWrittenCoding(of: tree) }
    }

    @Test("Foundation's Date, UUID and URL write the bytes Codable writes and refuse a string that is not theirs")
    func foundationValues() throws {
        try BinaryPayload.checkHandWrittenCoding(of: Date(timeIntervalSinceReferenceDate: 781_234_567.125))
        try BinaryPayload.checkHandWrittenCoding(of: [UUID(), UUID()])
        try BinaryPayload.checkHandWrittenCoding(of: ["home": URL(string: "https://example.com/a?b=c#d")!])
        let notAUUID = try BinaryPayload.fromJSON(Data(#""not-a-uuid""#.utf8))
        _ = #expect(throws: DecodingError.self) {
            try notAUUID.withUnsafeBytes { buffer in
                var reader = BinaryPayloadReader(buffer)
                return try UUID(from: &reader)
            }
        }
    }

    @Test("arrays of every length around what is reserved ahead read back whole, and one cut short throws", arguments: [0, 1, 2, 15, 16, 17, 40])
    func arraysOfEveryLength(count: Int) throws {
        let words = (0..<count).map { "word \($0)" }
        let nested = (0..<count).map { Array(repeating: $0, count: $0 % 19) }
        try BinaryPayload.checkHandWrittenCoding(of: words)
        try BinaryPayload.checkHandWrittenCoding(of: nested)
        let payload = [UInt8](try BinaryLogCodec().encode(nested))
        #expect(try payload.withUnsafeBytes { try BinaryLogCodec().decode([[Int]].self, from: $0) } == nested)
        for length in [payload.count - 1, payload.count / 2] where length > 0 {
            _ = #expect(throws: DecodingError.self) {
                try payload[..<length].withUnsafeBytes { try BinaryLogCodec().decode([[Int]].self, from: $0) }
            }
        }
    }

    @Test("keys and strings of every length around the short copies write what Codable writes and read back whole", arguments: [
        0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 125, 126, 127, 128, 300,
    ])
    func textOfEveryLength(bytes length: Int) throws {
        // ASCII, and two-byte characters with one ASCII letter to make the length odd: the copies go by bytes.
        let texts = ["k" + String(repeating: "x", count: max(length - 1, 0)), String(repeating: "é", count: length / 2) + (length % 2 == 1 ? "z" : "")]
            .map { String($0.utf8.prefix(length))! }
        for text in texts {
            #expect(text.utf8.count == length)
            let record = [text: text, "short": text]
            try BinaryPayload.checkHandWrittenCoding(of: record)
            try BinaryPayload.checkHandWrittenCoding(of: [text, text + "!", ""])
            let payload = [UInt8](try BinaryLogCodec().encode(record))
            #expect(try payload.withUnsafeBytes { try BinaryLogCodec().decode([String: String].self, from: $0) } == record)
        }
    }

    @Test("what lies on a path is written as through Codable, whatever the path", arguments: [
        [], [.key("title")], [.key("nope")], [.count], [.index(0)], [.key("scores"), .index(1)], [.key("scores"), .count],
        [.key("shapes"), .index(6), .key("mixed"), .key("tags"), .key("y")], [.key("shapes"), .count],
        [.key("shapes"), .index(3), .key("labelled"), .count], [.key("shapes"), .key("x")], [.key("note")],
    ] as [[BinaryPayload.PathStep]])
    func pathsMatchCodable(_ path: [BinaryPayload.PathStep]) throws {
        for record in HandWrittenFixtures.records {
            let direct = try BinaryPayloadEncoder.encode(record, keepingOnly: path)
            let viaCodable = try BinaryPayloadEncoder.encode(record, keepingOnly: path, direct: false)
            #expect(direct.payload == viaCodable.payload, "\(path)")
        }
    }

    /// Codable conformances that refuse to run: a value of this type codes only through its hand-written one.
    struct OnlyHandWritten: Codable, Equatable, BinaryPayloadCodable {
        struct CodableUsed: Error {}
        var count: Int
        init(count: Int) { self.count = count }
        func encode(to encoder: any Encoder) throws { throw CodableUsed() }
        init(from decoder: any Decoder) throws { throw CodableUsed() }
        func encode(to writer: inout BinaryPayloadWriter) throws { try writer.encodeObject { try $0.encode(count, forKey: "count") } }
        init(from reader: inout BinaryPayloadReader) throws { count = try reader.decodeMember(Int.self, forKey: "count") }
    }

    @Test("the binary codec codes a conforming type through its conformance, unless told not to")
    func codecUsesConformances() throws {
        let codec = BinaryLogCodec()
        let payload = try codec.encode(OnlyHandWritten(count: 5))
        #expect(try BinaryPayload.json(payload) == Data(#"{"count":5}"#.utf8))
        #expect(try codec.decode(OnlyHandWritten.self, from: payload) == OnlyHandWritten(count: 5))
        #expect(try codec.encodeBytesNamingCase(OnlyHandWritten(count: 5)).caseName == "count")
        // What lies on a path too (blame's encoding of a state at every step).
        #expect(try BinaryPayload.json(codec.encode(OnlyHandWritten(count: 5), keepingOnly: [.key("other")])) == Data("{}".utf8))

        let viaCodable = BinaryLogCodec(directCoding: false)
        #expect(throws: OnlyHandWritten.CodableUsed.self) { try viaCodable.encode(OnlyHandWritten(count: 5)) }
        #expect(throws: OnlyHandWritten.CodableUsed.self) { try viaCodable.decode(OnlyHandWritten.self, from: payload) }
        // The JSON codec has no use for them.
        #expect(throws: (any Error).self) { try JSONLogCodec().encode(OnlyHandWritten(count: 5)) }
    }

    /// A conformance that writes keys in another order than `Codable`.
    struct Reordered: Codable, Equatable, BinaryPayloadCodable {
        var a = 1, b = 2
        init() {}
        func encode(to writer: inout BinaryPayloadWriter) throws {
            try writer.encodeObject {
                try $0.encode(b, forKey: "b")
                try $0.encode(a, forKey: "a")
            }
        }
        init(from reader: inout BinaryPayloadReader) throws {
            try reader.decodeObject { key, reader in
                switch key {
                case "a": a = try reader.decode()
                case "b": b = try reader.decode()
                default: break
                }
            }
        }
    }

    @Test("the check names a conformance that disagrees with Codable, with both forms")
    func mismatchIsReported() throws {
        let error = try #require(throws: HandWrittenCodingMismatch.self) { try BinaryPayload.checkHandWrittenCoding(of: Reordered()) }
        #expect(error.description == #"The hand-written binary coding of Reordered writes other bytes than Codable: Codable writes {"a":1,"b":2}, the conformance writes {"b":2,"a":1}."#)
    }

    /// A conformance that writes what `Codable` writes and reads the member under another key: `b` keeps its default.
    struct MisreadKey: Codable, Equatable, BinaryPayloadCodable {
        var a = 1, b = 2
        init(a: Int = 1, b: Int = 2) { (self.a, self.b) = (a, b) }
        func encode(to writer: inout BinaryPayloadWriter) throws {
            try writer.encodeObject {
                try $0.encode(a, forKey: "a")
                try $0.encode(b, forKey: "b")
            }
        }
        init(from reader: inout BinaryPayloadReader) throws {
            try reader.decodeObject { key, reader in
                switch key {
                case "a": a = try reader.decode()
                case "B": b = try reader.decode()
                default: break
                }
            }
        }
    }

    /// A conformance whose reading refuses what it writes: the log would read it again through `Codable`, which the
    /// check must not let hide the failure.
    struct Unreadable: Codable, Equatable, BinaryPayloadCodable {
        var a = 1
        func encode(to writer: inout BinaryPayloadWriter) throws { try writer.encodeObject { try $0.encode(a, forKey: "a") } }
        init(from reader: inout BinaryPayloadReader) throws { a = try reader.decodeMember(Int.self, forKey: "missing") }
        init() {}
    }

    @Test("the check compares the conformance's reading with Codable's, not with a fallback to Codable")
    func misreadingIsReported() throws {
        // The bytes agree and the default hides the misread for this value; another value shows it.
        try BinaryPayload.checkHandWrittenCoding(of: MisreadKey())
        let misread = try #require(throws: HandWrittenCodingMismatch.self) { try BinaryPayload.checkHandWrittenCoding(of: MisreadKey(b: 5)) }
        #expect(misread.description.contains("reads the Codable bytes as MisreadKey(a: 1, b: 2), where Codable reads MisreadKey(a: 1, b: 5)"))
        let refused = try #require(throws: HandWrittenCodingMismatch.self) { try BinaryPayload.checkHandWrittenCoding(of: Unreadable()) }
        #expect(refused.description.contains("cannot read the Codable bytes, which Codable reads as Unreadable(a: 1)"))
    }

    /// Conformances that write other than one value in some place.
    enum Malformed: Codable, BinaryPayloadEncodable {
        case twoValues, memberWithoutValue, elementOfTwo
        func encode(to writer: inout BinaryPayloadWriter) throws {
            switch self {
            case .twoValues:
                writer.encode(1)
                writer.encode(2)
            case .memberWithoutValue:
                writer.encodeObject { $0.encode(forKey: "empty") { _ in } }
            case .elementOfTwo:
                writer.encodeArray { array in
                    array.encode { element in
                        element.encode(true)
                        element.encodeNil()
                    }
                }
            }
        }
    }

    @Test("values written one after another into one buffer, as a log's writer writes a batch, read back from where they lie; one that throws partway leaves the buffer as it was")
    func appendingIntoOneBuffer() {
        #expect(HandWrittenFixtures.checkAppending() == nil)
        // Each poisoned value throws from inside its members, and leaves none of what it wrote behind.
        var buffer = ByteBuffer(capacity: 16)
        #expect(throws: EncodingError.self) { try BinaryPayloadEncoder.encode(HandWrittenFixtures.poisoned[1], into: &buffer) }
        #expect(buffer.count == 0)
    }

    @Test("an error thrown inside nested containers comes out whole, and the codec goes on writing what Codable writes")
    func errorInsideContainers() throws {
        let codec = BinaryLogCodec()
        let deep = Record(id: 1, title: "t", note: nil, scores: [1, .infinity], shapes: [.labelled(name: "n", ratio: 1)])
        for value in [deep, Record(id: 2, title: "t", note: "n", scores: [], shapes: [.mixed([], count: 1, tags: [:]), .labelled(name: "n", ratio: .nan)])] {
            let error = try #require(throws: EncodingError.self) { try codec.encode(value) }
            guard case .invalidValue = error else { Issue.record("\(error)"); continue }
        }
        for record in HandWrittenFixtures.records {
            #expect(try codec.encode(record) == BinaryLogCodec(directCoding: false).encode(record))
        }
    }

    @Test("a conformance that writes two values, or none, where one belongs is refused, not logged", arguments: [
        Malformed.twoValues, .memberWithoutValue, .elementOfTwo,
    ])
    func malformedConformanceIsRefused(_ value: Malformed) throws {
        let error = try #require(throws: EncodingError.self) { try BinaryLogCodec().encodeBytesNamingCase(value) }
        guard case let .invalidValue(_, context) = error else { Issue.record("\(error)"); return }
        #expect(context.debugDescription.contains("conformance of Malformed wrote other than one value"))
    }

    @Test("every truncation of a payload throws, and no flipped byte traps")
    func hostileBytes() throws {
        let payload = [UInt8](try BinaryLogCodec().encode(HandWrittenFixtures.records[1]))
        for length in 0..<payload.count {
            _ = #expect(throws: DecodingError.self) {
                try payload[..<length].withUnsafeBytes { try BinaryLogCodec().decode(Record.self, from: $0) }
            }
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var damaged = payload
            damaged[Int.random(in: 0..<damaged.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            _ = try? damaged.withUnsafeBytes { try BinaryLogCodec().decode(Record.self, from: $0) }
        }
    }

    /// A recursive type, to be fed nesting deeper than any reader should follow.
    indirect enum Tree: Codable, Equatable, BinaryPayloadCodable {
        case leaf
        case node([Tree])
        func encode(to writer: inout BinaryPayloadWriter) throws {}
        init(from reader: inout BinaryPayloadReader) throws {
            var children: [Tree] = []
            try reader.decodeArray { children.append(try Tree(from: &$0)) }
            self = children.isEmpty ? .leaf : .node(children)
        }
    }

    @Test("hostile nesting throws at the depth limit instead of exhausting the stack")
    func deepNesting() throws {
        let depth = 100_000
        let payload = [UInt8](repeating: 0x07, count: depth) + [UInt8](repeating: 0x0F, count: depth)
        let error = try #require(throws: DecodingError.self) {
            try payload.withUnsafeBytes { try BinaryLogCodec().decode(Tree.self, from: $0) }
        }
        #expect("\(error)".contains("containers nest deeper than 512"))
    }

    @Test("members read in any order, unknown ones are skipped, and wrong or missing ones are named")
    func readingErrors() throws {
        // Straight through the conformance: the codec would read a refused payload again through `Codable`.
        func decode(_ json: String) throws -> Record {
            try BinaryPayload.fromJSON(Data(json.utf8)).withUnsafeBytes { bytes in
                var reader = BinaryPayloadReader(bytes)
                return try Record(from: &reader)
            }
        }
        let record = try decode(#"{"shapes":[{"point":{"_0":3}}],"extra":{"deep":[1,2]},"scores":[1,2],"title":"t","id":7}"#)
        #expect(record == Record(id: 7, title: "t", note: nil, scores: [1, 2], shapes: [.point(3)]))

        let mismatch = try #require(throws: DecodingError.self) { try decode(#"{"id":"seven","title":"t","scores":[],"shapes":[]}"#) }
        guard case let .typeMismatch(type, context) = mismatch else { Issue.record("\(mismatch)"); return }
        #expect(type == Int.self && context.debugDescription.hasPrefix("Expected Int at byte"))

        let missing = try #require(throws: DecodingError.self) { try decode(#"{"title":"t","scores":[],"shapes":[]}"#) }
        guard case let .keyNotFound(key, _) = missing else { Issue.record("\(missing)"); return }
        #expect(key.stringValue == "id")

        let unknownCase = try #require(throws: DecodingError.self) { try decode(#"{"id":1,"title":"t","scores":[],"shapes":[{"circle":{}}]}"#) }
        #expect("\(unknownCase)".contains(#"Shape has no case "circle""#))

        let twoCases = try #require(throws: DecodingError.self) { try decode(#"{"id":1,"title":"t","scores":[],"shapes":[{"empty":{},"point":{"_0":1}}]}"#) }
        #expect("\(twoCases)".contains("an object of one member, but found one of 2"))

        let tooBig = try #require(throws: DecodingError.self) { try decode(#"{"id":1,"title":"t","scores":[],"shapes":[{"wide":{"_0":1,"_1":300,"_2":1,"_3":true}}]}"#) }
        #expect("\(tooBig)".contains("does not fit in Int8"))
    }

    /// A conformance that refuses what `Codable` reads.
    struct Strict: Codable, Equatable, BinaryPayloadCodable {
        var count: Int
        init(count: Int) { self.count = count }
        func encode(to writer: inout BinaryPayloadWriter) throws { try writer.encodeObject { try $0.encode(count, forKey: "count") } }
        init(from reader: inout BinaryPayloadReader) throws {
            count = try reader.decodeMember(Int.self, forKey: "count")
            guard count >= 0 else { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "negative")) }
        }
    }

    @Test("a payload the conformance refuses is read again through Codable: its value, or its error with the coding path")
    func refusalFallsBackToCodable() throws {
        let codec = BinaryLogCodec()
        #expect(try codec.decode(Strict.self, from: try codec.encode(Strict(count: -1))) == Strict(count: -1))
        let payload = Data(try BinaryPayload.fromJSON(Data(#"{"id":1,"title":"t","scores":[],"shapes":[{"point":{"_0":"x"}}]}"#.utf8)))
        let error = try #require(throws: DecodingError.self) { try codec.decode(Record.self, from: payload) }
        guard case let .typeMismatch(_, context) = error else { Issue.record("\(error)"); return }
        #expect(context.codingPath.map(\.stringValue) == ["shapes", "0", "point", "_0"])
    }
}

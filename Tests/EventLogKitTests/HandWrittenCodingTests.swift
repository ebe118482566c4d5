@testable import BinaryPayloadKit
@testable import EventLogKit
import Foundation
import Testing

/// Hand-written binary conformances (`BinaryPayloadCodable`): the codec uses them, they write what `Codable` writes,
/// and what a conformance gets wrong, or what a payload holds that is wrong, is refused rather than logged or trapped on.
@Suite("Hand-written binary coding")
struct HandWrittenCodingTests {
    /// An enum of every shape of case, conformed by hand as the guide shows.
    enum Shape: Codable, Equatable, BinaryPayloadCodable {
        case empty
        case point(Int)
        case labelled(name: String, ratio: Double)
        case mixed([String], count: Int?, tags: [String: Int])
        case wide(UInt64, Int8, Float, Bool)

        func encode(to writer: inout BinaryPayloadWriter) throws {
            switch self {
            case .empty: writer.encodeCase("empty") { _ in }
            case let .point(x): try writer.encodeCase("point") { try $0.encode(x, forKey: "_0") }
            case let .labelled(name, ratio):
                try writer.encodeCase("labelled") {
                    try $0.encode(name, forKey: "name")
                    try $0.encode(ratio, forKey: "ratio")
                }
            case let .mixed(words, count, tags):
                try writer.encodeCase("mixed") {
                    try $0.encode(words, forKey: "_0")
                    try $0.encodeIfPresent(count, forKey: "count")
                    try $0.encode(tags, forKey: "tags")
                }
            case let .wide(big, small, float, flag):
                try writer.encodeCase("wide") {
                    try $0.encode(big, forKey: "_0")
                    try $0.encode(small, forKey: "_1")
                    try $0.encode(float, forKey: "_2")
                    try $0.encode(flag, forKey: "_3")
                }
            }
        }

        init(from reader: inout BinaryPayloadReader) throws {
            self = try reader.decodeCase { name, reader in
                switch name {
                case "empty": return .empty
                case "point": return .point(try reader.decodeMember(Int.self, forKey: "_0"))
                case "labelled":
                    var name: String?, ratio: Double?
                    try reader.decodeObject { key, reader in
                        switch key {
                        case "name": name = try reader.decode()
                        case "ratio": ratio = try reader.decode()
                        default: break
                        }
                    }
                    return .labelled(name: try name ?? reader.keyNotFound("name"), ratio: try ratio ?? reader.keyNotFound("ratio"))
                case "mixed":
                    var words: [String]?, count: Int?, tags: [String: Int]?
                    try reader.decodeObject { key, reader in
                        switch key {
                        case "_0": words = try reader.decode()
                        case "count": count = try reader.decode(Int?.self)
                        case "tags": tags = try reader.decode()
                        default: break
                        }
                    }
                    return .mixed(try words ?? reader.keyNotFound("_0"), count: count, tags: try tags ?? reader.keyNotFound("tags"))
                case "wide":
                    var big: UInt64?, small: Int8?, float: Float?, flag: Bool?
                    try reader.decodeObject { key, reader in
                        switch key {
                        case "_0": big = try reader.decode()
                        case "_1": small = try reader.decode()
                        case "_2": float = try reader.decode()
                        case "_3": flag = try reader.decode()
                        default: break
                        }
                    }
                    return .wide(
                        try big ?? reader.keyNotFound("_0"), try small ?? reader.keyNotFound("_1"),
                        try float ?? reader.keyNotFound("_2"), try flag ?? reader.keyNotFound("_3")
                    )
                default:
                    throw reader.unknownCase(name, of: Shape.self)
                }
            }
        }
    }

    /// A struct with an optional, arrays and nested conforming values.
    struct Record: Codable, Equatable, BinaryPayloadCodable {
        var id: Int
        var title: String
        var note: String?
        var scores: [Double]
        var shapes: [Shape]

        init(id: Int, title: String, note: String?, scores: [Double], shapes: [Shape]) {
            (self.id, self.title, self.note, self.scores, self.shapes) = (id, title, note, scores, shapes)
        }

        func encode(to writer: inout BinaryPayloadWriter) throws {
            try writer.encodeObject {
                try $0.encode(id, forKey: "id")
                try $0.encode(title, forKey: "title")
                try $0.encodeIfPresent(note, forKey: "note")
                try $0.encode(scores, forKey: "scores")
                try $0.encode(shapes, forKey: "shapes")
            }
        }

        init(from reader: inout BinaryPayloadReader) throws {
            var id: Int?, title: String?, note: String?, scores: [Double]?, shapes: [Shape]?
            try reader.decodeObject { key, reader in
                switch key {
                case "id": id = try reader.decode()
                case "title": title = try reader.decode()
                case "note": note = try reader.decode(String?.self)
                case "scores": scores = try reader.decode()
                case "shapes": shapes = try reader.decode()
                default: break
                }
            }
            self.init(
                id: try id ?? reader.keyNotFound("id"), title: try title ?? reader.keyNotFound("title"), note: note,
                scores: try scores ?? reader.keyNotFound("scores"), shapes: try shapes ?? reader.keyNotFound("shapes")
            )
        }
    }

    static let shapes: [Shape] = [
        .empty, .point(-7), .point(.max), .labelled(name: "café ☕️", ratio: 0.1), .labelled(name: "", ratio: -1e300),
        .mixed([], count: nil, tags: [:]), .mixed(["a", "b"], count: 3, tags: ["x": 1, "y": -2, "z": 3]),
        .mixed(["a"], count: nil, tags: ["after a nil member": 1]),
        .wide(.max, .min, 0.1, true), .wide(0, 0, -2.5, false),
    ]

    static let records: [Record] = [
        Record(id: 1, title: "one", note: nil, scores: [], shapes: []),
        Record(id: -42, title: String(repeating: "long ", count: 40), note: "kept", scores: [1, 2.5, -0.0], shapes: shapes),
    ]

    @Test("every shape of case and struct writes the bytes Codable writes, names the same case and reads them back")
    func matchesCodable() throws {
        for shape in Self.shapes { try BinaryPayload.checkHandWrittenCoding(of: shape) }
        for record in Self.records { try BinaryPayload.checkHandWrittenCoding(of: record) }
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

    @Test("what lies on a path is written as through Codable, whatever the path", arguments: [
        [], [.key("title")], [.key("nope")], [.count], [.index(0)], [.key("scores"), .index(1)], [.key("scores"), .count],
        [.key("shapes"), .index(6), .key("mixed"), .key("tags"), .key("y")], [.key("shapes"), .count],
        [.key("shapes"), .index(3), .key("labelled"), .count], [.key("shapes"), .key("x")], [.key("note")],
    ] as [[BinaryPayload.PathStep]])
    func pathsMatchCodable(_ path: [BinaryPayload.PathStep]) throws {
        for record in Self.records {
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

    @Test("an error thrown inside nested containers comes out whole, and the codec goes on writing what Codable writes")
    func errorInsideContainers() throws {
        let codec = BinaryLogCodec()
        let deep = Record(id: 1, title: "t", note: nil, scores: [1, .infinity], shapes: [.labelled(name: "n", ratio: 1)])
        for value in [deep, Record(id: 2, title: "t", note: "n", scores: [], shapes: [.mixed([], count: 1, tags: [:]), .labelled(name: "n", ratio: .nan)])] {
            let error = try #require(throws: EncodingError.self) { try codec.encode(value) }
            guard case .invalidValue = error else { Issue.record("\(error)"); continue }
        }
        for record in Self.records {
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
        let payload = [UInt8](try BinaryLogCodec().encode(Self.records[1]))
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

@testable import BinaryPayloadKit
@testable import EventLogKit
import Foundation
import Synchronization
import TestSupport
import Testing

/// The binary codec: every `Codable` value round-trips, every payload renders as the JSON Foundation would have
/// written, case names are learned while encoding, and damaged bytes are refused with an error.
@Suite("Binary codec")
struct BinaryCodecTests {
    let codec = BinaryLogCodec()

    enum Action: Codable, Equatable {
        case updateQuery(String?)
        case loadNextPage
        case setRepos([String], nextPage: Int?)
        case nested(Inner)
    }

    struct Inner: Codable, Equatable {
        var flag: Bool
        var ratio: Double
        var small: Int8
        var big: UInt64
        var negative: Int64
        var tags: [String: Int]
        var matrix: [[Int]]
        var blob: Data
        var link: URL
        var price: Decimal
        var when: Date
        var nothing: String?
        var text: String
    }

    static let inner = Inner(
        flag: true, ratio: -2.5e-3, small: -128, big: .max, negative: .min, tags: ["a": 1, "é\n\"": -2],
        matrix: [[], [1, 2], [3]], blob: Data([0, 1, 2, 255]), link: URL(string: "https://example.com/a?b=c")!,
        price: Decimal(string: "12.345")!, when: Date(timeIntervalSinceReferenceDate: 12.5), nothing: nil,
        text: "multi\u{0}line \u{1F600}")

    func roundTrip<T: Codable & Equatable>(_ value: T) throws -> [UInt8] {
        let payload = try codec.encode(value)
        #expect(try codec.decode(T.self, from: payload) == value)
        return [UInt8](payload)
    }

    /// The JSON a payload renders as, compared with Foundation's JSON of the same value as parsed objects.
    func expectRendersAsFoundationJSON<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let rendered = try BinaryPayload.json(try codec.encode(value))
        let foundation = try JSONEncoder().encode(value)
        let parsedRendered = try JSONSerialization.jsonObject(with: rendered, options: .fragmentsAllowed) as? NSObject
        let parsedFoundation = try JSONSerialization.jsonObject(with: foundation, options: .fragmentsAllowed) as? NSObject
        #expect(parsedRendered == parsedFoundation, "\(String(decoding: rendered, as: UTF8.self))", sourceLocation: sourceLocation)
    }

    @Test("enums, structs, optionals, collections and Foundation types round-trip")
    func roundTrips() throws {
        for action: Action in [.updateQuery("swift"), .updateQuery(nil), .loadNextPage, .setRepos(["a", "b"], nextPage: 2),
                               .setRepos([], nextPage: nil), .nested(Self.inner)] {
            _ = try roundTrip(action)
        }
        _ = try roundTrip([1, -1, Int.max, Int.min])
        _ = try roundTrip("just a string")
        _ = try roundTrip([Inner?.none, Self.inner])
        _ = try roundTrip([1: "one", -7: "minus seven"])
        _ = try roundTrip(Float(1.5))
    }

    @Test("a payload renders as the JSON Foundation writes for the same value")
    func rendersAsJSON() throws {
        try expectRendersAsFoundationJSON(Action.setRepos(["a"], nextPage: 2))
        try expectRendersAsFoundationJSON(Action.loadNextPage)
        try expectRendersAsFoundationJSON(Action.nested(Self.inner))
        try expectRendersAsFoundationJSON([1.0, 0.1, 1e300, -0.0])
        #expect(String(decoding: try BinaryPayload.json(try codec.encode(Action.updateQuery("rx"))), as: UTF8.self)
            == #"{"updateQuery":{"_0":"rx"}}"#)
    }

    @Test("the example of docs/FORMAT.md encodes to the bytes it shows")
    func formatExample() throws {
        enum Mutation: Codable { case setRepos([String], nextPage: Int) }
        let hex = try codec.encode(Mutation.setRepos(["a"], nextPage: 2)).map { String($0, radix: 16, uppercase: true) }
            .map { $0.count == 1 ? "0" + $0 : $0 }.joined(separator: " ")
        #expect(hex == "08 09 73 65 74 52 65 70 6F 73 08 03 5F 30 07 06 01 61 0F 09 6E 65 78 74 50 61 67 65 03 04 00 00")
    }

    @Test("it is smaller than the JSON of the same value")
    func compact() throws {
        let binary = try codec.encode(Action.setRepos(["ReactorKit", "RxSwift"], nextPage: 2))
        let json = try JSONLogCodec().encode(Action.setRepos(["ReactorKit", "RxSwift"], nextPage: 2))
        #expect(binary.count < json.count)
    }

    @Test("the encoder learns an enum's case name, and names nothing else")
    func caseNames() throws {
        #expect(try codec.encodeNamingCase(Action.updateQuery("a")).caseName == "updateQuery")
        #expect(try codec.encodeNamingCase(Action.loadNextPage).caseName == "loadNextPage")
        #expect(try codec.encodeNamingCase(Action.nested(Self.inner)).caseName == "nested")
        #expect(try codec.encodeNamingCase(Self.inner).caseName == nil)
        #expect(try codec.encodeNamingCase([1, 2]).caseName == nil)
        #expect(try codec.encodeNamingCase(OutOfOrder(first: 1, second: 2)).caseName == nil)
    }

    /// Writes its containers out of order: the first one after the second is opened and used.
    struct OutOfOrder: Codable, Equatable {
        var first: Int
        var second: Int
        enum Keys: String, CodingKey { case first, second, list }

        init(first: Int, second: Int) {
            self.first = first
            self.second = second
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            try container.encode(first, forKey: .first)
            try list.encode(second)
            try container.encode(second, forKey: .second)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            second = try container.decode(Int.self, forKey: .second)
            first = try container.decode(Int.self, forKey: .first)
        }
    }

    class Base: Codable {
        var id = 1
    }

    final class Derived: Base, @unchecked Sendable {
        var name = "x"
        enum Keys: CodingKey { case name }
        override init() { super.init() }
        required init(from decoder: any Decoder) throws {
            name = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .name)
            try super.init(from: try decoder.container(keyedBy: Keys.self).superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(name, forKey: .name)
            try super.encode(to: container.superEncoder())
        }
    }

    @Test("a type that writes out of order, or through a super encoder, still encodes (through the JSON fallback)")
    func outOfOrder() throws {
        let payload = try roundTrip(OutOfOrder(first: 1, second: 2))
        #expect(String(decoding: try BinaryPayload.json(Data(payload)), as: UTF8.self) == #"{"first":1,"list":[2],"second":2}"#)
        let derived = Derived()
        derived.id = 9
        derived.name = "nine"
        let decoded = try codec.decode(Derived.self, from: try codec.encode(derived))
        #expect(decoded.id == 9 && decoded.name == "nine")
    }

    @Test("a non-finite double is refused, as JSON refuses it")
    func nonFinite() {
        #expect(throws: EncodingError.self) { try codec.encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try codec.encode(Double.infinity) }
    }

    @Test("one codec encodes each value as a new one would, whatever it encoded before, and on many threads at once")
    func reusedEncoder() throws {
        // The codec reuses one encoder from value to value: a refused value, a fallback or a large state before
        // must leave nothing behind.
        let large = (0..<20_000).map { "value \($0)" }
        let values: [Action] = [.updateQuery("swift"), .loadNextPage, .setRepos(["a", "b"], nextPage: 2), .nested(Self.inner)]
        for value in values {
            // Refused halfway through an array, with a container still open.
            #expect(throws: EncodingError.self) { try codec.encode([1.0, .nan]) }
            #expect(try codec.encode(value) == BinaryLogCodec().encode(value))
            _ = try codec.encode(OutOfOrder(first: 1, second: 2))
            #expect(try codec.encodeNamingCase(value).payload == BinaryLogCodec().encode(value))
            #expect(try codec.encode(large).count > 64 << 10)
            #expect(try codec.encode(value) == BinaryLogCodec().encode(value))
            // A path encoding (what blame compares) keeps only its path; the next value is whole again.
            let kept = try codec.encode(value, keepingOnly: [.key("none")])
            #expect(try kept == BinaryLogCodec().encode(value, keepingOnly: [.key("none")]))
            #expect(try kept != BinaryLogCodec().encode(value))
            #expect(try codec.encode(value) == BinaryLogCodec().encode(value))
        }
        // A payload holds its own bytes, not the buffer the codec keeps, grown by the large value before it.
        _ = try codec.encode(Array(large.prefix(2_000)))
        #expect(try codec.encodeBytesNamingCase(Action.loadNextPage).payload.capacity < 1_024)
        let expected = try values.map { try BinaryLogCodec().encode($0) }
        let mismatches = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for round in 0..<2_000 {
                let index = (thread + round) % values.count
                if (try? codec.encode(values[index])) != expected[index] { mismatches.withLock { $0 += 1 } }
            }
        }
        #expect(mismatches.withLock { $0 } == 0)
    }

    /// Reads `{"a": {"b": [{"c": Int}]}}` through nested containers alone, none of them a value of its own.
    struct DeeplyNested: Decodable {
        enum Keys: CodingKey { case a, b, c }
        let c: Int

        init(from decoder: any Decoder) throws {
            let a = try decoder.container(keyedBy: Keys.self).nestedContainer(keyedBy: Keys.self, forKey: .a)
            var b = try a.nestedUnkeyedContainer(forKey: .b)
            c = try b.nestedContainer(keyedBy: Keys.self).decode(Int.self, forKey: .c)
        }
    }

    @Test("a coding path names every nested container on the way, however deep")
    func deepCodingPath() throws {
        #expect(try codec.decode(DeeplyNested.self, from: try codec.encode(["a": ["b": [["c": 7]]]])).c == 7)
        let error = #expect(throws: DecodingError.self) {
            try codec.decode([DeeplyNested].self, from: try codec.encode([["a": ["b": [["c": "seven"]]]]]))
        }
        if case .typeMismatch(_, let context) = error {
            #expect(context.codingPath.map(\.stringValue) == ["0", "a", "b", "0", "c"])
        } else {
            Issue.record("expected a type mismatch, got \(String(describing: error))")
        }
    }

    @Test("one codec decodes each payload as a new one would, whatever it decoded before, and on many threads at once")
    func reusedDecoder() throws {
        let values: [Action] = [.updateQuery("swift"), .loadNextPage, .setRepos(["a", "b"], nextPage: 2), .nested(Self.inner)]
        let payloads = try values.map { try codec.encode($0) }
        let wrong = Data(try BinaryPayload.fromJSON(Data(#"{"setRepos":{"_0":["a",3],"nextPage":2}}"#.utf8)))
        for (value, payload) in zip(values, payloads) {
            // Refused deep inside, with containers still open.
            #expect(throws: DecodingError.self) { try codec.decode(Action.self, from: wrong) }
            #expect(try codec.decode(Action.self, from: payload) == value)
        }
        let mismatches = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for round in 0..<2_000 {
                let index = (thread + round) % values.count
                if (try? codec.decode(Action.self, from: payloads[index])) != values[index] { mismatches.withLock { $0 += 1 } }
            }
        }
        #expect(mismatches.withLock { $0 } == 0)
    }

    @Test("a wrong type or a missing key is a DecodingError with its coding path")
    func mismatches() throws {
        let payload = try codec.encode(Action.setRepos(["a"], nextPage: 2))
        let error = #expect(throws: DecodingError.self) { try codec.decode(Action.self, from: try codec.encode(["setRepos": ["_0": 3]])) }
        if case .typeMismatch(_, let context) = error {
            #expect(context.codingPath.map(\.stringValue) == ["setRepos", "_0"])
        } else {
            Issue.record("expected a type mismatch, got \(String(describing: error))")
        }
        #expect(throws: DecodingError.self) { try codec.decode(Inner.self, from: payload) }
        #expect(throws: DecodingError.self) { try codec.decode(Int8.self, from: try codec.encode(300)) }
    }

    @Test("arrays of strings and integers, written and read in one pass, match the generic path and report a wrong element with its coding path")
    func arraysInOnePass() throws {
        #expect(try codec.decode([String].self, from: try codec.encode(["a", "", "ü"])) == ["a", "", "ü"])
        #expect(try codec.decode([Int].self, from: try codec.encode([0, -1, Int.max, Int.min])) == [0, -1, Int.max, Int.min])
        #expect(try codec.decode([Int].self, from: try codec.encode([UInt64(5)])) == [5], "an unsigned element, by the generic path")
        #expect(try codec.decode([Int].self, from: try codec.encode([Int]())) == [])
        // Written in one pass too: the same bytes as through a container (which `ContiguousArray` takes).
        #expect(try codec.encode(["a", "", "ü"]) == (try codec.encode(ContiguousArray(["a", "", "ü"]))))
        #expect(try codec.encode([0, -1, Int.max, Int.min]) == (try codec.encode(ContiguousArray([0, -1, Int.max, Int.min]))))
        #expect(try codec.encode([[String]]()) == (try codec.encode(ContiguousArray<[String]>())))
        let cases: [(json: String, path: [String])] = [
            (#"{"setRepos":{"_0":["a",3],"nextPage":2}}"#, ["setRepos", "_0", "1"]),
            (#"{"setRepos":{"_0":["a"],"nextPage":"two"}}"#, ["setRepos", "nextPage"]),
            (#"[[1,2],[3,"four"]]"#, ["1", "1"]),
        ]
        for (json, path) in cases {
            let payload = Data(try BinaryPayload.fromJSON(Data(json.utf8)))
            let error = #expect(throws: DecodingError.self) {
                if json.hasPrefix("[") { _ = try codec.decode([[Int]].self, from: payload) } else { _ = try codec.decode(Action.self, from: payload) }
            }
            if case .typeMismatch(_, let context) = error {
                #expect(context.codingPath.map(\.stringValue) == path, "\(json)")
            } else {
                Issue.record("expected a type mismatch for \(json), got \(String(describing: error))")
            }
        }
    }

    @Test("a string decodes whether ASCII or not, and bytes that are not UTF-8 are refused, by the decoder and the renderer")
    func utf8() throws {
        for text in ["plain", "", "ü and 🙂", "\u{7F}"] {
            #expect(try codec.decode(String.self, from: try codec.encode(text)) == text)
        }
        for bad: [UInt8] in [[0xFF], [0x61, 0xC3], [0xED, 0xA0, 0x80], [0x61, 0x80, 0x62]] {
            let payload = Data([BinaryPayload.string, UInt8(bad.count)] + bad)
            #expect(throws: DecodingError.self) { try codec.decode(String.self, from: payload) }
            #expect(throws: BinaryPayload.Malformed.self) { try BinaryPayload.json(payload) }
        }
    }

    @Test("every truncation and every flipped byte of a payload is refused or decodes, never crashes")
    func damaged() throws {
        let payload = [UInt8](try codec.encode(Action.nested(Self.inner)))
        for length in 0..<payload.count {
            let cut = Data(payload[..<length])
            #expect(throws: (any Error).self) { try codec.decode(Action.self, from: cut) }
            #expect(throws: BinaryPayload.Malformed.self) { try BinaryPayload.json(cut) }
            #expect(!cut.withUnsafeBytes { BinaryPayload.isWellFormed($0) }, "cut at \(length) of \(payload.count)")
        }
        #expect(payload.withUnsafeBytes { BinaryPayload.isWellFormed($0) })
        for index in payload.indices {
            for bit in 0..<8 {
                var bytes = payload
                bytes[index] ^= 1 << bit
                _ = try? codec.decode(Action.self, from: Data(bytes))
                if let json = try? BinaryPayload.json(Data(bytes)) {
                    #expect((try? JSONSerialization.jsonObject(with: json, options: .fragmentsAllowed)) != nil)
                }
            }
        }
        // Trailing bytes are for `verify` to find; decoding reads only the value.
        #expect(throws: BinaryPayload.Malformed.self) { try BinaryPayload.json(Data(payload + [0])) }
        #expect(!(payload + [0]).withUnsafeBytes { BinaryPayload.isWellFormed($0) }, "one value and nothing after it")
    }

    @Test("a struct or a dictionary cut after its last member, losing only end marks, is refused")
    func cutEndMarks() throws {
        // Decoding stops reading an object once it has the members it wants: only the walk over the whole value
        // before decoding notices that the end marks are missing.
        let structure = [UInt8](try codec.encode(Self.inner))
        let dictionary = [UInt8](try codec.encode(["only": [1, 2]]))
        for length in [structure.count - 1, structure.count - 2] {
            #expect(throws: DecodingError.self) { try codec.decode(Inner.self, from: Data(structure[..<length])) }
        }
        for length in [dictionary.count - 1, dictionary.count - 2] {
            #expect(throws: DecodingError.self) { try codec.decode([String: [Int]].self, from: Data(dictionary[..<length])) }
        }
    }

    /// A type as deep as its payload says: what a hostile payload would use to exhaust the decoder's stack.
    indirect enum Tree: Codable, Equatable {
        case leaf
        case node([Tree])
    }

    @Test("hostile nesting is refused at the depth limit, not by exhausting the stack")
    func deepNesting() throws {
        let deep = Data([UInt8](repeating: BinaryPayload.array, count: 100_000))
        #expect(throws: BinaryPayload.Malformed.self) { try BinaryPayload.json(deep) }
        #expect(throws: (any Error).self) { try codec.decode([Int].self, from: deep) }
        // {"node":{"_0":[ … ]}} nested 100,000 times, into a recursive type.
        let node: [UInt8] = [BinaryPayload.object, 5] + Array("node".utf8) + [BinaryPayload.object, 3] + Array("_0".utf8) + [BinaryPayload.array]
        let hostile = Data(Array([[UInt8]](repeating: node, count: 100_000).joined()))
        let error = #expect(throws: DecodingError.self) { try codec.decode(Tree.self, from: hostile) }
        #expect("\(String(describing: error))".contains("nest deeper than 512"))
        let shallow = Tree.node([.node([.leaf]), .leaf])
        #expect(try codec.decode(Tree.self, from: try codec.encode(shallow)) == shallow)
    }

    /// A chain of objects ending in an array of strings.
    final class Chain: Decodable {
        let next: Chain?
        let names: [String]?
    }

    @Test("strings at the depth limit are refused as any value there is, by the one-pass read of [String] too")
    func stringsAtTheLimit() throws {
        // Written byte by byte (docs/FORMAT.md): deeper than `fromJSON` lets JSON nest.
        func chain(_ links: Int) throws -> Data {
            let link: [UInt8] = [BinaryPayload.object, 5] + Array("next".utf8)
            let end: [UInt8] = [BinaryPayload.object, 6] + Array("names".utf8)
                + [BinaryPayload.array, BinaryPayload.string, 1, UInt8(ascii: "a"), BinaryPayload.arrayEnd, 0]
            return Data(Array(repeating: link, count: links).joined() + end + Array(repeating: 0, count: links))
        }
        // The array sits `links + 1` containers deep, its strings one deeper.
        var chained: Chain? = try codec.decode(Chain.self, from: try chain(509))
        var links = 0
        while let next = chained?.next { chained = next; links += 1 }
        #expect(links == 509 && chained?.names == ["a"])
        let error = #expect(throws: DecodingError.self) { try codec.decode(Chain.self, from: try chain(510)) }
        #expect("\(String(describing: error))".contains("nest deeper than 512"))
    }

    @Test("a payload's codec decodes it from bytes or data: binary and JSON alike, and a codec this version does not know throws")
    func decodingByCodecID() throws {
        let value = Action.updateQuery("swift")
        let binary = try codec.encode(value)
        let json = try JSONLogCodec().encode(value)
        for (id, payload) in [(CodecID.binary, binary), (.json, json)] {
            #expect(try id.decode(Action.self, from: payload) == value)
            #expect(try payload.withUnsafeBytes { try id.decode(Action.self, from: $0) } == value)
        }
        // An empty JSON payload is a decoding error, not a trap on its missing base address.
        _ = #expect(throws: DecodingError.self) { try Data().withUnsafeBytes { try CodecID.json.decode(Action.self, from: $0) } }
        for unknown in [CodecID.none, CodecID(rawValue: 9)] {
            let error = try #require(throws: EventLogError.self) { try binary.withUnsafeBytes { try unknown.decode(Action.self, from: $0) } }
            #expect("\(error)".contains("which this program does not know"))
            _ = #expect(throws: EventLogError.self) { try unknown.decode(Action.self, from: binary) }
        }
    }

    @Test("JSON converts to the binary form and renders back")
    func fromJSON() throws {
        let json = #"{"a":[1,-2.5,true,null,"\u00e9\n"],"b":{"c":{}},"big":18446744073709551615}"#
        let rendered = try BinaryPayload.json(Data(try BinaryPayload.fromJSON(Data(json.utf8))))
        #expect(String(decoding: rendered, as: UTF8.self) == #"{"a":[1,-2.5,true,null,"é\n"],"b":{"c":{}},"big":18446744073709551615}"#)
        #expect(throws: BinaryPayload.InvalidJSON.self) { try BinaryPayload.fromJSON(Data("[1,".utf8)) }
    }

    @Test("JSON text the other readers refuse is refused here too, with a sentence about the JSON", arguments: [
        (#""\q""#, "an unknown escape"), ("\"a\u{1}b\"", "a control character"), (#""\u+00e9""#, "four hexadecimal digits"),
        (#""\udc00""#, "a lone low surrogate"), (#""\ud800x""#, "without its low half"), ("[1] 2", "text follows"),
        ("01", "a leading zero"), ("[1,]", "unexpected character"), (#"{1:2}"#, "expected a key"), ("1e999", "out of range"),
    ])
    func fromJSONRefuses(_ text: String, _ reason: String) {
        let error = #expect(throws: BinaryPayload.InvalidJSON.self) { try BinaryPayload.fromJSON(Data(text.utf8)) }
        #expect(error?.description.hasPrefix("The JSON text is not valid at byte") == true)
        #expect(error?.reason.contains(reason) == true, "\(text): \(String(describing: error))")
    }

    @Test("a decimal number beyond a double's range is malformed, so no reader renders JSON another refuses")
    func decimalOutOfRange() throws {
        // Found by the fuzzer: rendered as 1e59017, which the JSON parser refuses as out of range.
        let payload = Data([0x09, 7] + Array("1e59017".utf8))
        #expect(throws: BinaryPayload.Malformed.self) { try BinaryPayload.json(payload) }
        #expect(throws: DecodingError.self) { try codec.decode(Decimal.self, from: payload) }
        #expect(throws: BinaryPayload.InvalidJSON.self) { try BinaryPayload.fromJSON(Data("[1e59017]".utf8)) }
        let tiny = Data([0x09, 8] + Array("1e-59017".utf8))
        #expect(String(decoding: try BinaryPayload.json(tiny), as: UTF8.self) == "1e-59017")
        #expect(try codec.decode(Decimal.self, from: try codec.encode(Decimal.greatestFiniteMagnitude)) == .greatestFiniteMagnitude)
    }
}

/// Logs mix codecs: each record names its own, so a log written as JSON keeps reading after its app moves to binary.
@Suite("Mixed codecs")
struct MixedCodecTests {
    enum Mutation: Codable, Equatable { case add(Int), rename(String) }

    @Test("a log written with JSON and continued with binary reads, decodes and verifies whole")
    func jsonThenBinary() throws {
        let scratch = ScratchDirectory()
        let path = scratch.file("mixed.reactorlog")
        var json = EventLogConfiguration()
        json.codec = JSONLogCodec()
        let first = try EventLog.open(at: path, configuration: json)
        let stream = try first.openStream(named: "s", reactorType: "S", schemaFingerprint: "v1", initialState: 0)
        try stream.append(.mutation, Mutation.add(1), caseName: "add")
        try first.close()

        let second = try EventLog.open(at: path)
        #expect(second.configuration.codec.id == .binary, "binary is the default")
        let resumed = try second.openStream(named: "s", reactorType: "S", schemaFingerprint: "v1", initialState: 0)
        try resumed.append(.mutation, Mutation.rename("b"), caseName: "rename")
        try second.flush()
        let entries = try second.readEntries(EntryQuery(stream: "s", kinds: [.mutation]))
        #expect(entries.map(\.codec) == [.json, .binary])
        #expect(try entries.map { try second.decode(Mutation.self, from: $0.payload, codec: $0.codec) } == [.add(1), .rename("b")])
        #expect(try entries.map { String(decoding: try #require(try $0.codec.json($0.payload)), as: UTF8.self) }
            == [#"{"add":{"_0":1}}"#, #"{"rename":{"_0":"b"}}"#])
        #expect(try second.verify().isHealthy)
        try second.close()
    }
}

extension MixedCodecTests {
    @Test("verify names a binary payload that is not well formed")
    func verifyBinary() throws {
        let scratch = ScratchDirectory()
        let log = try EventLog.open(at: scratch.file("bad.reactorlog"))
        let stream = try log.openStream(named: "s", reactorType: "S", schemaFingerprint: "v1", initialState: 0)
        try stream.append(EntryDraft(kind: .mutation, caseName: "add", payload: Data([0x08, 0x02, 0x61]), codec: .binary))
        try log.flush()
        let report = try log.verify()
        #expect(!report.isHealthy)
        #expect(report.firstError?.message.contains("its binary payload is not well formed") == true, "\(report)")
        try log.close()
    }
}

import EventLogKit
import Foundation
@testable import ReactorLogInspector
import TestSupport
import Testing

/// How `reactorlog log` shows a payload: as Swift would print the value.
@Suite("reactorlog payload text")
struct EntryFormatterTests {
    enum Mutation: Codable {
        case move(to: Int, from: Int)
        case place(Int, Int, label: String)
        case many(Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int)
        case reset
    }

    /// Each value appended to a log whose codec is `codec`, read back and shown.
    func shown(_ values: [Mutation], codec: any LogCodec) throws -> [String] {
        let scratch = ScratchDirectory()
        var configuration = EventLogConfiguration()
        configuration.codec = codec
        let log = try EventLog.open(at: scratch.file("payloads.reactorlog"), configuration: configuration)
        let stream = try log.openStream(named: "board", reactorType: "Board", schemaFingerprint: "v1", initialState: 0)
        for value in values { try stream.append(.mutation, value, caseName: "m") }
        try log.flush()
        let entries = try log.readEntries(EntryQuery(kinds: [.mutation]))
        try log.close()
        return entries.map(EntryFormatter.payload)
    }

    @Test("a binary payload shows a case's arguments in their declared order, as Swift prints them")
    func declaredOrder() throws {
        let values: [Mutation] = [.move(to: 2, from: 1), .place(3, 4, label: "x"), .many(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), .reset]
        #expect(try shown(values, codec: BinaryLogCodec()) == [
            "move(to: 2, from: 1)", #"place(3, 4, label: "x")"#, "many(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)", "reset",
        ])
        // JSON written with sorted keys keeps no order: labels come after the unlabeled arguments, alphabetically.
        #expect(try shown([.move(to: 2, from: 1)], codec: JSONLogCodec()) == ["move(from: 1, to: 2)"])
    }

    /// A mutation entry of `payload` in the binary codec.
    static func entry(_ payload: Data) -> LogEntry {
        LogEntry(
            sequence: 1, streamID: 1, stream: "board", kind: .mutation, timestamp: 0, cause: nil, caseName: "m",
            codec: .binary, payload: payload)
    }

    /// The binary payload of JSON text, its members kept as written (repeated ones too).
    static func binary(_ json: String) throws -> Data { try CodecID.binary.payload(fromJSON: Data(json.utf8)) }

    @Test("a case read straight from its bytes shows as its whole value does; shapes it cannot tell read the whole value")
    func caseReadInPlace() throws {
        let direct = [
            #"{"move":{"to":2,"from":1}}"#, #"{"place":{"_0":3,"_1":4,"label":"x"}}"#, #"{"reset":{}}"#,
            #"{"set":{"_0":"a string of more than sixty characters, which the listing cuts short…"}}"#,
            #"{"page":{"_0":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30]}}"#,
            #"{"swap":{"_1":1,"_0":2}}"#, #"{"nest":{"p":{"b":1,"a":[true,null,1.5,-3]}}}"#, #"{"one":7}"#,
            #"{"wide":{"_0":0,"_1":1,"_2":2,"_3":3,"_4":4,"_5":5,"_6":6,"_7":7,"_8":8,"_9":9,"_10":10,"_11":11}}"#,
            #"{"emoji":{"_0":"👩‍👩‍👧 family","name":"\u00e9"}}"#,
        ]
        let whole = [
            #"{"twice":{"a":1,"a":2}}"#, #"{"kelvin":{"\u212a":1,"K":2}}"#, #"{"spaced":{"_a":1," _a":2}}"#,
            #"{"m":1,"n":2}"#, #""text""#, #"[1,2]"#, #"{"accent":{"\u00e9":1}}"#,
            "{\"many\":{" + (0..<17).map { "\"_\($0)\":\($0)" }.joined(separator: ",") + "}}",
        ]
        for json in direct + whole {
            let payload = try Self.binary(json)
            let entry = Self.entry(payload)
            #expect(EntryFormatter.payload(entry) == EntryFormatter.payloadOfValue(entry), "\(json)")
            var read: [UInt8] = []
            let inPlace = payload.withUnsafeBytes { EntryFormatter.appendCaseCall($0, to: &read) }
            #expect(inPlace == direct.contains(json), "\(json): \(inPlace ? String(decoding: read, as: UTF8.self) : "read whole")")
            #expect(inPlace || read.isEmpty, "\(json): given up after appending")
        }
        #expect(EntryFormatter.payload(Self.entry(try Self.binary(#"{"swap":{"_1":1,"_0":2}}"#))) == "swap(2, 1)")
        #expect(EntryFormatter.payload(Self.entry(try Self.binary(#"{"twice":{"a":1,"a":2}}"#))) == "twice(a: 2)")
    }

    @Test("a string payload, or an effect's error, longer than 100 characters is cut to 100 in a listing; a shorter one is whole")
    func longStrings() throws {
        func shown(_ json: String, kind: EntryKind = .action) throws -> String {
            EntryFormatter.payload(LogEntry(
                sequence: 1, streamID: 1, stream: "board", kind: kind, timestamp: 0, cause: nil, caseName: "m",
                codec: .binary, payload: try Self.binary(json)))
        }
        // Before, a string was listed whole: a 30 MB payload was a 30 MB line.
        let long = try shown("\"" + String(repeating: "é", count: 30_000) + "\"")
        #expect(long == String(repeating: "é", count: 99) + "…")
        #expect(try shown("\"" + String(repeating: "x", count: 100) + "\"") == String(repeating: "x", count: 100))
        #expect(try shown(#"{"type":"E","message":"\#(String(repeating: "m", count: 200))"}"#, kind: .effectError) == "E: " + String(repeating: "m", count: 96) + "…")
    }

    @Test("damaged payloads show the same read in place or whole")
    func caseReadInPlaceDamaged() throws {
        let seeds = try [
            #"{"move":{"to":2,"from":1}}"#, #"{"place":{"_0":3,"_1":4,"label":"x"}}"#, #"{"reset":{}}"#,
            #"{"nest":{"p":{"b":1,"a":[true,null,1.5,-3,"é"]}}}"#, #"{"one":7}"#,
        ].map(Self.binary)
        var generator = SystemRandomNumberGenerator()
        var readInPlace = 0
        for trial in 0..<20_000 {
            var bytes = [UInt8](seeds[trial % seeds.count])
            for _ in 0...Int.random(in: 0...2, using: &generator) {
                switch Int.random(in: 0...2, using: &generator) {
                case 0: bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.removeLast(Int.random(in: 0...min(3, bytes.count - 1), using: &generator))
                default: bytes.insert(UInt8.random(in: 0...12, using: &generator), at: Int.random(in: 0...bytes.count, using: &generator))
                }
            }
            let entry = Self.entry(Data(bytes))
            var read: [UInt8] = []
            if bytes.withUnsafeBytes({ EntryFormatter.appendCaseCall($0, to: &read) }) { readInPlace += 1 }
            #expect(EntryFormatter.payload(entry) == EntryFormatter.payloadOfValue(entry), "\(bytes)")
        }
        // Many damaged payloads are still a well-formed case, which the fast read shows.
        #expect(readInPlace > 1_000)
    }
}

import EventLogKit
import Foundation
@testable import ReactorLogInspector
import TestSupport
import Testing
import TimeTravel

/// The inspector's `--json` output: sorted keys, pretty-printed, empty containers closed where they open.
@Suite("reactorlog JSON output")
struct JSONOutputTests {
    struct Sample: Encodable {
        var empty: [Int] = []
        var nested: [[String: [Int]]] = [[:], ["a": []]]
        var text = "[\n\n]"
        var values = [1, 2]
    }

    @Test("an empty array or object is [] or {}, nested or not; strings and full containers are untouched")
    func emptyContainers() throws {
        let text = try jsonString(Sample(), pretty: true)
        #expect(text == """
            {
              "empty" : [],
              "nested" : [
                {},
                {
                  "a" : []
                }
              ],
              "text" : "[\\n\\n]",
              "values" : [
                1,
                2
              ]
            }
            """)
        #expect(try jsonString(Sample(), pretty: false) == #"{"empty":[],"nested":[{},{"a":[]}],"text":"[\n\n]","values":[1,2]}"#)
    }

    /// Stored JSON that reaches every decision of a line's rendering: members out of order, nested and empty; escapes
    /// by letter and by number; characters a terminal acts on; numbers in every spelling; fragments; duplicate keys;
    /// text that is not JSON (listed in base64) and a number no double holds.
    static let storedJSON = [
        #"{"b":1,"a":[],"c":{},"d":[{}, [ ]]}"#,
        #"{"z":"\b\f\u0001 \"q\" \\ \/ é 😀 \u2028 \u0085 \u202e \u007f","n":1.50,"e":1E2,"m":-0,"x":-0.0,"f":0.1}"#,
        #"{"big":18446744073709551615,"huge":123456789012345678901234567890,"low":-9223372036854775808,"t":true,"nil":null}"#,
        #"{"é":1,"e":2,"Z":3,"😀":4,"a b":5,"":6}"#,
        #"{"a":1,"a":2}"#, #"42"#, #""text""#, #"[1,[],{},[[]]]"#, #"{"a":"#, #"1e400"#, "",
    ]

    /// A value of the binary codec, declared out of key order, whose dictionaries record their members in hash order.
    struct Mixed: Codable {
        var zeta: String
        var alpha: [String: Double]
        var nested: [[String: [Int]]]
        var big: UInt64
        var small: Int64
        var maybe: Bool?
        var empty: [String]
    }

    static let mixed = [
        Mixed(
            zeta: "\u{8}\u{C}\u{1}\t\n\"\\/é😀\u{2028}\u{85}\u{202E}\u{7F}",
            alpha: ["tenth": 0.1, "minusZero": -0.0, "e15": 1e15, "e16": 1e16, "eighth": 123_456_789.125, "tiny": .leastNonzeroMagnitude,
                    "largest": .greatestFiniteMagnitude, "one": 1, "negative": -2.5],
            nested: [[:], ["b": [], "a": [1, -1]]], big: .max, small: .min, maybe: nil, empty: []),
        Mixed(zeta: "", alpha: [:], nested: [], big: 0, small: 0, maybe: true, empty: [""]),
    ]

    /// The line's value, for comparing two spellings of it (`\b` or `\u0008`, `1e15` with or without `.0`).
    func value(_ line: String) throws -> JSONValue {
        try JSONValue(parsing: Data(line.utf8))
    }

    @Test("log --json and tail --json write JSONEncoder's values for EntryJSON, keys sorted at every level, for JSON and binary payloads of every shape")
    func handWrittenLines() async throws {
        let scratch = ScratchDirectory()
        let path = scratch.file("lines.reactorlog")
        let log = try EventLog.open(at: path)
        let stream = try log.openStream(named: "mixed", reactorType: "Mixed", schemaFingerprint: "v1", initialState: 0)
        for json in Self.storedJSON {
            try stream.append(EntryDraft(kind: .mutation, caseName: "stored", payload: Data(json.utf8), codec: .json))
        }
        for value in Self.mixed { try stream.append(.mutation, value, caseName: "mixed") }
        try stream.append(EntryDraft(kind: .action, caseName: "tap", payload: Data(#"{"y":1,"x":2}"#.utf8), callSite: "App/View.swift:42"))
        try stream.append(EntryDraft(kind: .action, caseName: "untracked", payload: Data("[]".utf8)))
        try stream.append(EntryDraft(kind: .action, caseName: "other", payload: Data([1, 2, 3]), codec: CodecID(rawValue: 200)))
        try stream.close()
        try await log.flush()
        var references: [String] = []
        var entries = log.entries(EntryQuery())
        while let entry = try entries.next() {
            references.append(terminalSafeJSON(try jsonString(EntryJSON(entry, callSite: try log.callSite(of: entry)), pretty: false)))
        }
        try log.close()
        #expect(references.count == Self.storedJSON.count + Self.mixed.count + 5)
        #expect(references.contains { $0.contains(#""callSite":"App/View.swift:42""#) })
        #expect(references.filter { $0.contains("payloadBase64") }.count == 3)

        let listed = try await Tool.run(["log", path, "--json"])
        #expect(listed.status == 0, "\(listed.error)")
        #expect(listed.lines.count == references.count)
        for (line, reference) in zip(listed.lines, references) {
            #expect(try value(line) == value(reference), "\(line)")
            // Sorted at every level and spelled as export spells numbers and strings: the value's own rendering.
            #expect(line == terminalSafeJSON(try value(line).description))
        }
        // Foundation writes `\b`, `\f`, `-0` and `1000000000000000` where ReactorLog writes `\u0008`, `\u000c`, `0` and
        // `1000000000000000.0` (the second stored payload and the first binary one); every other line is the same bytes.
        let respelled: Set = [2, 1 + Self.storedJSON.count]
        for index in references.indices where !respelled.contains(index) {
            #expect(listed.lines[index] == references[index])
        }
        let tail = try await Tool.run(["tail", path, "--json", "-n", "4"])
        #expect(tail.lines == Array(listed.lines.suffix(4)))
    }
}

@testable import BinaryPayloadKit
@testable import EventLogKit
import Foundation
import TestSupport
import Testing

/// The one place bytes of a log become text: ASCII without validation, anything else validated.
@Suite("UTF-8 read from a log")
struct ValidUTF8Tests {
    let scratch = ScratchDirectory()

    @Test("ASCII and other valid UTF-8 become the same text; bytes that are not UTF-8 are refused")
    func text() {
        func read(_ bytes: [UInt8]) -> String? { bytes.withUnsafeBytes { String(validUTF8: $0) } }
        func valid(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { String.isValidUTF8($0) } }
        #expect(read(Array("setQuery".utf8)) == "setQuery")
        #expect(read(Array("añadir 🛒".utf8)) == "añadir 🛒")
        #expect(read([]) == "")
        // A lone continuation byte, an overlong encoding, a cut sequence and a surrogate.
        for bad: [UInt8] in [[0x61, 0x80], [0xC0, 0xAF], [0x61, 0xE2, 0x82], [0xED, 0xA0, 0x80]] {
            #expect(read(bad) == nil, "\(bad)")
            #expect(!valid(bad), "\(bad)")
        }
        #expect(valid(Array("añadir".utf8)) && valid(Array("add".utf8)))
    }

    @Test("a case name outside ASCII reads back the same, copied and in place")
    func caseNames() throws {
        let log = try scratch.openLog()
        let stream = try log.counterStream()
        let first = try stream.append(EntryDraft(kind: .mutation, caseName: "añadir", payload: Data("1".utf8)))
        let second = try stream.append(EntryDraft(kind: .mutation, caseName: "add", payload: Data("2".utf8)))
        try log.flush()
        #expect(try log.entries(at: [first, second]).map { $0?.caseName } == ["añadir", "add"])
        var inPlace: [String] = []
        try log.forEachEntry(EntryQuery(from: first)) { inPlace.append(String(decoding: $0.caseName, as: UTF8.self)) }
        #expect(inPlace == ["añadir", "add"])
    }
}

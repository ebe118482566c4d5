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
}

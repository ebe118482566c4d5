@testable import EventLogKit
import Foundation
import LMDB
import TestSupport
import Testing

@Suite("Streams")
struct StreamTests {
    let scratch = ScratchDirectory()

    @Test("a stream records its name, reactor type, schema fingerprint and initial state")
    func descriptor() throws {
        let log = try scratch.openLog()
        _ = try log.openStream(named: "todo#2", reactorType: "TodoReactor", schemaFingerprint: "abc123", initialState: ["milk"])
        let info = try #require(try log.stream(named: "todo#2"))
        #expect(info.id == 1)
        #expect(info.reactorType == "TodoReactor")
        #expect(info.schemaFingerprint == "abc123")
        #expect(try log.decode([String].self, from: info.initialState, codec: info.initialStateCodec) == ["milk"])
        #expect(try log.streams().map(\.name) == ["todo#2"])
    }

    @Test("one stream's entries interleaved with another's are read apart, in order")
    func interleaved() throws {
        let log = try scratch.openLog()
        let search = try log.counterStream("search"), todo = try log.counterStream("todo")
        for i in 0..<100 {
            try search.append(.mutation("s", i))
            try todo.append(.mutation("t", i))
        }
        try log.flush()
        let searchEntries = try log.readEntries(EntryQuery(stream: "search", kinds: [.mutation]))
        #expect(searchEntries.map(\.caseName) == Array(repeating: "s", count: 100))
        #expect(searchEntries.map(\.sequence) == searchEntries.map(\.sequence).sorted())
        #expect(try log.highestSequence(stream: "todo") == 202)
        #expect(try log.highestSequence(stream: "search") == 201)
    }

    @Test("reading one stream does not touch blocks of the others' entries alone (a damaged one is not read)")
    func streamReadsSkipOthers() throws {
        let path = scratch.file("two.reactorlog")
        do {
            let log = try EventLog.open(at: path)
            let a = try log.counterStream("a"), b = try log.counterStream("b")
            try a.append(.mutation("a1"))
            // Larger than a block: a block of its own, between a1's and a2's.
            let big = Data("MARKER-TO-DAMAGE".utf8) + Data(repeating: 0x20, count: EntryBlock.capacity)
            try b.append(EntryDraft(kind: .mutation, caseName: "b1", payload: big))
            try a.append(.mutation("a2"))
            try log.close()
        }
        try CorruptFile.flipByte(in: path + "/data.mdb", after: Array("MARKER-TO-DAMAGE".utf8))
        let log = try EventLog.openReadOnly(at: path)
        #expect(try log.readEntries(EntryQuery(stream: "a", kinds: [.mutation])).map(\.caseName) == ["a1", "a2"])
        #expect(throws: EventLogError.self) { try log.readEntries(EntryQuery(stream: "b")) }
        #expect(throws: EventLogError.self) { try log.readEntries() }
    }

    @Test("a stream created by another writer after a reader opened is found by that reader")
    func streamsCreatedLater() throws {
        let path = scratch.file("late.reactorlog")
        let writer = try EventLog.open(at: path)
        _ = try writer.counterStream("first")
        try writer.flush()
        let reader = try EventLog.openReadOnly(at: path)
        #expect(try reader.streams().count == 1)
        let second = try writer.counterStream("second")
        try second.append(.action("x"))
        try writer.flush()
        #expect(try reader.readEntries(EntryQuery(stream: "second")).count == 2)
        #expect(try reader.readEntries().last?.stream == "second")
    }
}

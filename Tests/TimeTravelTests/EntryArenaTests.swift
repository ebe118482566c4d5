import EventLogKit
import Foundation
import TestSupport
import Testing
@testable import TimeTravel

/// ``EntryArena``: copies whose payloads are slices of one buffer.
@Suite("Entry arena", .timeLimit(.minutes(3)))
struct EntryArenaTests {
    let scratch = ScratchDirectory()

    @Test("""
        copies of views and of entries, their payloads sliced from one buffer, equal the log's entries, empty payloads \
        and long case names included
        """)
    func stagedEntriesEqualCopies() throws {
        let log = try EventLog.open(at: scratch.file("arena.reactorlog"))
        let stream = try log.openStream(named: "s", reactorType: "R", schemaFingerprint: "v1", initialState: 0)
        let action = try stream.append(.action, "go", caseName: "aCaseNameLongerThanFifteenBytes")
        for value in 1...5 { try stream.append(.mutation, value, caseName: "aCaseNameLongerThanFifteenBytes", cause: action) }
        try stream.close()
        try log.flush()
        let expected = try log.readEntries(EntryQuery(stream: "s"))
        #expect(expected.contains { $0.payload.isEmpty } && expected.contains { !$0.payload.isEmpty })
        var arena = EntryArena()
        var copies: [(entry: LogEntry, payload: Range<Int>)] = []
        try log.forEachEntry(EntryQuery(stream: "s")) { copies.append(arena.copy($0)) }
        for entry in expected.reversed() { copies.append(arena.copy(entry)) }
        let buffer = arena.buffer()
        let made = copies.map { $0.entry.withPayload(buffer[$0.payload]) }
        #expect(made == expected + expected.reversed())
        #expect(made.map { [UInt8]($0.payload) } == (expected + expected.reversed()).map { [UInt8]($0.payload) })
    }
}

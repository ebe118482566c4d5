@testable import EventLogKit
import Foundation
import LMDB
import TestSupport
import Testing

/// Format version 4 wrote compact entry records, version 7 packs entries into blocks; logs of the earlier layouts
/// (fixtures written by versions 1 and 6) stay readable, and a writer continues them in blocks.
@Suite("Record layouts")
struct RecordLayoutTests {
    let scratch = ScratchDirectory()

    /// The raw records of `entries`, by sequence number.
    func entryRecords(_ path: String) throws -> [UInt64: [UInt8]] {
        try rawRecords(path, "entries").reduce(into: [:]) { found, record in
            found[record.key.withUnsafeBytes { KeyCoding.decodeSequence($0) } ?? 0] = record.value
        }
    }

    @Test("a kind byte reads as the kind whose raw value it is (the readers spell the mapping out), and no other byte as a kind")
    func kindBytes() {
        for byte in UInt8.min...UInt8.max {
            #expect(EntryKind(byte: byte) == EntryKind(rawValue: byte), "byte \(byte)")
        }
        #expect(EntryKind.allCases.map { EntryKind(byte: $0.rawValue) } == EntryKind.allCases)
    }

    @Test("a version-1 log reads and verifies whole: its 66 entries, causes, case names and JSON payloads")
    func versionOne() throws {
        let log = try EventLog.openReadOnly(at: try scratch.fixture("version1.reactorlog"))
        #expect(try log.metadata().formatVersion == 1)
        let entries = try log.readEntries(EntryQuery())
        #expect(entries.count == 66)
        #expect(entries.prefix(4).map { "\($0.kind) \($0.caseName) \($0.cause.map(String.init) ?? "-")" }
            == ["opened opened -", "action updateQuery -", "mutation setQuery 2", "mutation setRepos 2"])
        #expect(String(decoding: entries[2].payload, as: UTF8.self) == #"{"setQuery":{"_0":"q0"}}"#)
        #expect(entries.allSatisfy { $0.codec == .json || $0.codec == .none })
        #expect(try log.verify().isHealthy)
        #expect(try log.snapshotSequences(stream: "search").count == 5)
        // The kind-filtered search steps back a record at a time in this layout.
        let truth = entries.filter { $0.stream == "search" }.reduce(into: [:]) { $0[$1.sequence] = $1.kind }
        try expectLastSequencesAgree(log, stream: "search", truth: truth, at: Array(0...68))
        // And a tail steps back a record at a time.
        let search = truth.keys.sorted()
        for count in [1, 5, search.count, search.count + 1] {
            #expect(try log.firstOfLatest(count, stream: "search") == search[max(0, search.count - count)])
        }
        #expect(try log.firstOfLatest(3, stream: "search", atOrBefore: search[20]) == search[18])
    }

    @Test("a writer continues a version-1 log in blocks, raising it to version 8; both layouts read and verify")
    func continued() throws {
        let path = try scratch.fixture("version1.reactorlog")
        let log = try EventLog.open(at: path)
        #expect(try log.metadata().formatVersion == 8)
        let stream = try log.openStream(named: "later", reactorType: "Later", schemaFingerprint: "v1", initialState: 0)
        let action = try stream.append(.action, "tap", caseName: "tap")
        try stream.append(.mutation, 1, caseName: "add", cause: action)
        try log.close()

        let reader = try EventLog.openReadOnly(at: path)
        let entries = try reader.readEntries(EntryQuery())
        #expect(entries.count == 69)
        #expect(entries.suffix(2).map(\.caseName) == ["tap", "add"])
        #expect(entries.last?.cause == action)
        #expect(try reader.verify().isHealthy)
        let records = try entryRecords(path)
        #expect(records[2]?[4] == EntryKind.action.rawValue, "an old record keeps the first layout")
        #expect(records[67]?[4] == EntryBlock.marker, "the new entries share one block, keyed by the first")
        #expect(records[action] == nil && records.count == 67)
    }

    @Test("a version-6 log of compact records reads and verifies whole, and a writer continues it in blocks")
    func versionSix() throws {
        let path = try scratch.fixture("version6.reactorlog")
        let before = try { () throws -> [LogEntry] in
            let old = try EventLog.openReadOnly(at: path)
            #expect(try old.metadata().formatVersion == 6)
            #expect(try old.readEntries(EntryQuery(stream: "search", kinds: [.mutation])).count == 45)
            #expect(try old.callSite(at: 2) != nil)
            #expect(try old.verify().isHealthy)
            return try old.readEntries(EntryQuery())
        }()
        #expect(before.count == 69 && before.map(\.sequence) == Array(1...69))
        let records = try entryRecords(path)
        #expect(records.count == 69 && records.values.allSatisfy { $0[4] & EntryRecord.compactFlag != 0 && $0[4] != EntryBlock.marker })

        let log = try EventLog.open(at: path)
        let counter = try #require(try log.stream(named: "counter"))
        let stream = try log.openStream(named: counter.name, reactorType: "Counter", schemaFingerprint: "v1", initialState: 0)
        let tap = try stream.append(.action, "tap", caseName: "tap")
        try stream.append(.mutation, 1, caseName: "add", cause: tap)
        try log.close()
        let reader = try EventLog.openReadOnly(at: path)
        #expect(try reader.metadata().formatVersion == 8)
        let after = try reader.readEntries(EntryQuery())
        #expect(after.prefix(69).map(\.caseName) == before.map(\.caseName))
        #expect(after.suffix(2).map(\.caseName) == ["tap", "add"] && after.last?.cause == tap)
        #expect(try reader.readEntries(EntryQuery(stream: "counter")).map(\.caseName).suffix(3) == ["resumed", "tap", "add"])
        #expect(try reader.verify().isHealthy)
        #expect(try entryRecords(path)[70]?[4] == EntryBlock.marker)
    }

    @Test("a stream read through its index reaches from a version-6 record over several blocks to its next entry")
    func fromRecordsOverBlocks() throws {
        let path = try scratch.fixture("version6.reactorlog")
        let old = try EventLog.openReadOnly(at: path).readEntries(EntryQuery(stream: "search")).map(\.sequence)
        let log = try EventLog.open(at: path)
        // Blocks of another stream first, then the stream's next entry (its `resumed`), a few records further on.
        let filler = try log.openStream(named: "filler", reactorType: "Filler", schemaFingerprint: "v1", initialState: 0)
        for value in 0..<1_000 { try filler.append(.mutation, value, caseName: "add") }
        let search = try #require(try log.stream(named: "search"))
        let resumed = try log.openStream(
            named: search.name, reactorType: search.reactorType, schemaFingerprint: search.schemaFingerprint, initialState: 0)
        let last = try resumed.append(.mutation, 1, caseName: "add")
        try log.close()
        let records = try entryRecords(path)
        #expect(records.keys.filter { $0 > 69 }.count >= 3 && records.values.filter { $0[4] == EntryBlock.marker }.count >= 3)
        let read = try EventLog.openReadOnly(at: path).readEntries(EntryQuery(stream: "search")).map(\.sequence)
        #expect(read.prefix(old.count) == old[...] && read.count == old.count + 2 && read.last == last)
    }

    @Test("a compact header refuses what does not add up: a number cut short, a sequence not its key, a cause ahead")
    func compactDamage() throws {
        let pending = EntryRecord.Pending(
            sequence: 300, streamID: 2, kind: .mutation, codec: .binary, timestamp: 1_700_000_000_000_000_000, cause: 299,
            caseName: "add", payload: [0x03, 0x02])
        var bytes = [UInt8](repeating: 0, count: pending.size)
        bytes.withUnsafeMutableBytes { pending.write(into: $0) }
        let header = try bytes.withUnsafeBytes { try EntryRecord.header(key: 300, record: $0) }
        #expect(header.sequence == 300 && header.streamID == 2 && header.cause == 299)
        #expect(header.timestamp == 1_700_000_000_000_000_000 && header.kind == .mutation && header.codec == .binary)
        #expect(Array(bytes[header.payloadRange]) == [0x03, 0x02])
        #expect(throws: EventLogError.self) { try bytes.withUnsafeBytes { try EntryRecord.header(key: 301, record: $0) } }
        // Checksums sealed, so that each check is the one reached.
        func refusal(_ record: [UInt8], key: UInt64 = 300) -> String {
            EventLogKitTests.refusal { _ = try record.withUnsafeBytes { try EntryRecord.header(key: key, record: $0) } }
        }
        #expect(refusal(resealed(Array(bytes.prefix(15)))).contains("shorter than a compact header"))
        var unended = Array(bytes.prefix(19))
        unended[15] |= 0x80
        unended[16] = 0xFF
        unended[17] = 0xFF
        unended[18] = 0xFF
        #expect(refusal(resealed(unended)).contains("ends inside a number"))
        #expect(refusal(bytes, key: 301).contains("stored under 301"))
        let ahead = EntryRecord.Pending(
            sequence: 300, streamID: 2, kind: .mutation, codec: .binary, timestamp: 0, cause: 400, caseName: "add", payload: [])
        var aheadBytes = [UInt8](repeating: 0, count: ahead.size)
        aheadBytes.withUnsafeMutableBytes { ahead.write(into: $0) }
        #expect(refusal(aheadBytes).contains("out of range"))
        var longName = bytes
        longName[header.caseRange.lowerBound - 1] = 0x7F
        #expect(refusal(resealed(longName)).contains("runs past"))
    }
}


@testable import EventLogKit
import Foundation
import LMDB
import TestSupport
import Testing

/// Format version 4 writes compact entry records; logs of the first layout (a fixture written by the version
/// before it) stay readable, and a writer continues them in the new layout.
@Suite("Record layouts")
struct RecordLayoutTests {
    let scratch = ScratchDirectory()

    /// The raw records of `entries`, by sequence number.
    func entryRecords(_ path: String) throws -> [UInt64: [UInt8]] {
        try rawRecords(path, "entries").reduce(into: [:]) { found, record in
            found[record.key.withUnsafeBytes { KeyCoding.decodeSequence($0) } ?? 0] = record.value
        }
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
    }

    @Test("a writer continues a version-1 log in compact records, raising it to version 6; both layouts read and verify")
    func continued() throws {
        let path = try scratch.fixture("version1.reactorlog")
        let log = try EventLog.open(at: path)
        #expect(try log.metadata().formatVersion == 6)
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
        #expect(records[action]?[4] == EntryKind.action.rawValue | EntryRecord.compactFlag)
        let last = try #require(entries.last)
        #expect(records[last.sequence]?.count == 18 + last.caseName.utf8.count + last.payload.count,
                "a 14-byte fixed header and one byte for each of the four numbers: 22 bytes less than the first layout")
    }

    @Test("a compact header refuses what does not add up: a number cut short, a sequence not its key, a cause ahead")
    func compactDamage() throws {
        let pending = EntryRecord.Pending(
            sequence: 300, streamID: 2, kind: .mutation, timestamp: 1_700_000_000_000_000_000, cause: 299,
            caseName: "add", codec: .binary, payload: [0x03, 0x02])
        var bytes = [UInt8](repeating: 0, count: pending.size)
        bytes.withUnsafeMutableBytes { pending.write(into: $0) }
        let header = try bytes.withUnsafeBytes { try EntryRecord.header(key: 300, record: $0) }
        #expect(header.isCompact && header.sequence == 300 && header.streamID == 2 && header.cause == 299)
        #expect(header.timestamp == 1_700_000_000_000_000_000 && header.kind == .mutation && header.codec == .binary)
        #expect(Array(bytes[header.payloadRange]) == [0x03, 0x02])
        #expect(throws: EventLogError.self) { try bytes.withUnsafeBytes { try EntryRecord.header(key: 301, record: $0) } }
        // Checksums sealed, so that each check is the one reached.
        func sealed(_ record: [UInt8]) -> [UInt8] {
            var record = record
            record.withUnsafeMutableBytes { ByteWriter(bytes: $0).sealChecksum() }
            return record
        }
        func refusal(_ record: [UInt8], key: UInt64 = 300) -> String {
            do {
                _ = try record.withUnsafeBytes { try EntryRecord.header(key: key, record: $0) }
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal(sealed(Array(bytes.prefix(15)))).contains("shorter than a compact header"))
        var unended = Array(bytes.prefix(19))
        unended[15] |= 0x80
        unended[16] = 0xFF
        unended[17] = 0xFF
        unended[18] = 0xFF
        #expect(refusal(sealed(unended)).contains("ends inside a number"))
        #expect(refusal(bytes, key: 301).contains("stored under 301"))
        let ahead = EntryRecord.Pending(
            sequence: 300, streamID: 2, kind: .mutation, timestamp: 0, cause: 400, caseName: "add", codec: .binary, payload: [])
        var aheadBytes = [UInt8](repeating: 0, count: ahead.size)
        aheadBytes.withUnsafeMutableBytes { ahead.write(into: $0) }
        #expect(refusal(aheadBytes).contains("out of range"))
        var longName = bytes
        longName[header.caseRange.lowerBound - 1] = 0x7F
        #expect(refusal(sealed(longName)).contains("runs past"))
    }
}

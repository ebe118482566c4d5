@testable import EventLogKit
import Foundation
import LMDB
import TestSupport
import Testing

/// Damage under valid checksums that only the relations between records reveal: verify must name each.
@Suite("Verify: relations between records")
struct VerifyInvariantTests {
    let scratch = ScratchDirectory()

    /// Two streams, `counter` (id 1, a snapshot every 10 mutations) and `plain` (id 2), closed.
    func makeLog() throws -> String {
        let path = scratch.file("v.reactorlog")
        try scratch.twoStreamLog("v.reactorlog", mutations: 30).close()
        #expect(try EventLog.openReadOnly(at: path).verify().isHealthy)
        return path
    }

    /// Changes the log's LMDB databases directly, then verifies it.
    func damage(_ path: String, _ change: ([String: Database], Transaction) throws -> Void) throws -> VerifyReport {
        do {
            let environment = try Environment(path: path)
            var databases: [String: Database] = [:]
            for name in ["entries", "streams", "snapshots", "stream-index"] { databases[name] = try environment.openDatabase(name) }
            try environment.write { txn in try change(databases, txn) }
        }
        return try EventLog.openReadOnly(at: path).verify()
    }

    /// Rewrites stream `id`'s index, which fits one block in these logs, with valid checksums.
    func rewriteIndex(_ databases: [String: Database], _ txn: Transaction, stream id: UInt32, _ change: (inout [StreamIndex.Item]) -> Void) throws {
        let index = StreamIndex(database: try #require(databases["stream-index"]), layout: .blocks)
        var items: [StreamIndex.Item] = []
        try index.forEach(txn, stream: id) { items.append($0); return true }
        let first = try #require(items.first?.sequence)
        try #require(try txn.delete(index.database, key: KeyCoding.streamSequence(id, first)))
        change(&items)
        items.sort { $0.sequence < $1.sequence }
        try txn.put(index.database, key: KeyCoding.streamSequence(id, items[0].sequence), value: StreamIndex.block(items, stream: id))
    }

    func expectError(_ report: VerifyReport, _ text: String, at sequence: UInt64? = nil) {
        #expect(!report.isHealthy)
        #expect(report.problems.contains { $0.message.contains(text) && (sequence == nil || $0.sequence == sequence) }, "\(report.problems)")
    }

    @Test("a sequence gap that no trim explains")
    func gap() throws {
        let path = try makeLog()
        let report = try damage(path) { databases, txn in
            try LogStorage.removeEntries([10], from: try #require(databases["entries"]), in: txn)
        }
        expectError(report, "entries #10 is missing before it", at: 11)
    }

    @Test("a report prints its verdict and what was checked, then each problem on a line of its own")
    func description() throws {
        let path = try makeLog()
        let healthy = try EventLog.openReadOnly(at: path).verify()
        #expect(healthy.description == "OK: 62 entries, 3 snapshots, 2 streams checked.")
        let report = try damage(path) { databases, txn in
            try LogStorage.removeEntries([10], from: try #require(databases["entries"]), in: txn)
        }
        let lines = report.description.split(separator: "\n").map(String.init)
        #expect(lines.first == "DAMAGED: 61 entries, 3 snapshots, 2 streams checked.")
        #expect(lines.dropFirst().first?.hasPrefix("error at #11: ") == true && lines.count == report.problems.count + 1, "\(lines)")
    }

    @Test("a stream index key naming another stream's entry")
    func indexKeys() throws {
        let path = try makeLog()
        let log = try EventLog.openReadOnly(at: path)
        let own = try #require(try log.sequences(stream: "counter", kinds: [.mutation]).first)
        let other = try #require(try log.sequences(stream: "plain", kinds: [.action]).first)
        let stolen = try damage(path) { databases, txn in
            try rewriteIndex(databases, txn, stream: 1) { items in
                items.removeAll { $0.sequence == own }
                items.append(.init(sequence: other, kind: EntryKind.mutation.rawValue))
            }
        }
        expectError(stolen, "stream 'counter' lists this entry as one of its mutation entries, but it is not", at: other)
    }

    @Test("a stream index key recording the wrong kind")
    func indexKind() throws {
        let path = try makeLog()
        let own = try #require(try EventLog.openReadOnly(at: path).sequences(stream: "counter", kinds: [.mutation]).first)
        let relabelled = try damage(path) { databases, txn in
            try rewriteIndex(databases, txn, stream: 1) { items in
                if let at = items.firstIndex(where: { $0.sequence == own }) { items[at].kind = EntryKind.action.rawValue }
            }
        }
        expectError(relabelled, "lists this entry as one of its action entries, but it is not", at: own)
    }

    @Test("a stream index value naming a call site the log does not hold")
    func unknownCallSite() throws {
        let path = try makeLog()
        let action = try #require(try EventLog.openReadOnly(at: path).sequences(stream: "plain", kinds: [.action]).first)
        let report = try damage(path) { databases, txn in
            try rewriteIndex(databases, txn, stream: 2) { items in
                if let at = items.firstIndex(where: { $0.sequence == action }) { items[at].site = 99 }
            }
        }
        expectError(report, "gives this entry call site number 99, which the log does not hold intact", at: action)
    }

    @Test("two streams with one name")
    func duplicateName() throws {
        let path = try makeLog()
        let report = try damage(path) { databases, txn in
            let streams = try #require(databases["streams"])
            let info = try #require(try txn.get(streams, key: KeyCoding.stream(1)).map { try StreamRecord.decode(id: 1, record: $0) })
            let twin = StreamInfo(
                id: 9, name: info.name, reactorType: info.reactorType, schemaFingerprint: info.schemaFingerprint, createdAt: info.createdAt,
                initialStateCodec: info.initialStateCodec, initialState: info.initialState, sequenceFloor: 0)
            try txn.put(streams, key: KeyCoding.stream(9), value: StreamRecord.encode(twin))
        }
        expectError(report, "streams 1 and 9 are both named 'counter'")
    }

    @Test("a stream's trim floor without the log's")
    func floorWithoutMetaFloor() throws {
        let path = try makeLog()
        let report = try damage(path) { databases, txn in
            let streams = try #require(databases["streams"])
            var info = try #require(try txn.get(streams, key: KeyCoding.stream(2)).map { try StreamRecord.decode(id: 2, record: $0) })
            info.sequenceFloor = 20
            try txn.put(streams, key: KeyCoding.stream(2), value: StreamRecord.encode(info))
        }
        expectError(report, "stream 'plain' records a trim floor of #20, but the log's floor is absent")
    }

    @Test("a snapshot of a stream the log does not describe, and one of another stream's entry")
    func strayedSnapshots() throws {
        let path = try makeLog()
        let plainEntry: UInt64 = 4   // #1, #2 open the streams; then counter, plain, counter, plain…
        let report = try damage(path) { databases, txn in
            let snapshots = try #require(databases["snapshots"])
            for (stream, sequence) in [(UInt32(7), UInt64(3)), (1, plainEntry)] {
                let snapshot = Snapshot(streamID: stream, sequence: sequence, timestamp: 1, codec: .json, state: Data("1".utf8))
                var record = [UInt8](repeating: 0, count: SnapshotRecord.size(stateBytes: 1))
                record.withUnsafeMutableBytes { SnapshotRecord.write(snapshot, into: $0) }
                try txn.put(snapshots, key: KeyCoding.streamSequence(stream, sequence), value: record)
            }
        }
        expectError(report, "a snapshot names stream id 7", at: 3)
        expectError(report, "describes an entry of stream 'plain'", at: plainEntry)
    }
}

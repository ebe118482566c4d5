@testable import EventLogKit
import Foundation
import LMDB
import TestSupport
import Testing

/// Format version 7 packs entries into blocks (docs/FORMAT.md, "Entry blocks"): what a block holds reads back exactly,
/// damage is refused, never guessed at, and the writer fills, continues and rewrites blocks without losing an entry.
@Suite("Entry blocks")
struct EntryBlockTests {
    let scratch = ScratchDirectory()

    func entry(
        _ sequence: UInt64, stream: UInt32 = 1, kind: EntryKind = .mutation, time: Int64, cause: UInt64 = 0,
        name: String, codec: CodecID = .json, payload: String = "1"
    ) -> EntryRecord.Pending {
        EntryRecord.Pending(
            sequence: sequence, streamID: stream, kind: kind, codec: codec, timestamp: time, cause: cause, caseName: name,
            payload: Array(payload.utf8))
    }

    func sealed(_ entries: [EntryRecord.Pending]) -> [UInt8] {
        var builder = EntryBlock.Builder()
        for entry in entries {
            let appended = builder.append(entry)
            #expect(appended)
        }
        var bytes = [UInt8](repeating: 0, count: builder.size)
        bytes.withUnsafeMutableBytes { builder.write(into: $0) }
        return bytes
    }

    func read(_ block: [UInt8], key: UInt64) throws -> [LogEntry] {
        try block.withUnsafeBytes { bytes in
            var reader = try EntryBlock.Reader(key: key, block: bytes)
            var found: [LogEntry] = []
            while let header = try reader.next() {
                found.append(LogEntry(
                    sequence: header.sequence, streamID: header.streamID, stream: "", kind: header.kind, timestamp: header.timestamp,
                    cause: header.cause == 0 ? nil : header.cause, caseName: String(decoding: bytes[header.caseRange], as: UTF8.self),
                    codec: header.codec, payload: Data(bytes[header.payloadRange])))
            }
            return found
        }
    }

    @Test("every field reads back: gaps in numbers, times out of order and at the ends of their range, causes, names spelled once")
    func roundTrip() throws {
        let written = [
            entry(10, kind: .action, time: 1_700_000_000_000_000_000, name: "añadir", payload: #"{"a":1}"#),
            entry(11, time: 1_700_000_000_000_000_500, cause: 10, name: "set"),
            entry(15, stream: 70_000, time: 1_699_999_999_000_000_000, cause: 10, name: "añadir", codec: .binary, payload: ""),
            entry(16, kind: .streamClosed, time: .max, name: "closed", codec: .none, payload: ""),
            entry(17, kind: .effectError, time: .min, cause: 1, name: "set", payload: "\"x\""),
        ]
        let block = sealed(written)
        let back = try read(block, key: 10)
        #expect(back.map(\.sequence) == [10, 11, 15, 16, 17])
        #expect(back.map(\.timestamp) == written.map(\.timestamp))
        #expect(back.map(\.cause) == [nil, 10, 10, nil, 1])
        #expect(back.map(\.caseName) == ["añadir", "set", "añadir", "closed", "set"])
        #expect(back.map(\.streamID) == [1, 1, 70_000, 1, 1])
        #expect(back.map(\.kind) == [.action, .mutation, .mutation, .streamClosed, .effectError])
        #expect(back.map(\.codec) == [.json, .json, .binary, .none, .json])
        #expect(back.map { String(decoding: $0.payload, as: UTF8.self) } == [#"{"a":1}"#, "1", "", "", "\"x\""])
        // Each name is spelled once: "añadir" (7 bytes) and "set" appear in the block once each.
        #expect(block.count(ofRun: Array("añadir".utf8)) == 1 && block.count(ofRun: Array("set".utf8)) == 1)
    }

    @Test("docs/FORMAT.md's example block, byte for byte")
    func formatExample() {
        let time: Int64 = 1_700_000_000_000_000_000
        let block = sealed([
            entry(3, kind: .action, time: time, name: "tap", payload: "1"),
            entry(4, time: time + 500, cause: 3, name: "tap", payload: "2"),
        ])
        let header: [UInt8] = [0xB7, 0x02, 0x00] + withUnsafeBytes(of: time.littleEndian, Array.init) + [3, 0, 0, 0, 0, 0, 0, 0]
        #expect(Array(block[4...]) == header
            + [0x00, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x01, 0x03, 0x74, 0x61, 0x70, 0x31]
            + [0x01, 0x02, 0x01, 0x01, 0xE8, 0x07, 0x01, 0x01, 0x01, 0x32])
    }

    @Test("a block refuses damage: a changed byte, a cut, a wrong count, bytes after the last entry, a name never spelled")
    func damage() throws {
        let good = sealed([entry(5, time: 100, name: "a"), entry(6, time: 200, name: "a")])
        func refusal(_ bytes: [UInt8], key: UInt64 = 5) -> String {
            EventLogKitTests.refusal { _ = try read(bytes, key: key) }
        }
        #expect(try read(good, key: 5).map(\.sequence) == [5, 6])
        var flipped = good
        flipped[good.count - 1] ^= 1
        #expect(refusal(flipped).contains("checksum does not match"))
        #expect(refusal(resealed(Array(good.dropLast()))).contains("cut short") || refusal(resealed(Array(good.dropLast()))).contains("runs past"))
        var counted = good
        counted[5] = 3
        #expect(refusal(resealed(counted)).contains("cut short"))
        counted[5] = 1
        #expect(refusal(resealed(counted)).contains("after its last entry"))
        counted[5] = 0
        #expect(refusal(resealed(counted)).contains("holds none"))
        // The second entry names case name 1; make it name 2, never spelled.
        // The second entry ends with its name (1), its payload's length (1) and its payload ("1").
        var unnamed = good
        #expect(Array(good.suffix(3)) == [1, 1, 0x31])
        unnamed[good.count - 3] = 2
        #expect(refusal(resealed(unnamed)).contains("names case name 2 of 1 spelled"))
        #expect(refusal(resealed(Array(good.prefix(EntryBlock.headerSize)))).contains("shorter than its header"))
        // The key is outside the checksum; the block records its first number, so a changed key is found.
        #expect(refusal(good, key: 6).contains("records #5 as its first entry, but is stored under #6"))
    }

    @Test("damage is reported at the entry it is in; a next entry whose number cannot be read, at the entry before it")
    func damageNamesItsEntry() throws {
        let good = sealed([entry(5, time: 100, name: "a"), entry(6, time: 200, name: "a")])
        func refusal(_ bytes: [UInt8]) -> String { EventLogKitTests.refusal { _ = try read(bytes, key: 5) } }
        // The second entry is the last 10 bytes: its distance, kind and codec, stream id, two bytes of time distance,
        // cause, name, payload length, payload.
        let second = good.count - 10
        #expect(good[second] == 1 && good[second + 1] == EntryKind.mutation.rawValue)
        // Cut after its kind and codec: its stream id is missing.
        #expect(refusal(resealed(Array(good.prefix(second + 3))))
            .hasPrefix("Entry #6 is corrupt: in the block of entries from #5, this entry is cut short."))
        // Cut before it, its count still saying two: its number cannot be read.
        #expect(refusal(resealed(Array(good.prefix(second))))
            .hasPrefix("Entry #5 is corrupt: in the block of entries from #5, an entry after this one is cut short."))
        // Cut inside its payload.
        #expect(refusal(resealed(Array(good.dropLast())))
            .hasPrefix("Entry #6 is corrupt: in the block of entries from #5, this entry's payload runs past the block."))
    }

    @Test("a lookup steps over entries to the first at or after a number: the same headers, names and damage as reading each")
    func steppingOver() throws {
        let block = sealed([
            entry(10, kind: .action, time: 1_700_000_000_000_000_000, name: "añadir", payload: #"{"a":1}"#),
            entry(11, time: 1_700_000_000_000_000_500, cause: 10, name: "set"),
            entry(15, stream: 70_000, time: 1_699_999_999_000_000_000, cause: 10, name: "añadir", codec: .binary, payload: ""),
            entry(16, kind: .streamClosed, time: .max, name: "closed", codec: .none, payload: ""),
            entry(17, kind: .effectError, time: .min, cause: 1, name: "set", payload: "\"x\""),
        ])
        try block.withUnsafeBytes { bytes in
            var walk = try EntryBlock.Reader(key: 10, block: bytes)
            var headers: [EntryRecord.Header] = []
            while let header = try walk.next() { headers.append(header) }
            func name(_ header: EntryRecord.Header) -> String { String(decoding: bytes[header.caseRange], as: UTF8.self) }
            for target: UInt64 in 0...18 {
                var reader = try EntryBlock.Reader(key: 10, block: bytes)
                let expected = headers.drop { $0.sequence < target }
                let found = try reader.next(from: target)
                #expect(found?.sequence == expected.first?.sequence, "from #\(target)")
                func fields(_ header: EntryRecord.Header) -> [Int64] { [header.timestamp, Int64(header.cause), Int64(header.streamID)] }
                #expect(found.map(fields) == expected.first.map(fields))
                #expect(found.map(name) == expected.first.map(name) && found?.payloadRange == expected.first?.payloadRange)
                // Reading on from there finds the rest, names spelled in the entries stepped over among them.
                var rest: [String] = []
                while let header = try reader.next() { rest.append(name(header)) }
                #expect(rest == expected.dropFirst().map(name))
            }
        }
        // Damage in an entry stepped over stops the lookup as it stops a reader of each entry: the first entry's kind
        // byte (after the 23-byte header and its one-byte distance), then a name never spelled in the last.
        let good = sealed([entry(5, time: 100, name: "a"), entry(6, time: 200, name: "a"), entry(7, time: 300, name: "a")])
        var unknownKind = good
        unknownKind[EntryBlock.headerSize + 1] = 99
        var unnamed = good
        #expect(Array(good.suffix(3)) == [1, 1, 0x31])
        unnamed[good.count - 3] = 2
        for damaged in [resealed(unknownKind), resealed(unnamed)] {
            let walking = refusal { _ = try read(damaged, key: 5) }
            let stepping = refusal {
                try damaged.withUnsafeBytes { bytes in
                    var reader = try EntryBlock.Reader(key: 5, block: bytes)
                    _ = try reader.next(from: 7)
                }
            }
            #expect(stepping == walking && (walking.contains("kind byte 99") || walking.contains("names case name 2 of 1 spelled")))
        }
    }

    @Test("the writer fills blocks to their capacity, continues the last one across commits, and puts a large entry in one of its own")
    func writing() throws {
        let path = scratch.file("blocks.reactorlog")
        let log = try EventLog.open(at: path)
        let stream = try log.counterStream()
        for index in 0..<300 {
            try stream.append(EntryDraft(kind: .mutation, caseName: "add", payload: Data("\(index)".utf8)))
            if index % 7 == 0 { try log.flush() }
        }
        try stream.append(EntryDraft(kind: .mutation, caseName: "big", payload: Data(("\"" + String(repeating: "a", count: 3 * EntryBlock.capacity) + "\"").utf8)))
        try stream.append(EntryDraft(kind: .mutation, caseName: "add", payload: Data("\"after\"".utf8)))
        try log.close()

        let records = try rawRecords(path, "entries")
        #expect(records.allSatisfy { $0.value[4] == EntryBlock.marker })
        let sizes = records.map(\.value.count)
        #expect(sizes.dropLast(3).allSatisfy { $0 > EntryBlock.capacity - 40 && $0 <= EntryBlock.capacity },
                "every block but the last ones is full: \(sizes)")
        #expect(sizes.dropLast().last ?? 0 > 3 * EntryBlock.capacity, "the large entry is a block by itself")
        let reader = try EventLog.openReadOnly(at: path)
        let entries = try reader.readEntries()
        #expect(entries.map(\.sequence) == Array(1...303))
        #expect(entries.dropFirst().prefix(300).map { String(decoding: $0.payload, as: UTF8.self) } == (0..<300).map(String.init))
        #expect(entries.suffix(2).map(\.caseName) == ["big", "add"])
        let report = try reader.verify()
        #expect(report.isHealthy, "\(report.problems)")
    }

    @Test("a damaged last block: the log reopens for writing and numbers go on after those the block held, which the index lists")
    func damagedLastBlock() throws {
        let path = scratch.file("tail.reactorlog")
        do {
            let log = try EventLog.open(at: path)
            let stream = try log.counterStream()
            for index in 0..<10 { try stream.append(EntryDraft(kind: .mutation, caseName: "add", payload: Data("\(index)".utf8))) }
            try stream.append(EntryDraft(kind: .mutation, caseName: "tail", payload: Data("\"TAIL-TO-DAMAGE\"".utf8)))
            try log.close()
        }
        try CorruptFile.flipByte(in: path + "/data.mdb", after: Array("TAIL-TO-DAMAGE".utf8))
        let log = try EventLog.open(at: path)
        #expect(try log.highestSequence() == 12, "the index lists the damaged block's entries")
        let later = try log.counterStream("later")
        let after = try later.append(EntryDraft(kind: .mutation, caseName: "after", payload: Data("1".utf8)))
        try log.flush()
        #expect(after > 12)
        #expect(try log.entry(at: after)?.caseName == "after")
        #expect(throws: EventLogError.self) { try log.entry(at: 5) }
        let report = try log.verify()
        #expect(report.firstError?.sequence == 1, "the damaged block is reported at its key: \(report.problems)")
    }

    @Test("removing entries rewrites their blocks under the first entry kept, and keeps every other entry")
    func removal() throws {
        let path = scratch.file("removal.reactorlog")
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = .every(mutations: 16)
        let log = try EventLog.open(at: path, configuration: configuration)
        let a = try log.counterStream("a"), b = try log.counterStream("b")
        for index in 0..<200 {
            let stream = index % 3 == 0 ? b : a
            let sequence = try stream.append(EntryDraft(kind: .mutation, caseName: index % 3 == 0 ? "b" : "a", payload: Data("\(index)".utf8)))
            if stream.isSnapshotDue { try stream.writeSnapshot(Data("\(index)".utf8), codec: .json, at: sequence) }
        }
        try log.flush()
        let before = try log.readEntries()
        let report = try log.trim(before: 150)
        let after = try log.readEntries()
        #expect(report.removedEntries > 0 && after.count == before.count - report.removedEntries)
        let kept = Set(after.map(\.sequence))
        #expect(after.map(\.payload) == before.filter { kept.contains($0.sequence) }.map(\.payload), "what is kept is unchanged")
        #expect(before.filter { $0.sequence >= 150 }.allSatisfy { kept.contains($0.sequence) })
        #expect(try log.verify().isHealthy)
        // The first block lost its first entries: it is kept under the number of its first remaining one.
        let first = try #require(try rawRecords(path, "entries").first)
        #expect(first.key.withUnsafeBytes { KeyCoding.decodeSequence($0) } == after.first?.sequence)
        #expect(first.value[4] == EntryBlock.marker)
    }
}

extension Array where Element == UInt8 {
    /// How many times `run` occurs in these bytes.
    func count(ofRun run: [UInt8]) -> Int {
        guard !run.isEmpty, run.count <= count else { return 0 }
        return (0...(count - run.count)).filter { self[$0..<($0 + run.count)].elementsEqual(run) }.count
    }
}

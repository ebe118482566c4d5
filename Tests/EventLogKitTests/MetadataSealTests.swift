@testable import EventLogKit
import Foundation
import LMDB
import TestSupport
import Testing

/// Format version 6 seals the `meta` database with a checksum, as every other record has one: a damaged digit of a
/// value that still reads as a value is reported by verify and refused by a writer, and every write seals again.
@Suite("Metadata seal")
struct MetadataSealTests {
    let scratch = ScratchDirectory()

    /// The seal's status in the log at `path`, read with LMDB alone.
    func status(_ path: String) throws -> MetadataSeal.Status {
        var options = EnvironmentOptions()
        options.readOnly = true
        let environment = try Environment(path: path, options: options)
        let meta = try environment.openDatabase(LogLayout.metaDatabase)
        return try environment.read { txn in try MetadataSeal.status(txn, meta) }
    }

    /// Changes the `meta` database of the log at `path` directly, as damage would, without sealing it again.
    func damage(_ path: String, _ change: (Database, Transaction) throws -> Void) throws {
        let environment = try Environment(path: path)
        let meta = try environment.openDatabase(LogLayout.metaDatabase)
        try environment.write { txn in try change(meta, txn) }
    }

    /// Flips `bits` of the last byte of `key`'s value in the log at `path`, without sealing it again.
    func flipLastByte(of key: String, in path: String, bits: UInt8) throws {
        try damage(path) { meta, txn in
            var value = Array(try #require(try txn.get(meta, key: Array(key.utf8))))
            value[value.count - 1] ^= bits
            try txn.put(meta, key: Array(key.utf8), value: value)
        }
    }

    /// A closed log of two streams whose `meta` has every key but `sequence-floor`.
    func makeLog(_ name: String = "sealed.reactorlog") throws -> String {
        try scratch.twoStreamLog(name, mutations: 30).close()
        return scratch.file(name)
    }

    @Test("the seal is the CRC-32C of each key and value after its length, as FORMAT.md's example works it out")
    func formatExample() throws {
        let path = scratch.file("bare.lmdb")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let environment = try Environment(path: path)
        let meta = try environment.openDatabase(LogLayout.metaDatabase, flags: .create)
        let seal: String = try environment.write { txn in
            try txn.put(meta, key: Array("format-version".utf8), value: Array("6".utf8))
            try MetadataSeal.seal(txn, meta)
            return try MetadataSeal.computed(txn, meta)
        }
        #expect(seal == "fa584469")
    }

    @Test("a new log is sealed; a trim and a raised sequence floor write the metadata and seal it again")
    func everyWriteSeals() throws {
        let path = try makeLog()
        #expect(try status(path) == .intact)
        let log = try EventLog.open(at: path)
        let highest = try log.highestSequence()
        try log.trim(before: 25)
        #expect(try log.metadata().sequenceFloor == highest)
        #expect(try log.verify().isHealthy)
        try log.raiseSequenceFloor(to: 100)
        #expect(try log.metadata().sequenceFloor == 100)
        #expect(try log.verify().isHealthy)
        try log.close()
        #expect(try status(path) == .intact)
    }

    @Test("a changed byte in a value of the metadata, or in the seal, is reported by verify and refused by a writer; the entries still read", arguments: [
        ("created-at", 0x01), ("created-by", 0x01), ("written-by", 0x01), ("snapshot-policy", 0x01), ("metadata-checksum", 0x01),
    ] as [(String, UInt8)])
    func damagedValue(_ key: String, _ bit: UInt8) throws {
        let path = try makeLog()
        // A digit stays a digit, so only the seal tells (a key of few values is put back: `damagedValueMended`).
        try flipLastByte(of: key, in: path, bits: bit)
        do {
            let reader = try EventLog.openReadOnly(at: path)
            defer { try? reader.close() }
            let report = try reader.verify()
            #expect(report.problems.contains { $0.message.contains("the metadata is damaged: its checksum says") }, "\(report.problems)")
            #expect(try reader.readEntries().count == 62, "nothing written is lost")
            #expect(throws: EventLogError.self) { try reader.metadata() }
        }
        #expect(throws: EventLogError.corruptMetadata(reason: "its checksum does not match its keys and values, so one of them is damaged")) {
            try EventLog.open(at: path)
        }
        guard case .broken = try status(path) else {
            Issue.record("the refused writer sealed the damage")
            return
        }
    }

    /// Before 2026-12-06 a bad bit in the format version refused the log as one of a newer format ("upgrade
    /// ReactorLog", for an 8 read as a 9) or as not a log at all; one in the codec or the durability left `info` and
    /// `export` refusing it.
    @Test("a damaged value of a key whose values are few is put back where the seal vouches for one: read as sound, named by verify, refused to a writer", arguments: [
        ("format-version", 0x01, "9"), ("format-version", 0x0F, "7"), ("format-version", 0x40, "x"), ("codec", 0x01, "binarx"),
        ("durability", 0x01, "groupee"),
    ] as [(String, UInt8, String)])
    func damagedValueMended(_ key: String, _ bit: UInt8, _ read: String) throws {
        let path = try makeLog()
        let sound = try EventLog.openReadOnly(at: path).metadata()
        let written = key == "format-version" ? String(sound.formatVersion) : key == "codec" ? sound.codec : sound.durability?.rawValue
        try flipLastByte(of: key, in: path, bits: bit)
        do {
            let reader = try EventLog.openReadOnly(at: path)
            defer { try? reader.close() }
            #expect(try reader.metadata() == sound)
            #expect(try reader.storedMetadata().damage == nil)
            #expect(try reader.readEntries().count == 62)
            let problems = try reader.verify().problems.map(\.message)
            #expect(problems == ["the metadata has a \(key) record that reads '\(read)', a damaged value: its seal vouches for \(try #require(written))"])
        }
        let refused = #expect(throws: EventLogError.self) { try EventLog.open(at: path) }
        #expect(refused?.refusesOnlyWriters == true, "\(String(describing: refused?.description))")
        guard case .broken = try status(path) else {
            Issue.record("the refused writer sealed the value it read")
            return
        }
    }

    @Test("a record whose key a bad bit changed is read under its key where the seal vouches for it, the seal's own record too", arguments: [
        ("format-version", "format-versioo"), ("created-at", "created-au"), ("metadata-checksum", "metadata-checksul"),
        ("durability", "\\xE4urability"),
    ])
    func damagedKeyMended(_ key: String, _ read: String) throws {
        let path = try makeLog()
        let sound = try EventLog.openReadOnly(at: path).metadata()
        // `\xE4`: the first byte with its high bit set, which is not UTF-8 (the key is compared as bytes).
        let damaged = read.hasPrefix("\\xE4") ? [0xE4] + Array(read.utf8.dropFirst(4)) : Array(read.utf8)
        try LogDamage.rekey(of: path, database: LogLayout.metaDatabase, from: Array(key.utf8), to: damaged)
        do {
            let reader = try EventLog.openReadOnly(at: path)
            defer { try? reader.close() }
            #expect(try reader.metadata() == sound)
            #expect(try reader.readEntries().count == 62)
            let problems = try reader.verify().problems.map(\.message)
            #expect(problems == ["the metadata has a record under key '\(read)', a damaged key: its seal vouches for it as \(key)"])
        }
        let refused = #expect(throws: EventLogError.self) { try EventLog.open(at: path) }
        #expect(refused?.refusesOnlyWriters == true, "\(String(describing: refused?.description))")
    }

    /// A bad bit in the size of the format version's key makes it `format-version8` and moves its value to the byte
    /// after it: before 2026-12-06 the log read as one with no format version, and nothing of it was read.
    @Test("a record whose key size a bad bit changed is read as the key and value of few the seal vouches for")
    func damagedKeySizeMended() throws {
        let path = try makeLog()
        let sound = try EventLog.openReadOnly(at: path).metadata()
        try damage(path) { meta, txn in
            _ = try txn.delete(meta, key: Array("format-version".utf8))
            try txn.put(meta, key: Array("format-version\(sound.formatVersion)".utf8), value: [0])
        }
        let reader = try EventLog.openReadOnly(at: path)
        defer { try? reader.close() }
        #expect(try reader.metadata() == sound)
        #expect(try reader.verify().problems.map(\.message) == [
            "the metadata has a record under key 'format-version\(sound.formatVersion)', a damaged key size: its seal vouches for it as format-version \(sound.formatVersion)",
        ])
    }

    @Test("a byte a bad disk flips in created-at, leaving a valid number, is reported by verify")
    func flippedOnDisk() throws {
        let path = try makeLog()
        let createdAt = try #require(try EventLog.openReadOnly(at: path).metadata().createdAt)
        try CorruptFile.flipByte(in: path + "/data.mdb", after: Array("created-at\(String(createdAt).prefix(4))".utf8))
        let reader = try EventLog.openReadOnly(at: path)
        // The value still reads as a number: only the seal tells, and what reads the metadata (an export's header) is
        // refused rather than given the damaged time.
        #expect(throws: EventLogError.corruptMetadata(reason: "its checksum does not match its keys and values, so one of them is damaged")) {
            try reader.metadata()
        }
        #expect(!(try reader.verify().isHealthy))
        // As stored, for a report that marks it: the damaged time, not the one written, and the seal's damage beside it.
        let stored = try reader.storedMetadata()
        #expect(stored.metadata.createdAt != createdAt && stored.metadata.formatVersion == EventLog.formatVersion)
        #expect(stored.damage == .corruptMetadata(reason: "its checksum does not match its keys and values, so one of them is damaged"))
        let sound = try EventLog.openReadOnly(at: try makeLog("sound.reactorlog")).storedMetadata()
        #expect(sound.damage == nil && sound.metadata.codec == "binary")
    }

    @Test("a log of version 6 or later without a seal is reported; one of version 5 has none and is sealed by the next writer")
    func missingSeal() throws {
        let path = try makeLog()
        try damage(path) { meta, txn in
            _ = try txn.delete(meta, key: Array(LogLayout.MetaKey.checksum.utf8))
        }
        let report = try EventLog.openReadOnly(at: path).verify()
        #expect(report.problems.map(\.message) == ["the metadata has no checksum, but the log says format version \(EventLog.formatVersion), whose metadata is sealed by one"])
        #expect(throws: EventLogError.corruptMetadata(reason: "its checksum is missing, though the log's format version seals it")) {
            try EventLog.openReadOnly(at: path).metadata()
        }
        #expect(try EventLog.openReadOnly(at: path).storedMetadata().damage == .corruptMetadata(reason: "its checksum is missing, though the log's format version seals it"))

        try damage(path) { meta, txn in
            try txn.put(meta, key: Array(LogLayout.MetaKey.formatVersion.utf8), value: Array("5".utf8))
        }
        #expect(try status(path) == .missing)
        #expect(try EventLog.openReadOnly(at: path).verify().isHealthy, "a log written before version 6 has no seal to check")
        try EventLog.open(at: path).close()
        #expect(try status(path) == .intact)
        #expect(try EventLog.openReadOnly(at: path).metadata().formatVersion == EventLog.formatVersion)
    }

    /// Before 2026-12-06 a wiped format version, or a wiped seal beside which LMDB's search missed the format version,
    /// left nothing of the log read (`its metadata has no format version, though it holds entries`).
    @Test("a metadata record a zeroed sector wiped: the values are found by walking, a value of few the seal vouches for is put back, verify names it, a writer is refused", arguments: [
        ("format-version", true), ("codec", true), ("durability", true), ("metadata-checksum", false), ("created-at", false),
    ] as [(String, Bool)])
    func wipedRecord(_ key: String, _ vouched: Bool) throws {
        let path = try makeLog("wiped-\(key).reactorlog")
        let sound = try EventLog.openReadOnly(at: path).metadata()
        let restored = !vouched ? nil : key == "format-version" ? String(sound.formatVersion) : key == "codec" ? sound.codec : sound.durability?.rawValue
        try LogDamage.zeroNodeInFile(of: path, database: LogLayout.metaDatabase) { _ in Array(key.utf8) }
        do {
            let reader = try EventLog.openReadOnly(at: path)
            #expect(try reader.readEntries().count == 62, "nothing written is lost")
            let problems = try reader.verify().problems.map(\.message)
            let value = restored.map { ", whose value its seal vouches for as \(key) \($0)" } ?? ", whose value is lost"
            #expect(problems.first == "the metadata has a record that tells no key (a node a zeroed sector wiped)\(value)", "\(problems)")
            if restored != nil {
                #expect(problems.count == 1)
                #expect(try reader.metadata() == sound)
            } else {
                #expect(throws: EventLogError.self) { try reader.metadata() }
            }
            // The values as stored: a creation time lost is none (before 2026-12-06, 0: `info` said 1970-01-01).
            #expect(try (reader.storedMetadata().metadata.createdAt == nil) == (key == "created-at"))
        }
        // Let go of the reader above: a writer of this process is refused the log's damage, not the reader.
        let refused = #expect(throws: EventLogError.self) { try EventLog.open(at: path) }
        #expect(refused?.refusesOnlyWriters == true, "\(String(describing: refused?.description))")
    }
}

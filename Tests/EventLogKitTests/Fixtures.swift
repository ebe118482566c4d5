@testable import EventLogKit
import Foundation
import LMDB
import TestSupport
import Testing

/// The log at `path` as plain LMDB, read-only: for tests that look at or under the format.
func readOnlyEnvironment(_ path: String) throws -> Environment {
    var options = EnvironmentOptions()
    options.readOnly = true
    return try Environment(path: path, options: options)
}

/// Every key and value of the log's LMDB database `name`, in key order.
func rawRecords(_ path: String, _ name: String) throws -> [(key: [UInt8], value: [UInt8])] {
    let environment = try readOnlyEnvironment(path)
    let database = try environment.openDatabase(name)
    return try environment.read { txn in
        try txn.withCursor(database) { cursor in
            var found: [(key: [UInt8], value: [UInt8])] = []
            var item = try cursor.first()
            while let current = item {
                found.append((Array(current.key), Array(current.value)))
                item = try cursor.next()
            }
            return found
        }
    }
}

extension EntryDraft {
    /// An action entry whose payload is the JSON string of its case name, sent from `callSite` when given.
    static func action(_ name: String, sentFrom callSite: String? = nil) -> EntryDraft {
        EntryDraft(kind: .action, caseName: name, payload: Data("\"\(name)\"".utf8), callSite: callSite)
    }

    /// A mutation entry with a JSON integer payload.
    static func mutation(_ name: String, _ value: Int = 1, cause: UInt64? = nil) -> EntryDraft {
        EntryDraft(kind: .mutation, caseName: name, payload: Data("{\"\(name)\":{\"_0\":\(value)}}".utf8), cause: cause)
    }
}

extension ScratchDirectory {
    /// Opens (creating) a log in the scratch directory, with `configure` applied to the defaults.
    func openLog(
        _ name: String = "test.reactorlog", configure: (inout EventLogConfiguration) -> Void = { _ in }
    ) throws -> EventLog {
        var configuration = EventLogConfiguration()
        configure(&configuration)
        return try EventLog.open(at: file(name), configuration: configuration)
    }

    /// A log with two streams: `counter` (id 1), adding 1, 2, 3, … with a snapshot of the total every 10
    /// mutations, and `plain` (id 2), one action after each of counter's mutations.
    func twoStreamLog(_ name: String, mutations: Int) throws -> EventLog {
        let log = try openLog(name) { $0.snapshotPolicy = .every(mutations: 10) }
        let counter = try log.counterStream(), plain = try log.counterStream("plain")
        var total = 0
        for i in 1...mutations {
            let sequence = try counter.append(.mutation("add", i))
            total += i
            if counter.isSnapshotDue { try counter.writeSnapshot(total, at: sequence) }
            try plain.append(.action("tick"))
        }
        return log
    }
}

extension EventLog {
    /// Opens a stream with an integer initial state.
    func counterStream(_ name: String = "counter", initial: Int = 0) throws -> LogStream {
        try openStream(named: name, reactorType: "Counter", schemaFingerprint: "counter-v1", initialState: initial)
    }

    /// Every sequence number in the log, in order.
    func allSequences() throws -> [UInt64] {
        try readEntries().map(\.sequence)
    }
}

/// Makes the closed log at `path` what a writer of format version 7 left: `format-version` 7 (the metadata sealed
/// again) and every index block's checksum over its items alone, so that a block's key is outside it.
func sealedAsVersion7(_ path: String) throws {
    let environment = try Environment(path: path)
    let index = try environment.openDatabase(LogLayout.streamIndexDatabase)
    let meta = try environment.openDatabase(LogLayout.metaDatabase)
    let blocks = try rawRecords(path, LogLayout.streamIndexDatabase)
    try environment.write { txn in
        for block in blocks { try txn.put(index, key: block.key, value: resealed(block.value)) }
        try txn.put(meta, key: Array(LogLayout.MetaKey.formatVersion.utf8), value: Array("7".utf8))
        try MetadataSeal.seal(txn, meta)
    }
}

/// Moves the index block of stream `id` keyed `first` to the key `moved`, its record unchanged: a key damaged into
/// another number.
func moveIndexBlock(_ path: String, stream id: UInt32, from first: UInt64, to moved: UInt64) throws {
    let environment = try Environment(path: path)
    let index = try environment.openDatabase(LogLayout.streamIndexDatabase)
    try environment.write { txn in
        let stored: UnsafeRawBufferPointer? = try txn.get(index, key: KeyCoding.streamSequence(id, first))
        let value = Array(try #require(stored))
        _ = try txn.delete(index, key: KeyCoding.streamSequence(id, first))
        try txn.put(index, key: KeyCoding.streamSequence(id, moved), value: value)
    }
}

/// Changes, in the closed log's file at `path`, the stream id of the index block keyed (`id`, `first`) to `other`,
/// where its node lies, as a bad disk would (LMDB's API would move the key to where `other`'s keys sort): every
/// copy of the key's bytes, stale ones in free pages included. The caller picks a key no other database holds.
func changeStreamIDInPlace(_ path: String, stream id: UInt32, first: UInt64, to other: UInt8) throws {
    let file = URL(fileURLWithPath: path + "/" + LogLayout.dataFile)
    var bytes = [UInt8](try Data(contentsOf: file))
    let key = KeyCoding.streamSequence(id, first)
    var changed = 0
    for offset in 0...(bytes.count - key.count) where bytes[offset] == key[0] && bytes[offset..<offset + key.count].elementsEqual(key) {
        bytes[offset + 3] = other
        changed += 1
    }
    #expect(changed >= 1, "the key is in the file")
    try Data(bytes).write(to: file)
}

/// The leaf nodes in `bytes`, a log's data file, whose key is the 12 bytes `key`: where each key starts, and the
/// size of the value after it. An LMDB node: its value's size (two little-endian `u16`, low half first), its flags
/// (`u16`), its key's size (`u16`), the key, the value.
func leafNodes(withKey key: [UInt8], in bytes: [UInt8]) -> [(key: Int, valueSize: Int)] {
    (8..<bytes.count - key.count).compactMap { at in
        guard bytes[at] == key[0], bytes[at - 2] == 12, bytes[at - 1] == 0, bytes[at..<at + key.count].elementsEqual(key) else { return nil }
        let valueSize = Int(bytes[at - 8]) | Int(bytes[at - 7]) << 8 | Int(bytes[at - 6]) << 16 | Int(bytes[at - 5]) << 24
        return at + key.count + valueSize <= bytes.count ? (at, valueSize) : nil
    }
}

/// Flips the last byte of the index block keyed (`id`, `first`) where it lies in the log's file at `path`, in every
/// copy that decodes as that block, as a bad disk would, without LMDB (whose map of the file then shows the change
/// to a writer that has the log open); returns how many copies it changed.
@discardableResult
func damageIndexBlockInPlace(_ path: String, stream id: UInt32, first: UInt64) throws -> Int {
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path + "/" + LogLayout.dataFile))
    defer { try? handle.close() }
    let bytes = [UInt8](try handle.readToEnd() ?? Data())
    let key = KeyCoding.streamSequence(id, first)
    var changed = 0
    for node in leafNodes(withKey: key, in: bytes) where node.valueSize > StreamIndex.checksumSize {
        let start = node.key + key.count
        let value = Array(bytes[start..<start + node.valueSize])
        guard (try? value.withUnsafeBytes({ try StreamIndex.decode($0, stream: id, first: first, seal: .keyAndItems) { _ in true } })) != nil else { continue }
        try handle.seek(toOffset: UInt64(start + node.valueSize - 1))
        try handle.write(contentsOf: [value[node.valueSize - 1] ^ 0x02])
        changed += 1
    }
    return changed
}

/// Changes, in the closed log's file at `path`, the key of database `name`'s record keyed (`id`, `sequence`) to
/// (`id`, `changed`) where its node lies, as a bad disk would (through LMDB's API the record would move to where the
/// new key sorts): every leaf node of that key holding the record's value. Returns how many it changed.
func changeKeyInPlace(_ path: String, _ name: String, stream id: UInt32, sequence: UInt64, to changed: UInt64) throws -> Int {
    let key = KeyCoding.streamSequence(id, sequence)
    let value = try #require(try rawRecords(path, name).first { $0.key == key }?.value)
    let file = URL(fileURLWithPath: path + "/" + LogLayout.dataFile)
    var bytes = [UInt8](try Data(contentsOf: file))
    var count = 0
    for node in leafNodes(withKey: key, in: bytes) where node.valueSize == value.count {
        let start = node.key + key.count
        guard bytes[start..<start + value.count].elementsEqual(value) else { continue }
        bytes.replaceSubrange(node.key..<start, with: KeyCoding.streamSequence(id, changed))
        count += 1
    }
    try Data(bytes).write(to: file)
    return count
}

/// `record` with the CRC-32C of its bytes 4… stored in its first four, as an intact record has: so that decoding a
/// record changed on purpose goes past the checksum, to the check a test aims at.
func resealed(_ record: [UInt8]) -> [UInt8] {
    var record = record
    record.withUnsafeMutableBytes { ByteWriter(bytes: $0).sealChecksum() }
    return record
}

/// What `decode` makes of an input: "accepted", or the error it throws, as text.
func refusal(_ decode: () throws -> Void) -> String {
    do {
        try decode()
        return "accepted"
    } catch {
        return "\(error)"
    }
}

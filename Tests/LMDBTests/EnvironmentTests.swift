import Foundation
import LMDB
import TestSupport
import Testing

@Suite("LMDB environment")
struct EnvironmentTests {
    let scratch = ScratchDirectory()

    func key(_ n: UInt64) -> [UInt8] { withUnsafeBytes(of: n.bigEndian) { Array($0) } }

    /// An environment whose map starts at 64 KiB, so that a few hundred kilobytes of writes make it grow.
    static func smallMap(at path: String, growingAtMostTo maxMapSize: Int? = nil) throws -> Environment {
        var options = EnvironmentOptions()
        options.mapSize = 64 << 10
        if let maxMapSize { options.maxMapSize = maxMapSize }
        return try Environment(path: path, options: options)
    }

    @Test("a value written in a committed transaction is read back; a deleted one is gone")
    func putGetDelete() throws {
        let env = try Environment(path: scratch.path)
        let db = try env.openDatabase("things", flags: .create)
        try env.write { txn in try txn.put(db, key: Array("a".utf8), value: Array("alpha".utf8)) }
        let value = try env.read { txn in try txn.get(db, key: Array("a".utf8)).map { String(decoding: $0, as: UTF8.self) } }
        #expect(value == "alpha")
        let deleted = try env.write { txn in try txn.delete(db, key: Array("a".utf8)) }
        #expect(deleted)
        #expect(try env.read { txn in try txn.get(db, key: Array("a".utf8)) } == nil)
        #expect(try env.write { txn in try txn.delete(db, key: Array("a".utf8)) } == false)
    }

    /// LMDB lengthens a lock file it makes without writing it: pages it writes later through its map need room then,
    /// and on a full disk that write ends the process (`SIGBUS`). A new lock file is written whole instead.
    @Test("a new environment's lock file has every byte written, LMDB's table of readers fits it, and an existing one is left as it is")
    func lockFileWrittenWhole() throws {
        _ = try Environment(path: scratch.path)
        var status = stat()
        #expect(stat(scratch.path + "/lock.mdb", &status) == 0)
        #expect(Int(status.st_size) >= 8192 && Int(status.st_blocks) * 512 >= Int(status.st_size), "\(status.st_size) bytes, \(status.st_blocks) blocks")
        let other = scratch.path + "/other"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: false)
        // A lock file left with a hole (as LMDB makes one) is LMDB's to use as it is.
        let descriptor = open(other + "/lock.mdb", O_WRONLY | O_CREAT, 0o600)
        #expect(ftruncate(descriptor, 8192) == 0)
        close(descriptor)
        let env = try Environment(path: other)
        let db = try env.openDatabase("things", flags: .create)
        try env.write { txn in try txn.put(db, key: key(1), value: [1]) }
        #expect(stat(other + "/lock.mdb", &status) == 0 && status.st_size == 8192)
    }

    @Test("an environment's data file identity is the file at its path until the file there is removed or replaced")
    func dataFileIdentity() throws {
        let env = try Environment(path: scratch.path)
        let data = scratch.path + "/data.mdb"
        #expect(env.dataFileIdentity != nil)
        #expect(env.dataFileIdentity == FileIdentity(path: data))
        try FileManager.default.moveItem(atPath: data, toPath: scratch.path + "/moved.mdb")
        #expect(FileIdentity(path: data) == nil)
        #expect(env.dataFileIdentity == FileIdentity(path: scratch.path + "/moved.mdb"))
        try Data("other".utf8).write(to: URL(fileURLWithPath: data))
        #expect(env.dataFileIdentity != FileIdentity(path: data))
    }

    @Test("a read begun inside another's body runs in its transaction: the outer snapshot, however the log moved on")
    func nestedReadSharesTheTransaction() throws {
        let env = try Environment(path: scratch.path)
        let db = try env.openDatabase("things", flags: .create)
        try env.write { txn in try txn.put(db, key: Array("a".utf8), value: Array("old".utf8)) }
        func value(_ txn: Transaction) throws -> String? { try txn.get(db, key: Array("a".utf8)).map { String(decoding: $0, as: UTF8.self) } }
        let (outer, inner) = try env.read { txn -> (String?, String?) in
            // Another thread commits a new value while this read is open.
            let committed = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                try? env.write { txn in try txn.put(db, key: Array("a".utf8), value: Array("new".utf8)) }
                committed.signal()
            }
            committed.wait()
            return (try value(txn), try env.read { try value($0) })
        }
        #expect(outer == "old")
        #expect(inner == "old", "a nested read began a transaction of its own")
        // The next read, not nested, is a transaction of its own.
        #expect(try env.read { try value($0) } == "new")
    }

    @Test("a write whose body throws is aborted: nothing it wrote remains")
    func throwingWriteAborts() throws {
        struct Boom: Error {}
        let env = try Environment(path: scratch.path)
        let db = try env.openDatabase("things", flags: .create)
        #expect(throws: Boom.self) {
            try env.write { txn in
                try txn.put(db, key: Array("k".utf8), value: Array("v".utf8))
                throw Boom()
            }
        }
        #expect(try env.read { txn in try txn.count(db) } == 0)
    }

    @Test("cursors seek at-or-after and at-or-before, and walk in key order")
    func cursorSeeks() throws {
        let env = try Environment(path: scratch.path)
        let db = try env.openDatabase("numbers", flags: .create)
        try env.write { txn in
            for n: UInt64 in [10, 20, 30] { try txn.put(db, key: key(n), value: [UInt8(n)]) }
        }
        try env.read { txn in
            try txn.withCursor(db) { cursor in
                #expect(try cursor.seek(atOrAfter: key(15))?.value.first == 20)
                #expect(try cursor.seek(atOrAfter: key(20))?.value.first == 20)
                #expect(try cursor.seek(atOrAfter: key(31)) == nil)
                #expect(try cursor.seek(atOrBefore: key(25))?.value.first == 20)
                #expect(try cursor.seek(atOrBefore: key(30))?.value.first == 30)
                #expect(try cursor.seek(atOrBefore: key(99))?.value.first == 30)
                #expect(try cursor.seek(atOrBefore: key(5)) == nil)
                var seen: [UInt8] = []
                var item = try cursor.first()
                while let current = item {
                    seen.append(current.value[0])
                    item = try cursor.next()
                }
                #expect(seen == [10, 20, 30])
                #expect(try cursor.last()?.value.first == 30)
                #expect(try cursor.previous()?.value.first == 20)
            }
        }
    }

    @Test("append refuses a key that is not the largest, with MDB_KEYEXIST")
    func appendOrder() throws {
        let env = try Environment(path: scratch.path)
        let db = try env.openDatabase("log", flags: .create)
        try env.write { txn in try txn.put(db, key: key(2), value: [2], flags: .append) }
        let error = #expect(throws: LMDBError.self) {
            try env.write { txn in try txn.put(db, key: key(1), value: [1], flags: .append) }
        }
        #expect(error?.isKeyExists == true)
        #expect(error?.description.contains("mdb_put failed") == true)
    }

    @Test("reserve writes a value in place")
    func reserve() throws {
        let env = try Environment(path: scratch.path)
        let db = try env.openDatabase("r", flags: .create)
        try env.write { txn in
            try key(1).withUnsafeBytes { k in
                try txn.reserve(db, key: k, size: 3) { buffer in buffer.copyBytes(from: [7, 8, 9]) }
            }
        }
        #expect(try env.read { txn in try txn.get(db, key: key(1)).map(Array.init) } == [7, 8, 9])
    }

    @Test("a full map grows by doubling and the transaction is redone")
    func mapGrowth() async throws {
        let scratch = scratch
        // Blocking work on a thread of its own; the expectations run in the test's task.
        let (before, after, count) = try await onOwnThread {
            let env = try Self.smallMap(at: scratch.path)
            let db = try env.openDatabase("big", flags: .create)
            let before = env.mapSize
            let value = [UInt8](repeating: 0xAB, count: 1000)
            for batch in 0..<20 {
                try env.write { txn in
                    for i in 0..<100 { try txn.put(db, key: key(UInt64(batch * 100 + i)), value: value) }
                }
            }
            return (before, env.mapSize, try env.read { txn in try txn.count(db) })
        }
        #expect(after > before)
        #expect(count == 2000)
    }

    @Test("a transaction that drops a database and is redone after the map grew opens it anew and drops it")
    func dropRedone() async throws {
        let scratch = scratch
        let (attempts, names, count) = try await onOwnThread {
            let env = try Self.smallMap(at: scratch.path)
            let old = try env.openDatabase("old", flags: .create)
            let new = try env.openDatabase("new", flags: .create)
            try env.write { txn in for i in 0..<20 { try txn.put(old, key: key(UInt64(i)), value: [1]) } }
            var attempts = 0
            try env.write { txn in
                attempts += 1
                // The first attempt's drop closes the handle, and the map fills after it: the second must reopen.
                let old = try #require(try txn.openDatabase("old"))
                try txn.drop(old)
                for i in 0..<200 { try txn.put(new, key: key(UInt64(i)), value: [UInt8](repeating: 2, count: 1000)) }
            }
            return (attempts, try env.databaseNames(), try env.read { txn in try txn.count(new) })
        }
        #expect(attempts > 1)
        #expect(names == ["new"])
        #expect(count == 200)
    }

    @Test("a map set larger holds more without growing; the bytes in use count whole pages and grow with the data")
    func mapSizeAndUse() throws {
        let env = try Self.smallMap(at: scratch.path)
        let db = try env.openDatabase("big", flags: .create)
        let empty = env.usedBytes
        #expect(empty > 0 && empty % env.pageSize == 0)
        try env.setMapSize(4 << 20)
        #expect(env.mapSize == 4 << 20)
        try env.write { txn in
            for i in 0..<1000 { try txn.put(db, key: key(UInt64(i)), value: [UInt8](repeating: 3, count: 1000)) }
        }
        #expect(env.mapSize == 4 << 20, "a megabyte of values fits the map set, so it did not grow")
        let used = env.usedBytes
        #expect(used % env.pageSize == 0)
        #expect(used >= 1000 * 1000 && used <= env.mapSize, "\(used) bytes in use")
    }

    @Test("a database of integer keys orders them as numbers, in the machine's byte order")
    func integerKeys() throws {
        let env = try Environment(path: scratch.path)
        let db = try env.openDatabase("numbers", flags: [.create, .integerKey])
        func native(_ n: UInt64) -> [UInt8] { withUnsafeBytes(of: n) { Array($0) } }
        try env.write { txn in
            for n: UInt64 in [256, 1, 65_536, 2] { try txn.put(db, key: native(n), value: [UInt8(n % 251)]) }
        }
        let order = try env.read { txn in
            try txn.withCursor(db) { cursor in
                var keys: [UInt64] = []
                var item = try cursor.first()
                while let current = item {
                    keys.append(current.key.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
                    item = try cursor.next()
                }
                return keys
            }
        }
        #expect(order == [1, 2, 256, 65_536], "little-endian bytes compared as bytes would put 256 first")
    }

    @Test("growth stops at maxMapSize with a map-full error")
    func mapLimit() throws {
        let env = try Self.smallMap(at: scratch.path, growingAtMostTo: 256 << 10)
        let db = try env.openDatabase("big", flags: .create)
        let error = #expect(throws: LMDBError.self) {
            try env.write { txn in
                for i in 0..<1000 { try txn.put(db, key: key(UInt64(i)), value: [UInt8](repeating: 1, count: 1000)) }
            }
        }
        #expect(error?.isMapFull == true)
        #expect(try env.read { txn in try txn.count(db) } == 0)
    }

    @Test("a read-only environment refuses writes and a missing database")
    func readOnly() throws {
        do {
            let env = try Environment(path: scratch.path)
            _ = try env.openDatabase("present", flags: .create)
        }
        var options = EnvironmentOptions()
        options.readOnly = true
        let reader = try Environment(path: scratch.path, options: options)
        let present = try reader.openDatabase("present")
        #expect(throws: LMDBError.self) {
            try reader.write { txn in try txn.put(present, key: [1], value: [1]) }
        }
        let missing = #expect(throws: LMDBError.self) { try reader.openDatabase("absent") }
        #expect(missing?.isNotFound == true)
    }

    @Test("a file that is not LMDB is reported as invalid, naming the call")
    func foreignFile() throws {
        let garbage = [UInt8](repeating: 0x5A, count: 16_384)
        _ = FileManager.default.createFile(atPath: scratch.path + "/data.mdb", contents: Data(garbage))
        let error = #expect(throws: LMDBError.self) { try Environment(path: scratch.path) }
        #expect(error?.isInvalidFile == true)
        #expect(error?.operation == "mdb_env_open")
    }

    @Test("a compacting copy holds the same data")
    func compactCopy() throws {
        let source = ScratchDirectory(), target = ScratchDirectory()
        let original = try Environment(path: source.path)
        let db = try original.openDatabase("d", flags: .create)
        try original.write { txn in for i in 0..<100 { try txn.put(db, key: key(UInt64(i)), value: [UInt8(i)]) } }
        let file = open(target.path + "/data.mdb", O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(file >= 0)
        defer { close(file) }
        try original.copy(toDescriptor: file, compact: true)
        let copy = try Environment(path: target.path)
        let copied = try copy.openDatabase("d")
        #expect(try copy.read { txn in try txn.count(copied) } == 100)
    }
}

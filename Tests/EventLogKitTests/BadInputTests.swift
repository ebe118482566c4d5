@testable import EventLogKit
import Foundation
import LMDB
import TestSupport
import Testing

/// Every kind of bad input gets a typed error whose message is one sentence-like line.
@Suite("Bad input")
struct BadInputTests {
    let scratch = ScratchDirectory()

    func expectOneLine(_ error: EventLogError?) {
        #expect(error != nil)
        #expect(error?.description.contains("\n") == false)
    }

    /// Before, a writer's open called such a log "not a ReactorLog log" (its writer.lock could not be made).
    @Test(
        "a log on a file system mounted read-only: a writer is refused saying so, a reader reads it, a new log there is refused, and the inspector names it",
        .enabled(if: LoopVolume.canMount, "needs root, loop devices, mkfs.btrfs (Tools/scripts/setup.sh --tests) and mkfs.ext4"))
    func readOnlyFileSystem() throws {
        let volume = try LoopVolume(.btrfs, in: scratch)
        let path = volume.path + "/mounted.reactorlog"
        do {
            let log = try EventLog.open(at: path)
            let stream = try log.openStream(named: "s", reactorType: "T", schemaFingerprint: "f", initialState: 0)
            try stream.append(.action("tap"))
            try log.close()
        }
        // Let go above: a file open for writing would keep the file system from becoming read-only.
        try volume.remountReadOnly()
        let error = #expect(throws: EventLogError.self) { try EventLog.open(at: path) }
        #expect(error == .readOnlyFileSystem(path: path))
        expectOneLine(error)
        #expect(try EventLog.openReadOnly(at: path).readEntries(EntryQuery(stream: "s")).map(\.caseName) == ["opened", "tap"])
        let created = #expect(throws: EventLogError.self) { try EventLog.open(at: volume.path + "/new.reactorlog") }
        #expect(created == .cannotCreate(path: volume.path + "/new.reactorlog", reason: "\(volume.path) is on a file system mounted read-only"))
        let inspector = CrashWriterProcess.executable.deletingLastPathComponent().appendingPathComponent("reactorlog").path
        let errors = Pipe()
        let trim = try ChildProcess(inspector, ["trim", path, "--before", "2"], error: .pipe(errors))
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let exit = trim.waitForExit()
        #expect(!exit.signalled && exit.status == 3, "\(exit)")
        #expect(message.hasPrefix("reactorlog: The log at \(path) is on a file system mounted read-only, so it cannot be opened for writing. Commands that only read it work;"), "\(message)")
        #expect(message.split(separator: "\n").count == 1, "\(message)")
    }

    @Test("a missing path, read-only, is not found")
    func missingPath() {
        let path = scratch.file("absent.reactorlog")
        let error = #expect(throws: EventLogError.notFound(path: path)) { try EventLog.openReadOnly(at: path) }
        expectOneLine(error)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a missing parent directory, for writing, is reported rather than created")
    func missingParent() {
        let path = scratch.file("no/such/dir/x.reactorlog")
        #expect(throws: EventLogError.self) { try EventLog.open(at: path) }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("no")))
    }

    @Test("a directory holding other files is not a log, and is left untouched")
    func foreignDirectory() throws {
        let path = scratch.file("photos")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: path + "/cat.jpg", contents: Data([1, 2, 3]))
        let forWriting = #expect(throws: EventLogError.self) { try EventLog.open(at: path) }
        #expect(forWriting?.description.contains("cat.jpg") == true)
        let forReading = #expect(throws: EventLogError.self) { try EventLog.openReadOnly(at: path) }
        #expect(forReading?.description.contains("no data.mdb") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: path) == ["cat.jpg"])
    }

    @Test("a file where a log directory is expected")
    func plainFile() throws {
        let path = scratch.file("log.txt")
        _ = FileManager.default.createFile(atPath: path, contents: Data("hello".utf8))
        let error = #expect(throws: EventLogError.self) { try EventLog.openReadOnly(at: path) }
        #expect(error == .notALog(path: path, reason: "it is a file, not a log directory"))
        #expect(throws: EventLogError.self) { try EventLog.open(at: path) }
    }

    @Test("a data file that is a directory, a device, a pipe or a link to nothing is refused by its kind, never opened")
    func specialDataFile() throws {
        let cases: [(String, (String) throws -> Void, String)] = [
            ("a directory", { try FileManager.default.createDirectory(atPath: $0, withIntermediateDirectories: false) }, "a directory, not a file"),
            ("a device", { try FileManager.default.createSymbolicLink(atPath: $0, withDestinationPath: "/dev/zero") }, "a device, not a file"),
            // A pipe nobody writes to: a read of it would wait for ever.
            ("a pipe", { #expect(mkfifo($0, 0o600) == 0) }, "a pipe, not a file"),
            ("a link to nothing", { try FileManager.default.createSymbolicLink(atPath: $0, withDestinationPath: "/nonexistent/data.mdb") },
             "a symbolic link to nothing"),
        ]
        for (name, make, reason) in cases {
            let path = scratch.file("\(name).reactorlog")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            try make(path + "/data.mdb")
            for open in [{ try EventLog.openReadOnly(at: path) }, { try EventLog.open(at: path) }] {
                let error = #expect(throws: EventLogError.self, "\(name)") { _ = try open() }
                #expect(error == .notALog(path: path, reason: "its data.mdb is \(reason)"), "\(name)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent/data.mdb"))
    }

    @Test("a lock file that links elsewhere is refused for reading and writing, and what it links to is untouched")
    func linkedLockFile() throws {
        let path = scratch.file("linked.reactorlog")
        let log = try EventLog.open(at: path)
        try log.close()
        let outside = scratch.file("outside.txt")
        _ = FileManager.default.createFile(atPath: outside, contents: Data("keep".utf8))
        try FileManager.default.removeItem(atPath: path + "/lock.mdb")
        try FileManager.default.createSymbolicLink(atPath: path + "/lock.mdb", withDestinationPath: outside)
        for open in [{ try EventLog.openReadOnly(at: path) }, { try EventLog.open(at: path) }] {
            let error = #expect(throws: EventLogError.self) { _ = try open() }
            #expect(error == .notALog(path: path, reason: "its lock.mdb is a symbolic link, not a lock file of its own (delete it, and a new one is made)"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: outside)) == Data("keep".utf8))
    }

    @Test("an empty data file and a data file of garbage", arguments: [0, 16_384])
    func damagedDataFile(size: Int) throws {
        let path = scratch.file("bad-\(size).reactorlog")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: path + "/data.mdb", contents: Data(repeating: 0x42, count: size))
        for open in [{ try EventLog.openReadOnly(at: path) }, { try EventLog.open(at: path) }] {
            let error = #expect(throws: EventLogError.self) { _ = try open() }
            expectOneLine(error)
            guard case .notALog = error else {
                Issue.record("expected notALog, got \(String(describing: error))")
                continue
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb")).count == size)
    }

    @Test("another program's LMDB environment is refused, for reading and for writing, and not modified")
    func foreignEnvironment() throws {
        let path = scratch.file("other-app")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        do {
            let env = try Environment(path: path)
            let db = try env.openDatabase("users", flags: .create)
            try env.write { txn in try txn.put(db, key: Array("ann".utf8), value: Array("admin".utf8)) }
        }
        let reading = #expect(throws: EventLogError.self) { try EventLog.openReadOnly(at: path) }
        #expect(reading?.description.contains("'meta' database") == true)
        let writing = #expect(throws: EventLogError.self) { try EventLog.open(at: path) }
        #expect(writing?.description.contains("another program's LMDB environment") == true)
        let env = try Environment(path: path)
        #expect(throws: LMDBError.self) { try env.openDatabase("meta") }
    }

    @Test("a log of a newer format is refused, naming both versions")
    func newerFormat() throws {
        let path = scratch.file("future.reactorlog")
        try EventLog.open(at: path).close()
        do {
            let env = try Environment(path: path)
            let meta = try env.openDatabase("meta")
            // As a later writer leaves it: sealed (an unsealed 99 is a bad bit, which the seal puts back: `MetadataSealTests`).
            try env.write { txn in
                try txn.put(meta, key: Array("format-version".utf8), value: Array("99".utf8))
                try MetadataSeal.seal(txn, meta)
            }
        }
        let expected = EventLogError.newerFormat(path: path, found: 99, supported: EventLog.formatVersion)
        let error = #expect(throws: expected) { try EventLog.openReadOnly(at: path) }
        #expect(error?.description.contains("version 99") == true)
        #expect(error?.description.contains("up to \(EventLog.formatVersion)") == true)
        #expect(throws: expected) { try EventLog.open(at: path) }
    }

    /// A closed log in the scratch directory holding one action, let go before the test changes its file: an open log's
    /// storage would be shared by the test's own opens.
    func logOfOneEntry(_ name: String) throws -> String {
        let path = scratch.file(name)
        let log = try EventLog.open(at: path)
        try log.openStream(named: "shop", reactorType: "Shop", schemaFingerprint: "v1", initialState: 0).append(.action, "buy", caseName: "buy")
        try log.close()
        return path
    }

    /// Changes the closed log at `path` as damage would, in one write transaction on its database `name`, through an
    /// environment let go before the test opens the log.
    func damage(_ path: String, database name: String, _ body: (Transaction, Database) throws -> Void) throws {
        let env = try Environment(path: path)
        let database = try env.openDatabase(name)
        try env.write { txn in try body(txn, database) }
    }

    /// Opens the log at `path` as FIELD.md's `openAppLog` does, records an action into a new log there, and returns
    /// where the former log was set aside.
    func recordThroughOpenAppLog(at path: String) throws -> String {
        let log = try openAppLog(at: path, configuration: EventLogConfiguration())
        try log.openStream(named: "shop", reactorType: "Shop", schemaFingerprint: "v1", initialState: 0).append(.action, "sell", caseName: "sell")
        try log.close()
        #expect(try EventLog.openReadOnly(at: path).readEntries(EntryQuery()).map(\.caseName) == ["opened", "sell"])
        let name = (path as NSString).lastPathComponent + ".damaged-"
        return scratch.file(try #require(try FileManager.default.contentsOfDirectory(atPath: scratch.path).first { $0.hasPrefix(name) }))
    }

    @Test("a page a writer would write into in place is refused for writing, not a crash at the first commit; the log set aside still reads")
    func pageOnlyAWriterTripsOn() throws {
        let path = try logOfOneEntry("dirty.reactorlog")
        // Every leaf page marked dirty (0x10 in its flags, byte 10 of a page; 0x02 a leaf), a flag LMDB keeps in
        // memory: before, the app's writer took such a page for one of its own transaction and wrote into it in place,
        // through LMDB's read-only map, SIGSEGV at its first commit, at every launch.
        let bytes = try LogDamage.markLeafPages(of: path + "/data.mdb", with: 0x10)
        let error = #expect(throws: EventLogError.self) {
            let log = try EventLog.open(at: path)
            try log.openStream(named: "shop", reactorType: "Shop", schemaFingerprint: "v1", initialState: 0).append(.action, "buy", caseName: "buy")
            try log.flush()
        }
        expectOneLine(error)
        guard case .damagedFile(_, let reason)? = error else {
            Issue.record("expected damagedFile, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("is marked with flags no page on disk has (18), which a writer would act on"), "\(reason)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb")) == bytes, "the damaged log is left as it was")
        // What FIELD.md has an app do: set the log aside for a bug report and record into a new one at the path.
        let shown = try DocumentedCode.swiftBlocks(of: "docs/FIELD.md", after: "Nor does a damaged data file", before: "- Retention runs")
        let file = try DocumentedCode.file("Tests/EventLogKitTests/BadInputTests.swift")
        #expect(shown.count == 1 && DocumentedCode.holds(file, shown[0]), "BadInputTests.swift lacks FIELD.md's openAppLog")
        let aside = try recordThroughOpenAppLog(at: path)
        // A reader passes over the flag, which changes nothing it reads.
        #expect(try EventLog.openReadOnly(at: aside).readEntries(EntryQuery()).map(\.caseName) == ["opened", "buy"])
    }

    @Test("an app's log cut to a few bytes, or to none, is damaged, not 'not a log', where a writer left its lock file: set aside by FIELD.md's opening, and recording goes on", arguments: [100, 0])
    func appLogCutShort(size: Int) throws {
        let path = try logOfOneEntry("cut-\(size).reactorlog")
        let data = try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb"))
        try data.prefix(size).write(to: URL(fileURLWithPath: path + "/data.mdb"))
        // Before, `notALog`: an app that caught `damagedFile` alone stopped recording at every launch.
        let error = #expect(throws: EventLogError.self) { try EventLog.open(at: path) }
        #expect(error == .damagedFile(path: path, reason: "its data.mdb is \(size == 0 ? "empty" : "truncated (100 bytes)")"))
        // Without ReactorLog's lock file the directory could be another program's: not a log, left alone.
        let foreign = scratch.file("foreign-\(size)")
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: false)
        try data.prefix(size).write(to: URL(fileURLWithPath: foreign + "/data.mdb"))
        guard case .notALog? = #expect(throws: EventLogError.self, performing: { try EventLog.open(at: foreign) }) else { return }
        let aside = try recordThroughOpenAppLog(at: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: aside + "/data.mdb")) == data.prefix(size), "set aside as it was")
    }

    @Test("a log whose format version is lost or not a number is damaged, not 'not a ReactorLog log': one damaged byte in the metadata's page did it", arguments: [
        (nil, "its metadata has no format version, though it holds entries"),
        ("7x", "its format version '7x' is not a number"),
    ] as [(String?, String)])
    func damagedFormatVersion(value: String?, reason: String) throws {
        let path = try logOfOneEntry("version-\(value ?? "none").reactorlog")
        try damage(path, database: "meta") { txn, meta in
            if let value {
                // Where no seal can put it back (a log written before version 6 has none).
                try txn.put(meta, key: Array("format-version".utf8), value: Array(value.utf8))
                _ = try txn.delete(meta, key: Array(LogLayout.MetaKey.checksum.utf8))
            } else {
                try txn.delete(meta, key: Array("format-version".utf8))
            }
        }
        let expected = EventLogError.damagedFile(path: path, reason: reason)
        #expect(throws: expected) { try EventLog.openReadOnly(at: path) }
        #expect(throws: expected) { try EventLog.open(at: path) }
    }

    @Test("a log whose main database lost one of ReactorLog's databases is damaged, not another program's environment", arguments: ["entries", "stream-index"])
    func lostDatabase(name: String) throws {
        let path = try logOfOneEntry("lost-\(name).reactorlog")
        // What a damaged node offset in the main database's page did in a sweep: the database's node gone.
        try damage(path, database: name) { txn, database in try txn.drop(database) }
        #expect(throws: EventLogError.damagedFile(path: path, reason: "its main database no longer lists ReactorLog's '\(name)' database")) {
            try EventLog.openReadOnly(at: path)
        }
    }

    @Test("a log whose main database holds a plain value where ReactorLog's database was (a damaged node's flags) is damaged, not an LMDB error", arguments: ["pins", "meta"])
    func incompatibleDatabase(name: String) throws {
        let path = try logOfOneEntry("incompatible-\(name).reactorlog")
        do {
            let env = try Environment(path: path)
            let database = try env.openDatabase(name)
            let main = try env.openDatabase(nil)
            try env.write { txn in
                try txn.drop(database)
                try txn.put(main, key: Array(name.utf8), value: Array("not a database".utf8))
            }
        }
        #expect(throws: EventLogError.damagedFile(path: path, reason: "its main database's record of ReactorLog's '\(name)' database is damaged (LMDB finds its flags incompatible)")) {
            try EventLog.openReadOnly(at: path)
        }
    }

    @Test("a last call-site key that is not a number is damage: read as no sites, an export dropped every call site and a writer would number a new site 1 again")
    func damagedSiteKey() throws {
        let path = try logOfOneEntry("site-key.reactorlog")
        // A key size damaged by one: the key runs one byte into its record.
        try damage(path, database: "sites") { txn, sites in try txn.put(sites, key: [0, 0, 0, 12, 0x5D], value: Array("x".utf8)) }
        let expected = EventLogError.damagedFile(path: path, reason: "the key of its last call site is damaged")
        #expect(throws: expected) { try EventLog.openReadOnly(at: path).hasCallSites() }
        #expect(throws: expected) { try EventLog.open(at: path) }
    }

    /// Before 2026-12-04 the list refused it ("a key where a search for #0 lands is 13 bytes, not 12"),
    /// and states that needed a snapshot with it.
    @Test("a snapshot key of the wrong size is damage, not the end of a stream's snapshots: one whose size grew is placed by its first 12 bytes, its record damaged")
    func damagedSnapshotKey() throws {
        let path = try logOfOneEntry("snapshot-key.reactorlog")
        // A key size damaged by one, as the sweep found: the stream's key runs one byte into its record.
        try damage(path, database: "snapshots") { txn, snapshots in
            try txn.put(snapshots, key: [0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x5D], value: Array("x".utf8))
        }
        let log = try EventLog.openReadOnly(at: path)
        #expect(try log.snapshotSequences(stream: "shop") == [1])
        let error = #expect(throws: EventLogError.self) { try log.latestSnapshot(stream: "shop", atOrBefore: 1) }
        guard case .corruptSnapshot(stream: "shop", sequence: 1, _)? = error else {
            Issue.record("not the snapshot's damage: \(String(describing: error))")
            return
        }
        #expect(try log.verify().problems.contains {
            $0.message == "a snapshot key is 13 bytes, not 12: its size is damaged: readers take it as the snapshot of stream 'shop' at #1, whose record is read from the wrong bytes, so they leave it out"
        })
    }

    @Test("a snapshot key whose size is damaged to 0 breaks LMDB's order, and a seek then passes the stream's first snapshots: refused, not left out")
    func snapshotKeyOutOfOrder() throws {
        let (path, sequences) = try logOfSnapshots("snapshot-order.reactorlog")
        #expect(try EventLog.openReadOnly(at: path).snapshotSequences(stream: "counter") == sequences)
        // The third of the six keys in the snapshots' leaf page: LMDB's search for the stream's first key meets it
        // first, finds it below, and goes right, past the first two.
        try Self.setKeySize(0, ofSnapshot: sequences[2], in: path)
        let log = try EventLog.openReadOnly(at: path)
        // Its record begins with the rest of its key, which sorts between the keys around it: the list is whole, and
        // the snapshot there is damaged (before 2026-12-04, the list and seeks refused the log's snapshots).
        #expect(try log.snapshotSequences(stream: "counter") == sequences)
        #expect(try log.latestSnapshot(stream: "counter", atOrBefore: sequences[3])?.sequence == sequences[3])
        let error = #expect(throws: EventLogError.self) { try log.latestSnapshot(stream: "counter", atOrBefore: sequences[2]) }
        guard case .corruptSnapshot(stream: "counter", sequence: sequences[2], _)? = error else {
            Issue.record("not the snapshot's damage: \(String(describing: error))")
            return
        }
        #expect(try log.verify().problems.contains {
            $0.severity == .error && $0.message.hasPrefix("a snapshot key is 0 bytes, not 12: its size is damaged: readers take it as the snapshot of stream 'counter' at #\(sequences[2])")
        })
        // Where to rebuild from: an earlier snapshot serves, found by reading every key, so time travel and a resume
        // go on (replaying one mutation more where the damaged key's snapshot was).
        #expect(try log.recoveryPoint(stream: "counter", atOrBefore: sequences[3]).sequence == sequences[3])
        #expect(try log.recoveryPoint(stream: "counter", atOrBefore: sequences[2]).sequence == sequences[1])
        #expect(try log.recoveryPoint(stream: "counter", atOrBefore: sequences[1]).sequence == sequences[1])
    }

    /// Before, every open of such a log failed, a writer's too ("The descriptor of stream id 3 is corrupt"): one bad
    /// bit in one stream's descriptor cost every stream of a log attached to a bug report, and an app its recording.
    @Test("a damaged stream descriptor costs only its own stream: the others read, its entries are passed over as its damage, and a writer never gives its id again")
    func damagedDescriptor() throws {
        let path = scratch.file("damaged-descriptor.reactorlog")
        try Self.writeThreeStreams(at: path)
        _ = try LogDamage.flipByte(of: path, database: LogLayout.streamsDatabase, mask: 0x20) { _ in [0, 0, 0, 3] }
        let damage = EventLogError.corruptStream(id: 3, reason: "its checksum does not match its contents")
        do {
            let log = try EventLog.openReadOnly(at: path)
            #expect(try log.streams().map(\.name) == ["a", "b"])
            #expect(try log.damagedStreams() == [damage])
            #expect(try log.readEntries(EntryQuery(stream: "b")).map(\.caseName) == ["opened", "tap", "tap", "tap"])
            // Read plainly, the first entry of stream 3 is damage, named with its descriptor's.
            let stopped = #expect(throws: EventLogError.self) { try log.readEntries() }
            #expect(stopped == .corruptEntry(sequence: 3, reason: "it names stream id 3, whose descriptor is damaged (its checksum does not match its contents)"))
            // Read past damage, each of its entries is passed over with the descriptor's damage; the others are all there.
            var iterator = log.entries()
            var read: [String] = [], passed: [UInt64] = []
            while let entry = try iterator.nextReadable(skipped: { stretch, error in
                #expect(error == damage && stretch.count == 1)
                passed.append(stretch.lowerBound)
            }) { read.append(entry.stream) }
            #expect(read == ["a", "b", "a", "b", "a", "b", "a", "b"] && passed == [3, 6, 9, 12])
            var viewed = 0, undescribed: [UInt64] = []
            try log.forEachEntry(undescribed: { sequence, error in
                #expect(error == damage)
                undescribed.append(sequence)
            }) { _ in viewed += 1 }
            #expect(viewed == 8 && undescribed == passed)
            let report = try log.verify()
            #expect(report.problems.map(\.message) == [
                "the descriptor of stream id 3 is damaged (its checksum does not match its contents): its 4 entries cannot be named, so readers leave them out, with its snapshots; the other streams read on",
            ])
        }
        // Let go of above. A writer opens the log; a stream of the lost name is a new one, under an id never given before.
        let writer = try EventLog.open(at: path)
        let again = try writer.openStream(named: "c", reactorType: "T", schemaFingerprint: "f", initialState: 0)
        #expect(again.info.id == 4 && !again.wasResumed)
        try again.append(.action("tap"))
        try writer.close()
        let after = try EventLog.openReadOnly(at: path)
        #expect(try after.streams().map(\.id) == [1, 2, 4] && after.damagedStreams() == [damage])
        #expect(try after.readEntries(EntryQuery(stream: "c")).map(\.sequence) == [13, 14])
        var kept = 0
        try after.forEachEntry(undescribed: { _, _ in kept += 1 }) { _ in }
        #expect(kept == 4)
    }

    /// Writes a log of streams `a`, `b` and `c` (ids 1, 2, 3) at `path`, three actions each, taken in turn: entries #1…#12,
    /// each stream's every third.
    private static func writeThreeStreams(at path: String) throws {
        let log = try EventLog.open(at: path)
        let streams = try ["a", "b", "c"].map { try log.openStream(named: $0, reactorType: "T", schemaFingerprint: "f", initialState: 0) }
        for _ in 1...3 { for stream in streams { try stream.append(.action("tap")) } }
        try log.close()
    }

    /// Before 2026-12-06 such a record was damage under id 0: each entry of its stream was named on its own (`verify`
    /// gave two lines an entry, `log` a stretch each, `it names stream id 2, which the log does not describe`), and with
    /// the last stream's record wiped a writer gave its id to a new stream, whose name its old entries then took.
    @Test("a stream descriptor whose node a zeroed sector wiped is placed by its neighbours: its stream's entries are passed over as its damage, and a writer never gives its id again", arguments: [UInt32(1), 2, 3])
    func wipedDescriptor(id: UInt32) throws {
        let path = scratch.file("wiped-descriptor-\(id).reactorlog")
        try Self.writeThreeStreams(at: path)
        try LogDamage.zeroNodeInFile(of: path, database: LogLayout.streamsDatabase) { _ in withUnsafeBytes(of: id.bigEndian, Array.init) }
        let damage = EventLogError.corruptStream(id: id, reason: "the key in its place is 0 bytes, not 4, and its record is damaged")
        let others = ["a", "b", "c"].enumerated().filter { $0.offset + 1 != Int(id) }.map(\.element)
        do {
            let log = try EventLog.openReadOnly(at: path)
            #expect(try log.streams().map(\.name) == others)
            #expect(try log.damagedStreams() == [damage])
            var undescribed: [UInt64] = []
            try log.forEachEntry(undescribed: { sequence, error in
                #expect(error == damage)
                undescribed.append(sequence)
            }) { _ in }
            #expect(undescribed == [0, 3, 6, 9].map { UInt64(id) + $0 })
            #expect(try log.verify().problems.map(\.message) == [
                "the descriptor of stream id \(id) is damaged (the key in its place is 0 bytes, not 4, and its record is damaged): its 4 entries cannot be named, so readers leave them out, with its snapshots; the other streams read on",
            ])
        }
        let writer = try EventLog.open(at: path)
        let new = try writer.openStream(named: "d", reactorType: "T", schemaFingerprint: "f", initialState: 0)
        #expect(new.info.id == 4)
        try new.append(.action("tap"))
        try writer.close()
        let after = try EventLog.openReadOnly(at: path)
        #expect(try after.readEntries(EntryQuery(stream: "d")).map(\.sequence) == [13, 14])
        #expect(try after.damagedStreams() == [damage])
    }

    /// Before 2026-12-06 only the one record the reader's copy keeps for the page was damage: the other streams' entries
    /// named ids `the log does not describe`, each a stretch of damage of its own.
    @Test("a leaf page of stream descriptors left out of a reader's copy, the first, a middle one or the last: every id it held is named damaged, no other, its streams' entries passed over as such", arguments: ["first", "middle", "last"])
    func descriptorPageLeftOut(leaf: String) throws {
        let path = scratch.file("descriptor-page-\(leaf).reactorlog")
        do {
            let log = try EventLog.open(at: path)
            // Names long enough that 60 descriptors fill several leaf pages.
            let streams = try (1...60).map {
                try log.openStream(named: "session-\($0)-" + String(repeating: "x", count: 100), reactorType: "T", schemaFingerprint: "f", initialState: 0)
            }
            for stream in streams { try stream.append(.action("tap")) }
            try log.close()
        }
        let leaves = try LogDamage.leafPages(of: path, database: LogLayout.streamsDatabase)
        try #require(leaves.count >= 3)
        try LogDamage.zeroFirstSector(of: path, page: leaf == "first" ? leaves[0] : leaf == "middle" ? leaves[1] : leaves[leaves.count - 1])
        let staging = scratch.file("descriptor-page-\(leaf)-copy")
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        let log = try #require(EventLog.openMended(at: path, copyingInto: staging, leavingOutPages: true)).log
        // The ids past the last record are known from the entries that name them: read them first.
        var passed = Set<UInt32>(), read = 0
        try log.forEachEntry(undescribed: { _, damage in
            if case .corruptStream(let id, _) = damage { passed.insert(id) }
        }) { _ in read += 1 }
        let lost = try log.damagedStreams().compactMap { damage -> UInt32? in
            guard case .corruptStream(let id, _) = damage else { return nil }
            return id
        }
        let kept = try log.streams().map(\.id)
        #expect(lost.count > 1 && Set(kept).isDisjoint(with: lost) && Set(kept).union(lost) == Set(1...60), "\(lost) \(kept)")
        #expect(passed == Set(lost) && read == kept.count * 2)
        let named = try log.verify().problems.filter { $0.message.hasPrefix("the descriptor of stream id ") }
        let missing = leaf == "last" ? "(its record is missing, though the log holds entries of it)" : "(its record is missing, though the log holds stream ids above it)"
        #expect(named.count == lost.count && named.dropFirst().allSatisfy { $0.message.contains(missing) }, "\(named)")
    }

    /// Hostile bytes: a descriptor under the highest key a stream can have made a writer's next stream id overflow (a
    /// trap), and ids far apart would have made a list of billions of the ids between them.
    @Test("descriptors whose ids lie far apart, or at the highest a stream can have: readers read the others at once, a writer is refused a new stream in a sentence", arguments: [false, true])
    func descriptorIDsFarApart(sound: Bool) throws {
        let path = scratch.file("far-apart-\(sound).reactorlog")
        try Self.writeThreeStreams(at: path)
        let far: UInt32 = sound ? 0x7FFF_FFFF : .max
        if sound {
            // A record that reads (its checksum forged to match) under an id two billion past the others, and the one
            // before it wiped: the run between ids 1 and 3 is placed, the two billion ids up to it are not listed.
            let environment = try Environment(path: path)
            let streams = try environment.openDatabase(LogLayout.streamsDatabase)
            let info = StreamInfo(id: far, name: "far", reactorType: "T", schemaFingerprint: "f", createdAt: 1, initialStateCodec: .json, initialState: Data("0".utf8), sequenceFloor: 0)
            try environment.write { txn in try txn.put(streams, key: KeyCoding.stream(far), value: StreamRecord.encode(info)) }
            try LogDamage.zeroNodeInFile(of: path, database: LogLayout.streamsDatabase) { _ in [0, 0, 0, 2] }
        } else {
            // Stream 3's record moved under the highest key: damage there (it records id 3).
            try LogDamage.rekey(of: path, database: LogLayout.streamsDatabase, from: [0, 0, 0, 3], to: [0xFF, 0xFF, 0xFF, 0xFF])
        }
        do {
            let log = try EventLog.openReadOnly(at: path)
            #expect(try log.streams().map(\.name) == (sound ? ["a", "c", "far"] : ["a", "b"]))
            #expect(try log.readEntries(EntryQuery(stream: "a")).count == 4)
        }
        let writer = try EventLog.open(at: path)
        defer { try? writer.close() }
        if sound {
            #expect(try writer.openStream(named: "d", reactorType: "T", schemaFingerprint: "f", initialState: 0).info.id == far + 1)
        } else {
            let refused = #expect(throws: EventLogError.self) { try writer.openStream(named: "d", reactorType: "T", schemaFingerprint: "f", initialState: 0) }
            #expect(refused?.description.contains("it takes the highest id a stream can have, so no new stream can be given one") == true, "\(String(describing: refused))")
        }
    }

    @Test("a snapshot whose record is damaged: a state is rebuilt from the snapshot before it, the damage kept as passed over, while latestSnapshot names it")
    func damagedSnapshotRecord() throws {
        let (path, sequences) = try logOfSnapshots("snapshot-record.reactorlog")
        // A bit of the record's timestamp (bytes 24 to 31 of the record, which follows the 12-byte key).
        try Self.damageSnapshot(sequences[2], in: path) { bytes, key in bytes[key + 12 + 24] ^= 0x01 }
        let log = try EventLog.openReadOnly(at: path)
        let error = #expect(throws: EventLogError.self) { try log.latestSnapshot(stream: "counter", atOrBefore: sequences[2]) }
        #expect(error == .corruptSnapshot(stream: "counter", sequence: sequences[2], reason: "its checksum does not match its contents"))
        // A rebuild that does not pass the damage notes none; one that does keeps it, once.
        #expect(try log.recoveryPoint(stream: "counter", atOrBefore: sequences[1]).sequence == sequences[1])
        #expect(log.passedOverSnapshotDamage.isEmpty)
        #expect(try log.recoveryPoint(stream: "counter", atOrBefore: sequences[2]).sequence == sequences[1])
        #expect(try log.recoveryPoint(stream: "counter", atOrBefore: sequences[3]).sequence == sequences[3])
        #expect(try log.recoveryPoint(stream: "counter", atOrBefore: sequences[4]).sequence == sequences[4])
        #expect(log.passedOverSnapshotDamage == [error])
    }

    @Test("with a snapshot's key or record damaged, no earlier snapshot serves to rebuild a state when entries on the way are gone: a trim's, or a gap's", arguments: [true, false], [true, false])
    func damagedSnapshotPastRemoval(trim: Bool, damagedKey: Bool) throws {
        let (path, sequences) = try logOfSnapshots("removed-\(trim)-\(damagedKey).reactorlog") { log, sequences in
            // A trim keeps the snapshot at #3 as the stream's base; a gap removes #3 and #4 and keeps #4's snapshot.
            if trim { try log.trim(before: sequences[3]) } else { try log.removeEntries(sequences[2]..<sequences[4]) }
        }
        let hidden = trim ? sequences[2] : sequences[3]
        if damagedKey {
            try Self.setKeySize(0, ofSnapshot: hidden, in: path)
        } else {
            try Self.damageSnapshot(hidden, in: path) { bytes, key in bytes[key + 12 + 24] ^= 0x01 }
        }
        let log = try EventLog.openReadOnly(at: path)
        let error = #expect(throws: EventLogError.self) { try log.recoveryPoint(stream: "counter", atOrBefore: hidden) }
        // A key whose size is damaged is placed by its bytes, so the damage named is its record's either way.
        #expect(error == .corruptSnapshot(stream: "counter", sequence: hidden, reason: "its checksum does not match its contents"))
        // Past the damage, the snapshot after it serves as ever.
        #expect(try log.recoveryPoint(stream: "counter", atOrBefore: sequences[4]).sequence == sequences[4])
    }

    /// A closed log whose stream `counter` has six mutations, each with a snapshot, changed by `change`, and then copied
    /// (compacted) so that each key is in the file once, on a page LMDB reads: the path of the copy and the numbers.
    func logOfSnapshots(_ name: String, _ change: (EventLog, [UInt64]) throws -> Void = { _, _ in }) throws -> (String, [UInt64]) {
        let log = try EventLog.open(at: scratch.file("written-" + name))
        let stream = try log.counterStream()
        var sequences: [UInt64] = []
        for i in 1...6 {
            sequences.append(try stream.append(.mutation("m", i)))
            try stream.writeSnapshot(i, at: sequences[i - 1])
        }
        try log.flush()
        try change(log, sequences)
        let path = scratch.file(name)
        try log.copy(to: path)
        try log.close()
        return (path, sequences)
    }

    /// Sets the key size in the header of the leaf node holding the key of stream 1's snapshot at `sequence`, in the
    /// log at `log`, as one damaged byte would: LMDB's 8-byte node header (the value's size, the flags, the key's
    /// size, little-endian) comes right before the key.
    static func setKeySize(_ size: UInt16, ofSnapshot sequence: UInt64, in log: String) throws {
        try damageSnapshot(sequence, in: log) { bytes, key in
            bytes[key - 2] = UInt8(size & 0xFF)
            bytes[key - 1] = UInt8(size >> 8)
        }
    }

    /// Changes the bytes of the log at `log` with `edit`, given the offset of the key of stream 1's snapshot at
    /// `sequence` in its leaf node: the record follows the key.
    static func damageSnapshot(_ sequence: UInt64, in log: String, _ edit: (inout [UInt8], Int) -> Void) throws {
        let path = log + "/data.mdb"
        let key: [UInt8] = [0, 0, 0, 1] + withUnsafeBytes(of: sequence.bigEndian) { Array($0) }
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        // A gap's key can be the same; its record, 24 bytes, is shorter than a snapshot's header.
        let nodes = leafNodes(withKey: key, in: bytes).filter { $0.valueSize >= SnapshotRecord.headerSize }.map(\.key)
        try #require(nodes.count == 1, "one node holds the key")
        edit(&bytes, nodes[0])
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test("a pin record whose bytes were changed on disk reads as a damaged pin of the window its key gives; verify names it; unpin removes it")
    func flippedPin() throws {
        let path = scratch.file("pin.reactorlog")
        do {
            let log = try EventLog.open(at: path)
            try log.counterStream().append(.action("a"))
            try log.pin(1...2, reason: "PIN-TO-FLIP, ticket 9")
            try log.close()
        }
        #expect(try EventLog.openReadOnly(at: path).verify().isHealthy)
        try CorruptFile.flipByte(in: path + "/data.mdb", after: Array("PIN-TO-FLIP".utf8))
        do {
            let reader = try EventLog.openReadOnly(at: path)
            let report = try reader.verify()
            #expect(report.problems.map(\.description).contains {
                $0.contains("a pin record is damaged (its checksum, key or bounds do not match): its reason is lost, and retention keeps #1…#2, every window it may have meant, until it is unpinned")
            }, "\(report.problems)")
            #expect(!report.isHealthy)
            #expect(try reader.pins() == [LogPin(damagedWindow: 1...2)])
        }
        do {
            let log = try EventLog.open(at: path)
            try log.unpin(try #require(try log.pins().first))
            #expect(try log.pins().isEmpty)
            try log.close()
        }
        #expect(try EventLog.openReadOnly(at: path).verify().isHealthy)
    }

    @Test("a pin record under a damaged key stands for both windows, its key's and its own, and unpin removes it")
    func rekeyedPin() throws {
        let path = scratch.file("rekeyed-pin.reactorlog")
        do {
            let log = try EventLog.open(at: path)
            try log.counterStream().append(.action("a"))
            try log.pin(10...20, reason: "ticket 9")
            try log.close()
        }
        try LogDamage.rekey(of: path, database: LogLayout.pinsDatabase, from: PinRecord.key(10...20), to: PinRecord.key(30...40))
        do {
            let reader = try EventLog.openReadOnly(at: path)
            #expect(try reader.pins() == [LogPin(damagedWindow: 10...40)])
            #expect(try reader.verify().problems.map(\.description).contains { $0.contains("retention keeps #10…#40") })
        }
        do {
            let log = try EventLog.open(at: path)
            try log.unpin(try #require(try log.pins().first))
            #expect(try log.pins().isEmpty, "the record is found under its damaged key")
            try log.close()
        }
    }

    @Test("hostile gap records, one ending its gap at the last number there is and a damaged one after it, read without trapping")
    func hostileGaps() throws {
        let path = scratch.file("hostile-gaps.reactorlog")
        do {
            let log = try EventLog.open(at: path)
            try log.counterStream().append(.action("a"))
            try log.close()
        }
        do {
            // Stream 1: a sound record of #5…#(2^64 − 1) under the key of #10, as a bad bit in a key leaves one, then
            // a record under the key of #20 whose checksum fails.
            let environment = try Environment(path: path)
            let gaps = try environment.openDatabase(LogLayout.gapsDatabase)
            try environment.write { txn in
                try txn.put(gaps, key: KeyCoding.streamSequence(1, 10), value: GapRecord.encode((1, 5...UInt64.max)))
                try txn.put(gaps, key: KeyCoding.streamSequence(1, 20), value: [UInt8](repeating: 7, count: GapRecord.size))
            }
        }
        #expect(try EventLog.openReadOnly(at: path).gaps(stream: "counter").map(\.removed) == [5...UInt64.max, 20...20])
    }

    @Test("a damaged pin record stands for every window it may have meant: its key's, its own bounds' when its checksum holds, every number when neither reads")
    func damagedPinWindows() {
        let pin = LogPin(range: 10...20, reason: "ticket 9", createdAt: 5)
        let record = PinRecord.encode(pin)
        var broken = record
        broken[record.count - 1] ^= 0x01
        func read(key: [UInt8], _ record: [UInt8]) -> LogPin {
            key.withUnsafeBytes { key in record.withUnsafeBytes { PinRecord.decode(key: key, record: $0) } }
        }
        #expect(read(key: PinRecord.key(10...20), record) == pin)
        #expect(read(key: PinRecord.key(10...20), broken) == LogPin(damagedWindow: 10...20), "a record failing its checksum: its key's window")
        #expect(read(key: PinRecord.key(30...40), record) == LogPin(damagedWindow: 10...40), "an intact record under another key: both windows")
        #expect(read(key: [1, 2, 3], record) == LogPin(damagedWindow: 10...20), "an intact record under a key too short")
        let backwards = withUnsafeBytes(of: (UInt64(40).bigEndian, UInt64(30).bigEndian)) { Array($0) }
        #expect(read(key: backwards, broken) == LogPin(damagedWindow: 1...UInt64.max), "neither reads: every number")
    }

    @Test("a block whose bytes were changed on disk fails its checksum, naming its first entry; the blocks around it read, and a range before it never reads it")
    func flippedByte() throws {
        let path = scratch.file("flip.reactorlog")
        do {
            let log = try EventLog.open(at: path)
            let stream = try log.counterStream()
            try stream.append(.action("before"))
            // Larger than a block: a block of its own, keyed 3.
            let big = Data("PAYLOAD-TO-FLIP".utf8) + Data(repeating: 0x20, count: EntryBlock.capacity)
            try stream.append(EntryDraft(kind: .mutation, caseName: "target", payload: big))
            try stream.append(.action("after"))
            try log.close()
        }
        try CorruptFile.flipByte(in: path + "/data.mdb", after: Array("PAYLOAD-TO-FLIP".utf8))
        let log = try EventLog.openReadOnly(at: path)
        let error = #expect(throws: EventLogError.self) { try log.entry(at: 3) }
        #expect(error == .corruptEntry(sequence: 3, reason: "its block's checksum does not match its contents (the block of entries from it)"))
        expectOneLine(error)
        #expect(try log.entry(at: 2)?.caseName == "before")
        #expect(try log.entry(at: 4)?.caseName == "after")
        let report = try log.verify()
        #expect(!report.isHealthy)
        #expect(report.firstError?.sequence == 3)
        #expect(!report.problems.contains { $0.message.contains("missing before it") }, "the entries after a damaged block are no gap")
        #expect(report.entries == 3, "the entries of the damaged block are not counted as checked")
        // A range that ends before the damaged block does not read it, in order or through the stream's index.
        for stream in [nil, "counter"] as [String?] {
            #expect(try log.readEntries(EntryQuery(through: 2, stream: stream)).map(\.caseName).last == "before")
            var viewed = 0
            try log.forEachEntry(EntryQuery(through: 2, stream: stream)) { _ in viewed += 1 }
            #expect(viewed == 2)
            #expect(throws: EventLogError.self) { try log.readEntries(EntryQuery(through: 3, stream: stream)) }
        }
    }

    @Test("a second writer, in this process or another, is refused; readers are not")
    func oneWriter() throws {
        let path = scratch.file("busy.reactorlog")
        let first = try EventLog.open(at: path)
        let second = #expect(throws: EventLogError.self) { try EventLog.open(at: path) }
        #expect(second?.description.contains("another EventLog in this process") == true)
        let reader = try EventLog.openReadOnly(at: path)
        #expect(reader.isReadOnly)
        #expect(throws: EventLogError.readOnly(path: path)) { try reader.flush() }
        try first.close()
        _ = try EventLog.open(at: path)
    }

    @Test("a writer in another process holds the log: opening it for writing names that process")
    func writerInAnotherProcess() throws {
        let path = scratch.file("child.reactorlog")
        let child = try CrashWriterProcess(log: path, durability: .grouped, run: 1)
        defer { child.kill() }
        _ = try child.waitForAcks(1)
        let error = #expect(throws: EventLogError.self) { try EventLog.open(at: path) }
        #expect(error?.description.contains("by process \(child.process.pid)") == true)
    }

    @Test("a log's files are private to their owner")
    func fileModes() throws {
        let path = scratch.file("private.reactorlog")
        try EventLog.open(at: path).close()
        for (file, mode) in [("", 0o700), ("/data.mdb", 0o600), ("/lock.mdb", 0o600), ("/writer.lock", 0o600)] {
            let attributes = try FileManager.default.attributesOfItem(atPath: path + file)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == mode, "\(file)")
        }
    }
}

/// docs/FIELD.md's opening of an app's log, verbatim: a log whose file is damaged is set aside, kept for a bug
/// report, and a new one opened at the path.
func openAppLog(at path: String, configuration: EventLogConfiguration) throws -> EventLog {
    do {
        return try EventLog.open(at: path, configuration: configuration)
    } catch .damagedFile {
        let aside = path + ".damaged-\(Int(Date().timeIntervalSince1970))"   // keep it for a bug report
        try FileManager.default.moveItem(atPath: path, toPath: aside)
        return try EventLog.open(at: path, configuration: configuration)
    }
}

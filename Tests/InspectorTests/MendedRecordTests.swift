import EventLogKit
import Foundation
import TestSupport
import Testing

/// A log that LMDB refuses for a record's node header a bad bit changed, read whole from a copy with the header mended.
/// Before 2026-12-05 one such bit on a page both commits share (the `meta` database's, say) left every command nothing
/// to read ("Nothing was read; restore the log from a copy"), though every record was whole in the file.
/// Five minutes: a branch test records a 2,000-action demo and reads it whole four times (the inspector and the Python
/// reader, on the sound log and the damaged one), 23 seconds alone and 84 among the whole suite's tests on a slow
/// two-core host (2026-12-07), where the page sweep of `LeftOutPageTests` passed two minutes.
@Suite("Reading a copy with a record's header mended", .serialized, .timeLimit(.minutes(5)))
struct MendedRecordTests {
    let scratch = ScratchDirectory()

    @Test(
        "a flag a bad bit set on a metadata or an entries record, or a value's size sent past its page: every command reads the log whole, says so and exits 5; verify names it, compact saves it; the Python reader reads it too",
        arguments: [
            ("meta", UInt16(0x01), UInt32(0), "flags a record as stored on overflow pages, though its"),
            ("entries", 0x02, 0, "flags a record as a named database's, outside the main database"),
            ("entries", 0, 1 << 20, "gives a record's value as "),
        ])
    func flagSet(database: String, mask: UInt16, sizeMask: UInt32, wrong: String) async throws {
        let demo = try await Tool.demoLog(in: scratch)
        let log = scratch.file("\(database)-\(mask)-\(sizeMask).reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        if mask != 0 {
            try LogDamage.flipRecordFlagsInFile(of: log, database: database, mask: mask) { $0[$0.count / 2] }
        } else {
            try LogDamage.flipValueSizeInFile(of: log, database: database, mask: sizeMask) { $0[$0.count / 2] }
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: log + "/data.mdb"))
        let listed = try await Tool.run(["log", log, "--json"]), sound = try await Tool.run(["log", demo, "--json"])
        #expect(listed.status == 5 && listed.lines == sound.lines, "\(listed.error)")
        let said = "reactorlog: \(log) was read whole, from a copy with that record mended; LMDB refuses the log as it is: its data.mdb \(wrong)"
        #expect(listed.error.hasPrefix(said) && listed.error.contains(", in database '\(database)')"), "\(listed.error)")
        #expect(listed.error.hasSuffix(". `reactorlog compact` copies what was read into a sound log.\n") && listed.error.filter { $0 == "\n" }.count == 1)
        let verified = try await Tool.run(["verify", log])
        #expect(verified.status == 1 && verified.lines.first?.hasPrefix("error: LMDB refuses the log as it is (its data.mdb \(wrong)") == true, "\(verified.output)")
        #expect(verified.lines.first?.contains("): what follows is the log read whole from a copy with that record mended") == true)
        let saved = scratch.file("\(database)-\(mask)-\(sizeMask)-saved.reactorlog")
        #expect(try await Tool.run(["compact", log, saved]).status == 5)
        #expect(try await Tool.run(["verify", saved]).status == 0)
        #expect(try await Tool.run(["log", saved, "--json"]).lines == sound.lines)
        // The FORMAT.md reader in Python mends the same record, reads the log whole, and says so.
        let python = try await Tool.python("read-log.py", [log]), pythonSound = try await Tool.python("read-log.py", [demo])
        #expect(python.status == 1 && python.output == pythonSound.output, "\(python.error)")
        #expect(python.error.hasPrefix("\(log) was read whole, from a copy with that record mended; LMDB refuses the log as it is: its data.mdb \(wrong)"), "\(python.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: log + "/data.mdb")) == before)
    }
}

extension MendedRecordTests {
    /// LMDB refuses to open a named database whose record in the main database lacks the flag that marks it one, so
    /// before 2026-12-05 every command read the commit before the last (what the last commit wrote missing), though the
    /// record's 48 bytes still describe the database's tree.
    @Test(
        "the flag a bad bit cleared from the main database's record of a named database: the log read whole, exit 5; the Python reader too",
        arguments: ["entries", "gaps"])
    func databaseFlagCleared(database: String) async throws {
        let demo = try await Tool.demoLog(in: scratch)
        let log = scratch.file("unflagged-\(database).reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        try LogDamage.flipRecordFlagsInFile(of: log, database: nil, mask: 0x02) { _ in Array(database.utf8) }
        let listed = try await Tool.run(["log", log, "--json"]), sound = try await Tool.run(["log", demo, "--json"])
        #expect(listed.status == 5 && listed.lines == sound.lines, "\(listed.error)")
        let said = "reactorlog: \(log) was read whole, from a copy with that record mended; LMDB refuses the log as it is: its data.mdb marks the main database's record of database '\(database)' as a plain value, though its 48 bytes describe that database's tree (node "
        #expect(listed.error.hasPrefix(said) && listed.error.contains(", in the main database). `reactorlog compact`"), "\(listed.error)")
        let python = try await Tool.python("read-log.py", [log]), pythonSound = try await Tool.python("read-log.py", [demo])
        #expect(python.status == 1 && python.output == pythonSound.output, "\(python.error)")
        #expect(python.error.hasPrefix(String(said.dropFirst("reactorlog: ".count))), "\(python.error)")
    }

    /// A refused log is walked in place for records to mend before anything is copied: a `data.mdb` that is a pipe would
    /// make that walk's open wait for a writer that never comes.
    @Test("a log whose data.mdb is a pipe is refused at once, its pipe never opened for a walk")
    func pipeIsNotWalked() async throws {
        let log = scratch.file("pipe.reactorlog")
        try FileManager.default.createDirectory(atPath: log, withIntermediateDirectories: false)
        #expect(mkfifo(log + "/data.mdb", 0o600) == 0)
        #expect(FileManager.default.createFile(atPath: log + "/writer.lock", contents: nil))
        let refused = try await Tool.run(["info", log])
        #expect(refused.status == 3 && refused.error == "reactorlog: \(log) is not a ReactorLog log: its data.mdb is a pipe, not a file. Point at a directory written by ReactorLog.\n", "\(refused.error)")
    }
}

extension MendedRecordTests {
    /// The page that heads the `entries` database's tree in the last commit of the data file `bytes`: the meta page of
    /// the higher transaction id (at byte 144 of either) gives the main database's root (at byte 128), whose record of
    /// `entries` (its key, then LMDB's 48 bytes of a database) gives the root at byte 40 of those.
    private func entriesRoot(in bytes: [UInt8]) throws -> Int {
        func number(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        let meta = number(144) >= number(4096 + 144) ? 0 : 4096
        let main = number(meta + 128) * 4096, key = Array("entries".utf8)
        let at = try #require((main + 16..<main + 4096 - key.count).first { bytes[$0..<$0 + key.count].elementsEqual(key) && bytes[$0 - 2] == key.count })
        return number(at + key.count + 40)
    }

    /// Before 2026-12-05 a bad bit in the page number a branch node gives its child made every reader read the log as it
    /// stood one commit before its last (the child is another page, read twice, or none): the page the number is one bit
    /// from, which nothing else reaches and whose keys lie where the branch's put the child, is the child.
    @Test("a branch node's child page number a bad bit changed: every command reads the log whole, exit 5; the Python reader too", arguments: [4, 30])
    func childPageChanged(bit: Int) async throws {
        let sound = scratch.file("branched-\(bit).reactorlog"), log = scratch.file("child-\(bit).reactorlog")
        #expect(try await Tool.run(["demo", "--out", sound, "--actions", "2000"]).status == 0)
        try FileManager.default.copyItem(atPath: sound, toPath: log)
        let file = URL(fileURLWithPath: log + "/data.mdb")
        var bytes = [UInt8](try Data(contentsOf: file))
        let root = try entriesRoot(in: bytes)
        try #require(bytes[root * 4096 + 10] == 0x01, "the entries tree is a single leaf")
        let node = root * 4096 + (Int(bytes[root * 4096 + 18]) | Int(bytes[root * 4096 + 19]) << 8)
        let child = (0..<6).reduce(0) { $0 | Int(bytes[node + $1]) << (8 * $1) }
        bytes[node + bit / 8] ^= 1 << UInt8(bit % 8)
        try Data(bytes).write(to: file)
        let listed = try await Tool.run(["log", log, "--json"]), soundList = try await Tool.run(["log", sound, "--json"])
        #expect(listed.status == 5 && listed.lines == soundList.lines, "\(listed.error)")
        let said = "was read whole, from a copy with that record mended; LMDB refuses the log as it is: its data.mdb gives a branch node's child as page \(child ^ 1 << bit), though its child is page \(child), one bit from it, which nothing else reaches (node 1 of page \(root), in database 'entries')"
        #expect(listed.error == "reactorlog: \(log) \(said). `reactorlog compact` copies what was read into a sound log.\n", "\(listed.error)")
        let python = try await Tool.python("read-log.py", [log]), pythonSound = try await Tool.python("read-log.py", [sound])
        #expect(python.status == 1 && python.output == pythonSound.output && python.error == "\(log) \(said)\n", "\(python.error)")
    }
}

extension MendedRecordTests {
    /// A log whose entries hold a snapshot of 12,000 bytes and an action of 10,000, each a record on overflow pages,
    /// between small entries; closed.
    private func bigRecords(_ name: String) async throws -> (path: String, action: UInt64) {
        let path = scratch.file(name)
        let log = try EventLog.open(at: path)
        let stream = try log.openStream(named: "notes", reactorType: "Notes", schemaFingerprint: "v1", initialState: "")
        try stream.append(.action, "short", caseName: "write")
        let action = try stream.append(.action, String(repeating: "long note ", count: 1_000), caseName: "write")
        let step = try stream.append(.mutation, "short", caseName: "append", cause: action)
        try stream.writeSnapshot(String(repeating: "a state ", count: 1_500), at: step)
        try stream.append(.action, "after", caseName: "write")
        try stream.close()
        try await log.flush()
        try log.close()
        return (path, action)
    }

    /// Before 2026-12-06 a bad bit that cleared a big record's flag (0x01) left LMDB reading its overflow run's page
    /// number and the bytes after it as the value: the entry was read as damaged, its payload lost.
    @Test("a big entry's flag a bad bit cleared: every command reads the log whole, exit 5; the Python reader too")
    func bigDataFlagCleared() async throws {
        let (sound, action) = try await bigRecords("big.reactorlog")
        let log = scratch.file("big-unflagged.reactorlog")
        try FileManager.default.copyItem(atPath: sound, toPath: log)
        let key = withUnsafeBytes(of: action.bigEndian, Array.init)
        try LogDamage.flipRecordFlagsInFile(of: log, mask: 0x01) { keys in keys.contains(key) ? key : [] }
        let listed = try await Tool.run(["log", log, "--json"]), whole = try await Tool.run(["log", sound, "--json"])
        #expect(whole.status == 0 && whole.output.contains(String(repeating: "long note ", count: 1_000)))
        #expect(listed.status == 5 && listed.lines == whole.lines, "\(listed.error)")
        let said = "\(log) was read whole, from a copy with that record mended; LMDB refuses the log as it is: its data.mdb marks a record as held in its page, though its "
        #expect(listed.error.hasPrefix("reactorlog: " + said) && listed.error.contains(" overflow pages from page ") && listed.error.contains(", in database 'entries')"), "\(listed.error)")
        let python = try await Tool.python("read-log.py", [log]), pythonSound = try await Tool.python("read-log.py", [sound])
        #expect(python.status == 1 && python.output == pythonSound.output, "\(python.error)")
        #expect(python.error.hasPrefix(said), "\(python.error)")
    }
}

import EventLogKit
import Foundation
import TestSupport
import Testing

/// A log that LMDB refuses for a record's node header a bad bit changed, read whole from a copy with the header mended.
/// Before session 84 one such bit on a page both commits share (the `meta` database's, say) left every command nothing
/// to read ("Nothing was read; restore the log from a copy"), though every record was whole in the file.
@Suite("Reading a copy with a record's header mended", .serialized, .timeLimit(.minutes(2)))
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
    /// before session 85 every command read the commit before the last (what the last commit wrote missing), though the
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

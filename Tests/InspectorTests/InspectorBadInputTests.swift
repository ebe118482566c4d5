@testable import EventLogKit
import Foundation
import LMDB
import TestSupport
import Testing

/// Every bad input: one line on standard error, a documented exit code, no crash, and nothing written.
@Suite("reactorlog bad input", .serialized, .timeLimit(.minutes(2)))
struct InspectorBadInputTests {
    let scratch = ScratchDirectory()
    let demo: String

    init() async throws {
        demo = try await Tool.demoLog(in: scratch)
    }

    /// Runs the command and checks the failure's shape: the exit code, and exactly one line on standard error.
    @discardableResult
    func fails(_ arguments: [String], exit: Int32, saying text: String) async throws -> Tool.Result {
        let result = try await Tool.run(arguments)
        #expect(result.status == exit, "\(arguments): \(result.error)")
        #expect(result.error.hasSuffix("\n") && result.error.dropLast().contains("\n") == false, "\(arguments): \(result.error)")
        #expect(result.error.contains(text), "\(arguments): \(result.error)")
        return result
    }

    @Test("a stream descriptor under a key of the wrong length is read as its record says: every command reads on, verify names it", arguments: [3, 5])
    func streamKeyOfWrongLength(length: Int) async throws {
        let log = scratch.file("stream-key-\(length).reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        let key: [UInt8] = [0, 0, 0, 2]
        try LogDamage.rekey(of: log, database: "streams", from: key, to: Array((key + [0]).prefix(length)))
        for command in [["log"], ["export"], ["state", "--stream", "todo", "--at", "55"], ["blame", "--stream", "todo", "items"]] {
            let damaged = try await Tool.run([command[0], log] + command.dropFirst()), sound = try await Tool.run([command[0], demo] + command.dropFirst())
            #expect(damaged.status == 0 && damaged.output == sound.output, "\(command): \(damaged.error)")
        }
        let info = try await Tool.run(["info", log])
        #expect(info.status == 0 && info.output.contains("todo     TodoReactor"), "\(info.output)\(info.error)")
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1 && verify.output.contains(
            "a stream descriptor's key is \(length) bytes, not 4: readers take it as its record says, the descriptor of stream 'todo' (id 2)"
        ), "\(verify.output)")
        // A writer opens it, and a descriptor it writes under the id's own key is the one read from then on.
        let writer = try EventLog.open(at: log)
        _ = try writer.trim(before: 52)
        try writer.close()
        #expect(try EventLog.openReadOnly(at: log).streams().first { $0.name == "todo" }?.sequenceFloor ?? 0 > 0)
        let after = try await Tool.run(["verify", log])
        #expect(after.output.contains("readers take the descriptor under id 2's own key"), "\(after.output)")
    }

    /// Before, every command refused such a log, `verify` too, telling the user to run `verify`.
    @Test("a damaged stream descriptor: the other streams are listed, shown, verified and exported whole, its entries left out and counted (exit 5)")
    func damagedDescriptor() async throws {
        let log = scratch.file("damaged-descriptor.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        _ = try LogDamage.flipByte(of: log, database: "streams", mask: 0x40) { _ in [0, 0, 0, 2] }
        let todo = try await Tool.run(["log", demo, "--stream", "todo"]).lines.count
        let lost = "\(todo) entries of stream id 2"
        let listed = try await Tool.run(["log", log]), sound = try await Tool.run(["log", demo])
        #expect(listed.status == 5 && listed.error.contains("\(lost), whose descriptor is damaged, were left out, the rest listed: The descriptor of stream id 2 is corrupt"), "\(listed.error)")
        #expect(listed.lines == sound.lines.filter { !$0.contains(" todo ") })
        let info = try await Tool.run(["info", log])
        #expect(info.status == 5 && info.error.contains("A stream whose descriptor is damaged was left out, the rest shown"), "\(info.error)")
        #expect(info.lines.contains { $0.hasPrefix("search ") } && info.lines.contains { $0.hasPrefix("counter ") } && !info.lines.contains { $0.hasPrefix("todo ") })
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1 && verify.output.contains(
            "the descriptor of stream id 2 is damaged (its checksum does not match its contents): its \(todo) entries cannot be named"
        ), "\(verify.output)\(verify.error)")
        // A state of another stream is as ever; the damaged one's name is unknown, and the refusal says why.
        let state = try await Tool.run(["state", log, "--stream", "search", "--at", "10"])
        let soundState = try await Tool.run(["state", demo, "--stream", "search", "--at", "10"])
        #expect(state.status == 0 && state.output == soundState.output)
        try await fails(["state", log, "--stream", "todo", "--at", "40"], exit: 5, saying: "A stream's descriptor is damaged, so its name cannot be read")
        // The export holds the other streams whole, and imports to a log that lists just what the damaged one does.
        let export = try await Tool.run(["export", log]), whole = try await Tool.run(["export", demo])
        #expect(export.status == 5 && export.error.contains("\(lost), whose descriptor is damaged, were left out, the rest written"), "\(export.error)")
        let entryLines = { (result: Tool.Result) in result.lines.filter { $0.hasPrefix("{\"entry\"") } }
        #expect(entryLines(export) == entryLines(whole).filter { !$0.contains("\"stream\":\"todo\"") } && !entryLines(export).isEmpty)
        let exported = scratch.file("damaged-descriptor.jsonl"), imported = scratch.file("damaged-descriptor-imported.reactorlog")
        try export.output.write(toFile: exported, atomically: true, encoding: .utf8)
        #expect(try await Tool.run(["import", exported, imported]).status == 0)
        let reread = try await Tool.run(["log", imported])
        #expect(reread.status == 0 && reread.lines == listed.lines)
        // A trim removes nothing of the stream it cannot name, and says so.
        let trim = try await Tool.run(["trim", log, "--before", "60"])
        #expect(trim.status == 0 && trim.output.contains("stream id 2: kept whole (its descriptor is damaged"), "\(trim.output)\(trim.error)")
        let after = try await Tool.run(["log", log])
        #expect(after.error.contains("\(lost), whose descriptor is damaged, were left out"), "\(after.error)")
    }

    /// Before 2026-12-06 each wiped descriptor was damage under id 0, and each entry of its stream a stretch of its own:
    /// `log` ended `#34 was left out (and 39 more stretches)`, `verify` gave two lines an entry.
    @Test("two stream descriptors whose nodes a zeroed sector wiped: named by the ids their places give, their entries counted in one clause")
    func wipedDescriptors() async throws {
        let log = scratch.file("wiped-descriptors.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        for id: UInt8 in [2, 3] { try LogDamage.zeroNodeInFile(of: log, database: "streams") { _ in [0, 0, 0, id] } }
        let (todo, counter) = (try await Tool.run(["log", demo, "--stream", "todo"]).lines.count, try await Tool.run(["log", demo, "--stream", "counter"]).lines.count)
        let lost = "\(todo + counter) entries of 2 streams whose descriptors are damaged (ids 2…3) were left out"
        let damage = "The descriptor of stream id 2 is corrupt: the key in its place is 0 bytes, not 4, and its record is damaged."
        let listed = try await Tool.run(["log", log]), sound = try await Tool.run(["log", demo])
        #expect(listed.status == 5 && listed.error.hasPrefix("reactorlog: \(lost), the rest listed: \(damage)"), "\(listed.error)")
        // The stream column is as wide as the widest name listed.
        let words = { (lines: [String]) in lines.map { $0.split(separator: " ") } }
        #expect(words(listed.lines) == words(sound.lines.filter { $0.contains(" search ") }) && listed.lines.count == 33)
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1 && verify.lines.filter { $0.hasPrefix("error: ") } == [todo, counter].enumerated().map { offset, count in
            "error: the descriptor of stream id \(offset + 2) is damaged (the key in its place is 0 bytes, not 4, and its record is damaged): its \(count) entries cannot be named, so readers leave them out, with its snapshots; the other streams read on"
        }, "\(verify.output)")
        let export = try await Tool.run(["export", log])
        #expect(export.status == 5 && export.error.hasPrefix("reactorlog: \(lost), the rest written: \(damage)"), "\(export.error)")
    }

    /// Before, export, pack and blame of the whole log failed on it, and a state before the next snapshot named
    /// "entries that cannot be read".
    ///
    /// A key size damaged in the file (its record then read from the wrong bytes) is the same loss: before 2026-12-04
    /// it made state, blame, timeline and bisect of the stream stop at "the log's metadata is corrupt".
    @Test(
        "a trimmed stream's base snapshot whose record is damaged, or whose key size is: export and pack start the stream at its next snapshot and name what they left out; blame and state name the unknown stretch",
        arguments: [nil, UInt8(0x01), 0x08])
    func damagedBase(keySize: UInt8?) async throws {
        let sound = scratch.file("trimmed-base-\(String(describing: keySize)).reactorlog"), log = scratch.file("damaged-base-\(String(describing: keySize)).reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: sound)
        #expect(try await Tool.run(["trim", sound, "--before", "30"]).output.contains("search: 27 removed; replays from the snapshot at #27"))
        try FileManager.default.copyItem(atPath: sound, toPath: log)
        let base = [0, 0, 0, 1] + withUnsafeBytes(of: UInt64(27).bigEndian) { Array($0) }
        if let keySize {
            // 12 bytes grown to 13, or shrunk to 4.
            try LogDamage.damageKeySizeInFile(of: log, database: "snapshots", mask: keySize) { _ in base }
        } else {
            _ = try LogDamage.flipByte(of: log, database: "snapshots", mask: 0x40) { _ in base }
        }
        let export = try await Tool.run(["export", log]), whole = try await Tool.run(["export", sound])
        #expect(export.status == 5 && export.error.contains(
            "The entries of 'search' up to #33 were left out, the snapshot a trim left for them damaged, the rest written: The snapshot of stream 'search' at #27 is corrupt"
        ), "\(export.error)")
        let entries = { (result: Tool.Result) in result.lines.filter { $0.hasPrefix("{\"entry\"") } }
        #expect(entries(export) == entries(whole).filter { !$0.contains("\"stream\":\"search\"") } && !entries(export).isEmpty)
        let exported = scratch.file("damaged-base-\(String(describing: keySize)).jsonl"), imported = scratch.file("damaged-base-imported-\(String(describing: keySize)).reactorlog")
        try export.output.write(toFile: exported, atomically: true, encoding: .utf8)
        #expect(try await Tool.run(["import", exported, imported]).status == 0)
        #expect(try await Tool.run(["verify", imported]).status == 0)
        let pack = try await Tool.run(["pack", log, "--out", scratch.file("damaged-base-\(String(describing: keySize)).pack")])
        #expect(pack.status == 5 && pack.output.contains("'search' (from its state after #33)"), "\(pack.output)\(pack.error)")
        // States after the base and before the next snapshot are unknown, and said to be; from it on, as ever.
        try await fails(["state", log, "--stream", "search", "--at", "30"], exit: 5, saying: "rebuilt from the snapshot a trim left as the stream's base, which cannot be read. The snapshot of stream 'search' at #27 is corrupt: its checksum does not match its contents. Pick a step from #33 on, rebuilt from a snapshot after the damage.")
        let blame = try await Tool.run(["blame", log, "--stream", "search", "query"])
        #expect(blame.status == 5 && blame.output.contains("#28…#33  not readable  ? → \"rx\""), "\(blame.output)\(blame.error)")
        let timeline = try await Tool.run(["timeline", log, "--stream", "search", "--out", scratch.file("damaged-base-\(String(describing: keySize)).html")])
        #expect(timeline.status == 5 && timeline.output.hasPrefix("Wrote"), "\(timeline.output)\(timeline.error)")
        // verify sums up what the damaged record costs: the states up to the next snapshot, as `state` says.
        guard keySize == nil else { return }
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1 && verify.lines.contains { $0.hasPrefix("DAMAGED: ") && $0.hasSuffix("; the first problem is the snapshot at #27.") }, "\(verify.output)")
        #expect(verify.lines.contains(
            "The snapshot of 'search' at #27 cannot be read, and the entries before it are gone (trimmed, or removed by retention): the states of 'search' from #27 to #32 cannot be rebuilt."
        ), "\(verify.output)")
        #expect(!verify.output.contains("To get a sound log"), "\(verify.output)")
        let json = try await Tool.run(["verify", log, "--json"])
        let snapshots = try #require((try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])?["unreadableSnapshots"] as? [[String: Any]])
        #expect(snapshots.count == 1 && snapshots[0]["at"] as? Int == 27 && snapshots[0]["stream"] as? String == "search")
        #expect(snapshots.first?["statesUnknown"] as? [String: Int] == ["from": 27, "until": 33], "\(json.output)")
    }

    /// Before 2026-12-04 the trim left it behind: its walk over the snapshots, once a seek met the key,
    /// placed a record by its key or its own bytes only.
    @Test("a trim takes away a snapshot whose key size is damaged with the others before its cut, and verify then passes")
    func trimTakesDamagedKeySize() async throws {
        let log = scratch.file("trim-key-size.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        let key = [0, 0, 0, 1] + withUnsafeBytes(of: UInt64(14).bigEndian) { Array($0) }
        // Shrunk to 4 bytes: grown, the first record of its page would run past it, and a writer is refused that page.
        try LogDamage.damageKeySizeInFile(of: log, database: "snapshots", mask: 0x08) { _ in key }
        let before = try await Tool.run(["verify", log])
        #expect(before.status == 1 && before.output.contains(
            "a snapshot key is 4 bytes, not 12: its size is damaged: readers take it as the snapshot of stream 'search' at #14"
        ), "\(before.output)")
        let trim = try await Tool.run(["trim", log, "--before", "30"])
        #expect(trim.status == 0 && trim.output.contains("search: 27 removed; replays from the snapshot at #27"), "\(trim.output)\(trim.error)")
        let after = try await Tool.run(["verify", log])
        #expect(after.status == 0, "\(after.output)")
    }

    /// Before 2026-12-04 the trim aborted in LMDB (`malloc(): invalid size (unsorted)`, signal 6): it
    /// moved the page's nodes by the sizes they state, the grown one over its neighbour and past the page.
    @Test("a trim on a log whose snapshot key grew into the next record is refused with one line, the log unchanged; readers read on")
    func trimRefusesKeyIntoNextRecord() async throws {
        let log = scratch.file("key-into-next.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        // The snapshot of 'search' at #27: 28 bytes, not 12, its node below #14's in the page.
        try LogDamage.damageKeySizeInFile(of: log, database: "snapshots", mask: 0x10) { $0[1] }
        try await trimRefused(log, saying: "runs into node 0, which a writer would write over), which only a writer trips on: readers can still open it")
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1 && verify.output.contains("a snapshot key is 28 bytes, not 12: its size is damaged"), "\(verify.output)")
    }

    /// Checks that `trim --before 50` on `log` is refused (exit 5) with one line holding `text`, its data file unchanged.
    /// A copy of the demo log in the scratch directory, named `name`, whose data file's bytes `edit` has changed.
    private func demoCopy(_ name: String, editing edit: (inout [UInt8]) throws -> Void) throws -> String {
        let log = scratch.file(name)
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        let file = URL(fileURLWithPath: log + "/data.mdb")
        var bytes = [UInt8](try Data(contentsOf: file))
        try edit(&bytes)
        try Data(bytes).write(to: file)
        return log
    }

    private func trimRefused(_ log: String, saying text: String) async throws {
        let file = URL(fileURLWithPath: log).appendingPathComponent("data.mdb")
        let before = try Data(contentsOf: file)
        _ = try await fails(["trim", log, "--before", "50"], exit: 5, saying: text)
        #expect(try Data(contentsOf: file) == before)
    }

    /// Before 2026-12-04 a bad bit among a record's node flags that LMDB does not read records by refused
    /// the whole log to every command (exit 5), and verify could not run.
    @Test("a bad bit in a record's node flags: every entry reads as before, verify names it, a trim is refused with one line, the log unchanged; export and import make a log to write to")
    func recordFlagOnlyAWriterTripsOn() async throws {
        let log = scratch.file("record-flag.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        try LogDamage.flipRecordFlagsInFile(of: log, mask: 0x100) { $0[1] }
        for command in [["log", "--json"], ["export"], ["state", "--at", "50", "--stream", "search"]] {
            let damaged = try await Tool.run([command[0], log] + command.dropFirst()), sound = try await Tool.run([command[0], demo] + command.dropFirst())
            #expect(damaged.status == 0 && damaged.output == sound.output, "\(command): \(damaged.error)")
        }
        // The reader in Python, which follows docs/FORMAT.md, passes over it too.
        let python = try await Tool.python("read-log.py", [log]), pythonSound = try await Tool.python("read-log.py", [demo])
        #expect(python.status == 0 && python.output == pythonSound.output, "\(python.error)")
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1 && verify.output.contains("error: the log's data.mdb has a damaged page structure (node "), "\(verify.output)")
        #expect(verify.output.contains("(database 'entries') has flags no record has (256)), which only a writer trips on: readers can still open it"), "\(verify.output)")
        try await trimRefused(log, saying: "which only a writer trips on: readers can still open it. Nothing was written; commands that only read it work, and `reactorlog export` then `reactorlog import` make a new log from it to write to.")
        let export = scratch.file("record-flag.jsonl"), fresh = scratch.file("record-flag-imported.reactorlog")
        #expect(try await Tool.run(["export", log, "--out", export]).status == 0)
        #expect(try await Tool.run(["import", export, fresh]).status == 0)
        #expect(try await Tool.run(["trim", fresh, "--before", "50"]).status == 0)
        #expect(try await Tool.run(["verify", fresh]).status == 0)
    }

    /// Found by a damage sweep (2026-12-06): LMDB's compacting copy reads the free list, which readers pass over, and a
    /// key size damaged there took it past the file's map (signal 7, a crash of `compact`).
    @Test("a damaged free list, which readers pass over: compact is refused with one line, nothing written; export and import make a sound log")
    func compactRefusesDamagedFreeList() async throws {
        let log = scratch.file("free-list.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        // The free list's root in the commit LMDB reads (byte 80 of a meta page), and the key size of its first node.
        let ids = try LogDamage.metaPageTransactions(of: log), roots = try LogDamage.metaPageValues(of: log, at: 80)
        let root = Int(roots[ids[1] > ids[0] ? 1 : 0])
        try #require(root > 2 && root < 64, "the demo log has a free list of one page")
        let file = URL(fileURLWithPath: log).appendingPathComponent("data.mdb")
        var bytes = [UInt8](try Data(contentsOf: file))
        let node = root * 4096 + (Int(bytes[root * 4096 + 16]) | Int(bytes[root * 4096 + 17]) << 8)
        (bytes[node + 6], bytes[node + 7]) = (0xFF, 0x7F)
        try Data(bytes).write(to: file)
        let damaged = try await Tool.run(["log", log]), sound = try await Tool.run(["log", demo])
        #expect(damaged.status == 0 && damaged.output == sound.output, "\(damaged.error)")
        let copy = scratch.file("free-list-compacted.reactorlog")
        let compact = try await Tool.run(["compact", log, copy])
        #expect(compact.status == 5 && compact.error.filter { $0 == "\n" }.count == 1, "\(compact.error)")
        #expect(compact.error.contains("Cannot compact \(log): its data.mdb has a damaged page structure (") && compact.error.contains("(the free list)"), "\(compact.error)")
        #expect(compact.error.contains("which readers pass over but LMDB's compacting copy would not"), "\(compact.error)")
        #expect(!FileManager.default.fileExists(atPath: copy))
        let export = scratch.file("free-list.jsonl"), fresh = scratch.file("free-list-imported.reactorlog")
        #expect(try await Tool.run(["export", log, "--out", export]).status == 0)
        #expect(try await Tool.run(["import", export, fresh]).status == 0)
        #expect(try await Tool.run(["verify", fresh]).status == 0)
    }

    /// Before 2026-12-04 a writer took such a log and committed over the page LMDB does not read, which, where the bad
    /// bit had lowered the last commit's id instead, held the last commit: what it wrote was lost for good.
    @Test("a bad bit in a meta page's transaction id: the log reads as before, verify names it, a trim is refused with one line, the log unchanged")
    func transactionIDOnlyAWriterTripsOn() async throws {
        let log = scratch.file("transaction-id.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        // 256 added to the current page's id: LMDB still reads that page, but the ids are no longer one apart.
        try LogDamage.flipMetaPage(of: log, .current, at: 145, mask: 0x01)
        let damaged = try await Tool.run(["log", log, "--json"]), sound = try await Tool.run(["log", demo, "--json"])
        #expect(damaged.status == 0 && damaged.output == sound.output, "\(damaged.error)")
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1 && verify.output.contains("error: the log's data.mdb has meta pages whose transaction ids, "), "\(verify.output)")
        #expect(verify.output.contains("no run of commits leaves (page 0 holds an even one, page 1 the odd one next to it): one is damaged, and the page LMDB reads may hold the commit before the last, which only a writer trips on: readers can still open it"), "\(verify.output)")
        try await trimRefused(log, saying: "no run of commits leaves")
    }

    /// The key "sites" (5 bytes, its size just before it) in every leaf page of a copy of the demo log's main
    /// database, reached or freed, its last byte's bits `mask` flipped.
    private func sitesRenamed(_ name: String, mask: UInt8) throws -> String {
        try demoCopy(name) { bytes in
            let name = Array("sites".utf8)
            let keys = (8192..<bytes.count - name.count).filter { at in
                bytes[at - 2] == 5 && bytes[at - 1] == 0 && Array(bytes[at..<at + 5]) == name && bytes[at - at % 4096 + 10] == 0x02
            }
            try #require(!keys.isEmpty)
            for at in keys { bytes[at + 4] ^= mask }
        }
    }

    /// Found by random bit flips (2026-12-05): the main database's record of `sites` renamed by a bad bit made the log
    /// look like one without call sites, and `log --json` and `export` left every action's site out with exit 0. Since
    /// 2026-12-05 a name one bit from that of a database of the log that no record has is mended
    /// (`mainDatabaseRecordRenamed`); renamed further, the log still says what it leaves out.
    @Test("the main database's record of the call sites renamed beyond one bit: every action's site is named left out, exit 5")
    func sitesDatabaseRenamed() async throws {
        let log = try sitesRenamed("sites-renamed.reactorlog", mask: 0x81)
        for command in [["log", "--json"], ["export"]] {
            let damaged = try await Tool.run([command[0], log] + command.dropFirst())
            #expect(damaged.status == 5 && damaged.error.contains("call sites were left out, the rest ") && damaged.error.contains("its call site, number 1, is damaged or missing from the log"), "\(command): \(damaged.error)")
        }
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1 && verify.output.contains("call site number 1, which the log does not hold intact"), "\(verify.output)")
    }

    /// Before 2026-12-05 LMDB did not find a database whose record a bad bit renamed: the log was read as it stood one
    /// commit before its last (`entries`, `meta`, `streams`, the stream index, `snapshots`), or as though it had none
    /// (the call sites: their names left out; gaps; schema eras), and a writer made a new, empty one beside it.
    @Test("the main database's record of a database renamed by one bit: read whole from a mended copy, exit 5; verify names it; a writer is refused")
    func mainDatabaseRecordRenamed() async throws {
        let log = try sitesRenamed("sites-renamed-one-bit.reactorlog", mask: 0x80)
        let record = "names the main database's record of database 'sites' 'site\\xF3', one bit from that name, which no record has"
        for command in [["log", "--json"], ["export"]] {
            let damaged = try await Tool.run([command[0], log] + command.dropFirst()), sound = try await Tool.run([command[0], demo] + command.dropFirst())
            #expect(damaged.status == 5 && damaged.output == sound.output, "\(command): \(damaged.error)")
            #expect(damaged.error.hasPrefix("reactorlog: \(log) was read whole, from a copy with that record mended; LMDB refuses the log as it is: its data.mdb \(record) (node "), "\(damaged.error)")
        }
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1 && verify.lines.first?.hasPrefix("error: LMDB refuses the log as it is (its data.mdb \(record) (node ") == true, "\(verify.output)")
        let python = try await Tool.python("read-log.py", [log]), pythonSound = try await Tool.python("read-log.py", [demo])
        #expect(python.status == 1 && python.output == pythonSound.output, "\(python.error)")
        #expect(python.error.contains("its data.mdb \(record) (node "), "\(python.error)")
        try await trimRefused(log, saying: "(the main database names its record of database 'sites' 'site\\xF3', one bit from that name, which no record has)")
    }

    /// Before 2026-12-05 one bad bit in the number a page stores refused the log to every command ("Nothing was read"
    /// where the page is the `meta` database's, which both commits share), though LMDB's readers never read it; before
    /// 2026-12-06, a bad byte did (random byte flips of an 8,002-entry log: 3 in 1,500).
    @Test(
        "a bad bit or byte in the number a page stores: the log reads as before, verify names it, a trim is refused with one line, the log unchanged",
        arguments: [(4, UInt8(0x08), UInt64(34_359_738_370)), (0, 0xFF, 253)])
    func pageNumberOnlyAWriterTripsOn(byte: Int, mask: UInt8, stored: UInt64) async throws {
        let log = try demoCopy("page-number-\(byte).reactorlog") { bytes in
            // Page 2, the first past the meta pages: the meta database's leaf in the demo log, its number's bit 35 set,
            // or its low byte's every bit flipped.
            #expect(bytes[8192..<8200].elementsEqual([2, 0, 0, 0, 0, 0, 0, 0]))
            bytes[8192 + byte] ^= mask
        }
        let damaged = try await Tool.run(["log", log, "--json"]), sound = try await Tool.run(["log", demo, "--json"])
        #expect(damaged.status == 0 && damaged.output == sound.output, "\(damaged.error)")
        let python = try await Tool.python("read-log.py", [log]), pythonSound = try await Tool.python("read-log.py", [demo])
        #expect(python.status == 0 && python.output == pythonSound.output, "\(python.error)")
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1 && verify.output.contains("error: the log's data.mdb has a damaged page structure (page 2 says it is page \(stored)), which only a writer trips on: readers can still open it"), "\(verify.output)")
        try await trimRefused(log, saying: "(page 2 says it is page \(stored)), which only a writer trips on")
    }

    /// Before 2026-12-06 every command said `its metadata has no format version, though it holds entries. Nothing was
    /// read; restore the log from a copy`.
    @Test("a wiped format-version record of the metadata: the seal vouches for the version, every command reads the log as the sound one, verify names it, a writer is refused")
    func wipedFormatVersion() async throws {
        let log = scratch.file("wiped-format-version.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        try LogDamage.zeroNodeInFile(of: log, database: "meta") { _ in Array("format-version".utf8) }
        for command in [["log", "--json"], ["info"], ["export"], ["state", "--stream", "search", "--at", "20"]] {
            let damaged = try await Tool.run([command[0], log] + command.dropFirst()), sound = try await Tool.run([command[0], demo] + command.dropFirst())
            let same = command[0] == "info" ? damaged.lines.dropFirst() == sound.lines.dropFirst() : damaged.output == sound.output
            #expect(damaged.status == 0 && same, "\(command): \(damaged.error)")
        }
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1 && verify.lines.first == "error: the metadata has a record that tells no key (a node a zeroed sector wiped), whose value its seal vouches for as format-version \(EventLog.formatVersion)", "\(verify.output)")
        try await trimRefused(log, saying: "its metadata has a record that tells no key (a node a zeroed sector wiped), whose value its seal vouches for as format-version \(EventLog.formatVersion), which only a writer trips on")
    }

    /// Before, blame took a path whose every change lay in the damage for a typo: "has nothing at 'query' … Did you
    /// mean 'query'?", exit 2. Before 2026-12-04, it named the whole block as one stretch,
    /// `#1…#32  not readable  absent → "rx"`, though the snapshots at #14 and #27 inside it hold the states there;
    /// until 2026-12-04 the first stretch began at the damaged entry (#1), not the block's first mutation (#3), and a
    /// range inside the damage that the path is absent at the start of was refused as a typo.
    @Test("blame across a damaged block names a stretch from its first mutation up to each snapshot inside it, with the value there; a typo is still refused")
    func blamePathInsideDamage() async throws {
        let log = scratch.file("first-block.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        _ = try LogDamage.flipByte(of: log, database: "entries", mask: 0x40) { $0[0] }
        let blame = try await Tool.run(["blame", log, "--stream", "search", "query"])
        #expect(blame.status == 5 && blame.output.components(separatedBy: "\n").filter { $0.hasPrefix("-") }.map(Self.squeezed) == [
            "- #3…#14 not readable absent → \"swift\" (the changes between are not known)",
            "- #16…#27 not readable \"swift\" → \"rx\" (the changes between are not known)",
            "- #28…#32 not readable \"rx\" at both ends (the changes between are not known)",
        ], "\(blame.output)\(blame.error)")
        #expect(blame.error.contains("The changes in #3…#14 (and 2 more stretches) are not known, the rest listed: Entry #1 is corrupt"), "\(blame.error)")
        // A range that ends before the block's first mutation knows every state: the path is absent throughout. One
        // that ends inside it cannot say whether the path appeared: the stretch, not a typo.
        try await fails(["blame", log, "--stream", "search", "query", "--to", "2"], exit: 2, saying: "has nothing at 'query' from #1 to #2")
        let early = try await Tool.run(["blame", log, "--stream", "search", "query", "--from", "2", "--to", "5"])
        #expect(early.status == 5 && early.output.components(separatedBy: "\n").filter { $0.hasPrefix("-") }.map(Self.squeezed) == [
            "- #3…#5 not readable absent → ? (the changes between are not known)",
        ], "\(early.output)\(early.error)")
        // A range that starts inside the damage starts at the span it meets, its value there not known.
        let inside = try await Tool.run(["blame", log, "--stream", "search", "nextPage", "--from", "20", "--to", "30"])
        #expect(inside.status == 5 && inside.output.components(separatedBy: "\n").filter { $0.hasPrefix("-") }.map(Self.squeezed) == [
            "- #20…#27 not readable ? → 2 (the changes between are not known)",
            "- #28…#30 not readable 2 → ? (the changes between are not known)",
        ], "\(inside.output)\(inside.error)")
        try await fails(["blame", log, "--stream", "search", "quer"], exit: 2, saying: "has nothing at 'quer'")
    }

    /// Before 2026-12-04, a state inside the damage said "Pick a step before #1, or from #32 on": true,
    /// but #1 and #2 are known too, and so are the states the snapshots at #14 and #27 inside the block hold.
    @Test("a state inside a damaged block names every state that can still be rebuilt: before the damage, those snapshots inside it hold, and after it")
    func stateInsideDamageNamesKnownStates() async throws {
        let log = scratch.file("first-block-state.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        _ = try LogDamage.flipByte(of: log, database: "entries", mask: 0x40) { $0[0] }
        let hint = "Pick a step before #3, or from #32 on, rebuilt from a snapshot after the damage. Snapshots inside the damage hold the states at #14…#15 and #27 too."
        for step in [3, 13, 16, 26, 28, 31] {
            try await fails(["state", log, "--stream", "search", "--at", "\(step)"], exit: 5, saying: "at #\(step) is rebuilt through entries that cannot be read. Entry #1 is corrupt: its block's checksum does not match its contents (the block of entries from it). \(hint)")
        }
        // Each state the hint names is the undamaged log's.
        for step in [0, 2, 14, 15, 27, 32, 33] {
            let damaged = try await Tool.run(["state", log, "--stream", "search", "--at", "\(step)"])
            let sound = try await Tool.run(["state", demo, "--stream", "search", "--at", "\(step)"])
            #expect(damaged.status == 0 && damaged.output == sound.output, "#\(step): \(damaged.error)")
        }
    }

    /// Before 2026-12-04, what-if and show on an entry in a damaged block gave the log's error alone,
    /// which did not say that the step asked for was the one they could not read.
    @Test("show and what-if on an entry in a damaged block say they cannot read it; what-if of one after the damage is as on the undamaged log")
    func stepInsideDamageByName() async throws {
        let log = scratch.file("first-block-what-if.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        _ = try LogDamage.flipByte(of: log, database: "entries", mask: 0x40) { $0[0] }
        try await fails(
            ["what-if", log, "--skip", "20", "--stream", "search"], exit: 5,
            saying: "#20 cannot be read, so what it did is not known and what-if cannot leave it out: Entry #1 is corrupt")
        try await fails(
            ["show", log, "20"], exit: 5,
            saying: "#20 cannot be read, so it cannot be shown: Entry #1 is corrupt: its block's checksum does not match its contents (the block of entries from it). `reactorlog log` lists")
        let damaged = try await Tool.run(["what-if", log, "--skip", "38", "--stream", "todo"])
        let sound = try await Tool.run(["what-if", demo, "--skip", "38", "--stream", "todo"])
        #expect(damaged.status == 0 && damaged.output == sound.output && !sound.output.isEmpty, "\(damaged.error)")
    }

    /// Before 2026-12-04, a range inside a damaged block was refused by the check that it holds entries,
    /// with the log's error alone; until 2026-12-04 the listing named the block past the range's end (`#20…#31`) and
    /// a rest it had not listed.
    @Test("a range inside a damaged block: log names the part of the block in its range, export and pack name the ranges they can write")
    func rangeInsideDamage() async throws {
        let log = scratch.file("first-block-range.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        _ = try LogDamage.flipByte(of: log, database: "entries", mask: 0x40) { $0[0] }
        let inside = try await fails(["log", log, "--from", "20", "--to", "25"], exit: 5, saying: "reactorlog: #20…#25 were left out: Entry #1 is corrupt")
        #expect(inside.output.isEmpty)
        let across = try await fails(["log", log, "--from", "20", "--to", "33"], exit: 5, saying: "reactorlog: #20…#31 were left out, the rest listed: Entry #1 is corrupt")
        #expect(across.lines.map { $0.split(separator: " ")[1] } == ["#32", "#33"])
        try await fails(
            ["export", log, "--from", "20", "--to", "25"], exit: 5,
            saying: "An export holds every entry of its range and each stream's state before it: copy the whole log")
        try await fails(
            ["pack", log, "--stream", "search", "--from", "20", "--out", scratch.file("inside.pack")], exit: 5,
            saying: "A pack holds every entry of its range and each stream's state before it: pack the entries after the damage (--from 33)")
    }

    /// `line` with each run of spaces (a table's columns) made one.
    private static func squeezed(_ line: String) -> String {
        line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    @Test("a damaged call-site record: log --json, export and pack write every line, its actions without it, and exit 5, never passing it on in silence")
    func damagedCallSite() async throws {
        let log = scratch.file("damaged-site.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        try LogDamage.flipByte(of: log, database: "sites", mask: 0x40) { $0[6] }
        let said = "call site was left out, the rest %@: Entry #"
        for (command, rest) in [(["log", "--json"], "listed"), (["export"], "written")] {
            let damaged = try await Tool.run([command[0], log] + command.dropFirst()), sound = try await Tool.run([command[0], demo] + command.dropFirst())
            #expect(damaged.status == 5 && damaged.error.contains(said.replacingOccurrences(of: "%@", with: rest)), "\(command): \(damaged.error)")
            #expect(damaged.error.contains("its call site, number 7, is damaged or missing from the log"), "\(damaged.error)")
            let changed = zip(sound.lines, damaged.lines).filter { $0 != $1 }
            #expect(damaged.lines.count == sound.lines.count && !changed.isEmpty, "\(command)")
            for (before, after) in changed { #expect(before.replacing(/"callSite":"[^"]*",/, with: "") == after, "\(command)") }
        }
        let pack = scratch.file("damaged-site.pack")
        let packed = try await Tool.run(["pack", log, "--out", pack])
        #expect(packed.status == 5 && packed.error.contains(said.replacingOccurrences(of: "%@", with: "packed")), "\(packed.error)")
        #expect(try await Tool.run(["import", pack, scratch.file("damaged-site-imported.reactorlog")]).status == 0)
        // show names what it could not show; what does not show call sites still reads, and verify names the entry.
        let shown = try await Tool.run(["show", log, "45"])
        #expect(shown.status == 5 && shown.error.contains("#45 was shown without its call site"), "\(shown.error)")
        #expect(try await Tool.run(["log", log]).status == 0)
        #expect(try await Tool.run(["verify", log]).status == 1)
    }

    @Test("the last block under a key that lost a byte sorts before its place: the log's end still counts it, log and export name what it hides, and a writer never numbers its entries again")
    func lastBlockKeyCut() async throws {
        let log = scratch.file("last-block-key.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        // The demo log's two blocks start at #1 and #32: the second's key less its last byte sorts before the first's.
        let key: [UInt8] = withUnsafeBytes(of: UInt64(32).bigEndian) { Array($0) }
        try LogDamage.rekey(of: log, database: "entries", from: key, to: Array(key.prefix(7)))
        #expect(try EventLog.openReadOnly(at: log).highestSequence() == 73)
        let info = try await Tool.run(["info", log])
        #expect(info.output.contains("(numbered up to #73)"), "\(info.output)")
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1 && verify.output.contains("the first bad entry is #32"), "\(verify.output)")
        // A walk over the entries ends before the hidden block without an error: readers ask at its end.
        let hidden = "a key of the log is 7 bytes, not 8, and sorts before its place: the entries from #32 to #73, which the stream index lists, cannot be found"
        let listed = try await Tool.run(["log", log])
        #expect(listed.status == 5 && listed.error.contains("#32…#73 were left out, the rest listed: Entry #32 is corrupt: \(hidden)"), "\(listed.error)")
        #expect(listed.lines.count == 31)
        let export = try await Tool.run(["export", log])
        #expect(export.status == 5 && export.error.contains("export the entries before the damage (--to 31)"), "\(export.error)")
        let writer = try EventLog.open(at: log)
        let stream = try writer.openStream(named: "later", reactorType: "MyApp.Later", schemaFingerprint: "v1", initialState: 0)
        #expect(try stream.append(.mutation, ["add": ["_0": 1]], caseName: "add") > 73)
        try writer.close()
    }

    /// Before 2026-12-06 a node a zeroed sector wiped (its key and sizes 0: it tells no number) in the first or the
    /// last block's place left `log` nothing to list: the log's end and its first record were read as damage alone.
    @Test("a block whose node a zeroed sector wiped, the first or the last: log lists every other entry and names the block's as left out, the log's end is the index's, a writer numbers after it", arguments: [true, false])
    func wipedBlockNode(first: Bool) async throws {
        let log = scratch.file("wiped-\(first).reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        // The demo log's two blocks start at #1 and #32.
        try LogDamage.zeroNodeInFile(of: log) { first ? $0[0] : $0[1] }
        #expect(try EventLog.openReadOnly(at: log).highestSequence() == 73)
        let listed = try await Tool.run(["log", log]), sound = try await Tool.run(["log", demo])
        let kept = first ? Array(sound.lines.dropFirst(31)) : Array(sound.lines.prefix(31))
        #expect(listed.status == 5 && listed.lines == kept, "\(listed.error)")
        let named = first ? "reactorlog: #1…#31 were left out, the rest listed: " : "reactorlog: #32 and every entry after it were left out, the rest listed: "
        #expect(listed.error.hasPrefix(named) && listed.error.filter { $0 == "\n" }.count == 1, "\(listed.error)")
        // The damage is named by the first number the wiped record holds (before 2026-12-06: `Entry #0`, or the sound
        // entry before it), and a lookup by the number sought.
        let wiped = "the record that holds it tells no number (its key is 0 bytes, not 8), so it cannot be read"
        #expect(listed.error.contains("Entry #\(first ? 1 : 32) is corrupt: \(wiped)"), "\(listed.error)")
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1 && verify.output.contains("the first bad entry is #\(first ? 1 : 32).") && verify.output.contains(wiped), "\(verify.output)")
        // LMDB's search within the page lands on the wiped record from anywhere after it: an entry of the block beside
        // it reads (before 2026-12-06 `show 31` and `log --from 20` of the last block's case said it could not).
        let (readable, lost) = first ? ("40", "5") : ("31", "40")
        let shown = try await Tool.run(["show", log, readable]), soundShown = try await Tool.run(["show", demo, readable])
        #expect(shown.status == 0 && shown.output == soundShown.output, "\(shown.error)")
        try await fails(["show", log, lost], exit: 5, saying: "Entry #\(lost) is corrupt: \(wiped)")
        let from = try await Tool.run(["log", log, "--from", "20"])
        #expect(from.status == 5 && from.lines == (first ? kept : Array(sound.lines[19..<31])), "\(from.error)")
        // The latest entries that read (before 2026-12-06 `tail` of the last block's case listed none).
        let tail = try await Tool.run(["tail", log])
        #expect(tail.status == (first ? 0 : 5) && tail.lines == Array((first ? sound.lines : Array(sound.lines.prefix(31))).suffix(10)), "\(tail.error)")
        // A stream whose entries the wiped block holds is named unchecked from its first entry (before 2026-12-06 from
        // #1: `todo: … #1…#55 could not be checked`, where todo's entries are #34…#55).
        let divergence = try await Tool.run(["divergence", log])
        let unchecked = { (stream: String, steps: String) -> String in "\(stream): Replay reproduces every recorded state it could check; \(steps) could not be checked." }
        let expected: [String] = first
            ? [unchecked("search", "#1…#33"), "todo: Replay reproduces every recorded state.", "counter: Replay reproduces every recorded state."]
            : [unchecked("search", "#28…#33"), unchecked("todo", "#34…#55"), unchecked("counter", "#56…#73")]
        #expect(divergence.status == 5 && divergence.lines == expected, "\(divergence.output)\(divergence.error)")
        let writer = try EventLog.open(at: log)
        let stream = try writer.openStream(named: "later", reactorType: "MyApp.Later", schemaFingerprint: "v1", initialState: 0)
        #expect(try stream.append(.mutation, ["add": ["_0": 1]], caseName: "add") > 73)
        try writer.close()
    }

    /// Before 2026-12-06 any snapshot key of a trimmed stream damaged past placing made `blame`, `bisect` and every
    /// command that starts from the stream's earliest state refuse it, though its base read.
    @Test("a trimmed stream's snapshot wiped past placing: blame reads as the sound log with a warning where the base reads, and refuses where the base may be the one lost", arguments: [1, 0])
    func trimmedStreamSnapshotWiped(index: Int) async throws {
        let log = scratch.file("trimmed-snapshot-\(index).reactorlog"), sound = scratch.file("trimmed-sound-\(index).reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        do {
            let writer = try EventLog.open(at: log)
            try writer.trim(before: 30)
            try writer.close()
        }
        try FileManager.default.copyItem(atPath: log, toPath: sound)
        // The search stream's snapshots after the trim: its base (#27), then #33.
        let key = try LogDamage.zeroNodeInFile(of: log, database: "snapshots") { $0[index] }
        #expect(key == KeyCoding.streamSequence(1, index == 0 ? 27 : 33))
        let blamed = try await Tool.run(["blame", log, "repos", "--stream", "search"])
        let expected = try await Tool.run(["blame", sound, "repos", "--stream", "search"])
        if index == 0 {
            #expect(blamed.status == 5 && blamed.output.isEmpty && blamed.error.contains("snapshot keys"), "\(blamed.error)")
        } else {
            #expect(blamed.status == 0 && blamed.output == expected.output && !expected.output.isEmpty, "\(blamed.error)")
            #expect(blamed.error.hasPrefix("reactorlog: warning: states were rebuilt from a snapshot earlier than one that cannot be read"), "\(blamed.error)")
        }
    }

    /// Before 2026-12-07 `divergence` refused a stream one of whose snapshot keys a zeroed sector wiped (exit 5, nothing
    /// compared), though every other recorded state reads.
    @Test("a snapshot key wiped: divergence compares the rest and names the steps where the hidden state may lie")
    func divergencePastWipedSnapshotKey() async throws {
        let log = scratch.file("wiped-snapshot-key.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        // search's snapshots are #14, #27 and #33: #27's key is hidden between the other two.
        let key = try LogDamage.zeroNodeInFile(of: log, database: "snapshots") { $0[1] }
        #expect(key == KeyCoding.streamSequence(1, 27))
        let result = try await fails(["divergence", log, "--stream", "search"], exit: 5, saying: "#15…#32 could not be checked, the rest compared: ")
        #expect(result.output == "Replay reproduces every recorded state it could check; #15…#32 could not be checked.\n", "\(result.output)")
    }

    /// Before 2026-12-06 a creation time lost with its record read as 0: `info` said `created 1970-01-01T00:00:00.000Z`
    /// and an export's header `"createdAt":0`, which an import then kept as the log's creation.
    @Test("a creation time a zeroed sector wiped: info says it is not recorded, its JSON and an export's header leave it out")
    func wipedCreationTime() async throws {
        let log = scratch.file("wiped-created-at.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        try LogDamage.zeroNodeInFile(of: log, database: "meta") { _ in Array("created-at".utf8) }
        let info = try await Tool.run(["info", log])
        #expect(info.status == 5 && info.lines.dropFirst().first?.hasPrefix("created at a time the log no longer records by ReactorLog ") == true, "\(info.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try await Tool.run(["info", log, "--json"]).output.utf8)) as? [String: Any])
        #expect(json["createdAt"] == nil && json["createdBy"] != nil && json["metadataDamage"] != nil)
        let export = try await Tool.run(["export", log])
        let first = try #require(export.lines.first)
        let header = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        let fields = try #require(header["reactorlog"] as? [String: Any])
        #expect(export.status == 5 && fields["createdAt"] == nil && fields["createdBy"] != nil, "\(export.error)")
    }

    /// Before 2026-12-06 the first block of a trimmed log, wiped, was named from #1: `log` left out `#1…#31` and said
    /// `Entry #1 is corrupt`, `verify` named it after the log's floor (`error at #74`), and `export` offered the
    /// entries before it (`--to 27`), where the trim left none.
    @Test("a trimmed log whose first block a zeroed sector wiped: log, verify and export name it from its first entry and offer only what follows it")
    func wipedFirstBlockOfTrimmedLog() async throws {
        let log = scratch.file("wiped-trimmed.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        do {
            let writer = try EventLog.open(at: log)
            try writer.trim(before: 30)
            try writer.close()
        }
        let sound = try await Tool.run(["log", log])
        #expect(sound.lines.first?.contains(" #28 ") == true, "\(sound.output)")
        // The first block now holds #28…#31, kept under #28.
        try LogDamage.zeroNodeInFile(of: log) { $0[0] }
        let wiped = "Entry #28 is corrupt: the record that holds it tells no number (its key is 0 bytes, not 8), so it cannot be read"
        let listed = try await Tool.run(["log", log])
        #expect(listed.status == 5 && listed.lines == Array(sound.lines.dropFirst(4)), "\(listed.error)")
        #expect(listed.error.hasPrefix("reactorlog: #28…#31 were left out, the rest listed: \(wiped)"), "\(listed.error)")
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1 && verify.output.contains("the first bad entry is #28.") && verify.output.contains("#28…#31 cannot be read"), "\(verify.output)")
        let export = try await fails(["export", log], exit: 5, saying: wiped)
        #expect(!export.error.contains("--to") && export.error.contains("export the entries after the damage (--from "), "\(export.error)")
    }

    /// Before 2026-12-06 each stream read past its index said so on a line of its own: three lines for a zeroed sector
    /// of the one page of the index that all three streams share.
    @Test("a zeroed sector over the stream index's page: each stream reads as the sound log's, and one warning line names every stream read past it")
    func indexPageSectorZeroed() async throws {
        let log = scratch.file("index-sector.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        // The page's last sector: the nodes of its first records, which LMDB lays from the page's end.
        let page = try LogDamage.databaseRoot(of: log, database: "stream-index")
        let file = URL(fileURLWithPath: log).appendingPathComponent("data.mdb")
        var bytes = try Data(contentsOf: file)
        bytes.replaceSubrange((page + 1) * 4096 - 512..<(page + 1) * 4096, with: Data(count: 512))
        try bytes.write(to: file)
        let info = try await Tool.run(["info", log])
        #expect(info.status == 0 && info.error.filter { $0 == "\n" }.count == 1, "\(info.error)")
        #expect(info.error.hasPrefix("reactorlog: warning: streams 'search', 'todo', 'counter' were read from the whole log, past the damage to each one's index; what is shown is whole: The index of stream id 1 is damaged"), "\(info.error)")
        for command in [["log", "--stream", "todo"], ["state", "--stream", "counter", "--at", "70"], ["blame", "query", "--stream", "search"]] {
            let damaged = try await Tool.run([command[0], log] + command.dropFirst()), sound = try await Tool.run([command[0], demo] + command.dropFirst())
            #expect(damaged.status == 0 && damaged.output == sound.output && damaged.error.hasPrefix("reactorlog: warning: stream '"), "\(command): \(damaged.error)")
        }
    }

    @Test(
        "a block whose key size is damaged (one bad bit) is damage where its number puts it: readers go on past it, verify names it, a writer appends after a shrunk one and is refused a grown one",
        arguments: [(first: UInt64(32), mask: UInt8(0x01)), (first: UInt64(32), mask: UInt8(0x10)), (first: UInt64(1), mask: UInt8(0x08)),
                    (first: UInt64(32), mask: UInt8(0x08))])
    func damagedEntryKeySize(first: UInt64, mask: UInt8) async throws {
        let log = scratch.file("key-size-\(first)-\(mask).reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        // The demo log's two blocks hold #1…#31 and #32…#73. A key grown to 9 or 24 bytes takes the record's first
        // bytes; one shrunk to 0 leaves its 8 bytes as the record's first, and compares below every other key. (The
        // first block's record ends its page, which a grown key would make it run past: the page walk refuses that.)
        let key: [UInt8] = withUnsafeBytes(of: first.bigEndian) { Array($0) }
        // LMDB lays a node (8 bytes of header, the key, the record) in an even number of bytes: a key grown by one byte
        // into the padding of a record of an odd size stays inside its node.
        let recordSize: Int = try {
            let environment = try Environment(path: log)
            let entries = try environment.openDatabase("entries")
            return try environment.read { txn in try txn.get(entries, key: key)?.count ?? 0 }
        }()
        try LogDamage.damageKeySizeInFile(of: log, mask: mask) { _ in key }
        let size = Int(8 ^ mask)
        let (lost, kept) = first == 1 ? ("#1…#31", 42) : ("#32 and every entry after it", 31)
        let damage = "Entry #\(first) is corrupt: the key of the record that holds it is \(size) bytes, not 8 (a damaged key size), so the record cannot be read"
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1 && verify.output.contains("the first bad entry is #\(first)") && verify.output.contains("\(lost) cannot be read"), "\(verify.output)")
        let listed = try await Tool.run(["log", log])
        #expect(listed.status == 5 && listed.error.contains("\(lost) were left out, the rest listed: \(damage)"), "\(listed.error)")
        #expect(listed.lines.count == kept)
        if first == 32 {
            // A range that ends before the damaged block is whole: the record past it is not read.
            let before = try await Tool.run(["export", log, "--to", "31"])
            #expect(before.status == 0 && before.lines.count > 31, "\(before.error)")
            // The latest entries that can be read, not the last numbers, all damaged (before, tail listed nothing).
            let tail = try await Tool.run(["tail", log])
            #expect(tail.status == 5 && tail.lines.first?.contains("#22 search") == true && tail.lines.count == 10, "\(tail.output)")
            #expect(tail.error.contains("\(lost) were left out, the rest listed"), "\(tail.error)")
        }
        // Entries of the other block read, the state through them too; one of the damaged block is named as such.
        let (sound, lostOne) = first == 1 ? ("40", "31") : ("31", "40")
        #expect(try await Tool.run(["show", log, sound]).status == 0)
        try await fails(["show", log, lostOne], exit: 5, saying: damage)
        let timeline = try await Tool.run(["timeline", log, "--stream", "search", "--out", scratch.file("key-size-\(first)-\(mask).html")])
        #expect(timeline.status == 5 && timeline.output.contains("\(lost) were left out"), "\(timeline.output)\(timeline.error)")
        let blame = try await Tool.run(["blame", log, "--stream", "search", "query"])
        #expect(blame.status == 5 && blame.error.contains("are not known, the rest listed: \(damage)"), "\(blame.error)")
        // A trim through it refuses, as through a damaged block, and changes nothing. A grown key runs into the next
        // record of its page, which a writer would move by the sizes they state (over that record): it is refused the
        // log before LMDB opens it (before 2026-12-04, it appended after it).
        let grown = size > 8 && (16 + recordSize + 1) & ~1 < 8 + size + recordSize
        _ = try await fails(["trim", log, "--before", "40"], exit: 5, saying: grown ? "runs into node 0, which a writer would write over" : damage)
        #expect(try await Tool.run(["verify", log]).output == verify.output)
        guard !grown else {
            #expect(throws: EventLogError.self) { try EventLog.open(at: log) }
            #expect(try await Tool.run(["verify", log]).output == verify.output)
            return
        }
        // A writer numbers on after every entry the log holds, the damaged ones too, and readers find what it appends.
        let writer = try EventLog.open(at: log)
        let stream = try writer.openStream(named: "later", reactorType: "MyApp.Later", schemaFingerprint: "v1", initialState: 0)
        let appended = try stream.append(.mutation, ["add": ["_0": 1]], caseName: "add")
        #expect(appended > 73)
        try writer.close()
        let after = try await Tool.run(["log", log])
        #expect(after.status == 5 && after.output.contains("#\(appended) later"), "\(after.output)\(after.error)")
    }

    @Test("a stream recorded with other types than the inspector's is a schema mismatch (exit 9), never damage")
    func schemaMismatch() async throws {
        // A Counter stream as an older release would have written it: its mutation case had another name.
        struct OldState: Codable { var value = 0; var isLoading = false }
        let path = scratch.file("old-counter.reactorlog")
        let log = try EventLog.open(at: path)
        let stream = try log.openStream(
            named: "counter", reactorType: "ReactorLogExamples.CounterReactor", schemaFingerprint: "release-1",
            initialState: OldState())
        let action = try stream.append(.action, ["increase": [String: Int]()], caseName: "increase")
        try stream.append(.mutation, ["bumpValue": [String: Int]()], caseName: "bumpValue", cause: action)
        try log.close()
        let result = try await fails(["state", path, "--at", "3"], exit: 9, saying: "Mutation #3 (bumpValue) no longer decodes")
        #expect(result.error.contains("recorded with other types"))
        #expect(result.error.contains("Run an inspector built from the app version that recorded it"))
        // The generic commands still read it.
        #expect(try await Tool.run(["log", path]).status == 0)

        // A state of another shape names the field, as a path (before 2026-12-02 the line printed the debug
        // description of a slice of characters in its place).
        struct NoLoading: Codable { var value = 0 }
        let shapePath = scratch.file("old-state.reactorlog")
        let shapeLog = try EventLog.open(at: shapePath)
        _ = try shapeLog.openStream(
            named: "counter", reactorType: "ReactorLogExamples.CounterReactor", schemaFingerprint: "release-1", initialState: NoLoading())
        try shapeLog.close()
        try await fails(["state", shapePath, "--at", "0"], exit: 9, saying: "A recorded state no longer decodes (field 'isLoading': ")
    }

    /// A log with a stream `counter` written by hand as the example CounterReactor records it, which the inspector's
    /// reducer replays.
    private enum CounterLog {
        struct State: Codable { var value: Int; var isLoading = false }

        /// Opens a new log at `path` with the stream starting at `value`, and the payloads of its `increase` action
        /// and `increaseValue` mutation.
        static func open(at path: String, value: Int) throws -> (log: EventLog, stream: LogStream, increase: Data, increaseValue: Data) {
            let log = try EventLog.open(at: path)
            let stream = try log.openStream(
                named: "counter", reactorType: "ReactorLogExamples.CounterReactor", schemaFingerprint: "release-1",
                initialState: State(value: value))
            return (log, stream, try log.encode(["increase": [String: Int]()]), try log.encode(["increaseValue": [String: Int]()]))
        }
    }

    /// A counter log whose last mutation's action comes first, `increases` actions and their mutations before that
    /// mutation and a snapshot after them, as an effect's answer may come long after its action: `prepare` gets the
    /// open log and the last mutation's number before the log closes. Returns the numbers of the far action, of the
    /// last increase's mutation (where the snapshot is) and of the last mutation.
    private func farCauseLog(
        at path: String, increases: Int, prepare: (EventLog, UInt64) throws -> Void = { _, _ in }
    ) throws -> (early: UInt64, lastPair: UInt64, late: UInt64) {
        let (log, stream, increase, increaseValue) = try CounterLog.open(at: path, value: 0)
        let early = try stream.append(.action, encoding: { ("increase", increase) })
        var lastPair: UInt64 = 0
        for _ in 0..<increases {
            let action = try stream.append(.action, encoding: { ("increase", increase) })
            lastPair = try stream.append(.mutation, cause: action, encoding: { ("increaseValue", increaseValue) })
        }
        try stream.writeSnapshot(CounterLog.State(value: increases), at: lastPair)
        let late = try stream.append(.mutation, cause: early, encoding: { ("increaseValue", increaseValue) })
        try prepare(log, late)
        try log.close()
        return (early, lastPair, late)
    }

    @Test("divergence without --stream replays every stream: one that diverges exits 1; one whose reducer is unknown exits 6, after the others")
    func divergenceOfEveryStream() async throws {
        // Two counters, each an increase; the first recorded a state its reducer does not make (a reducer changed since).
        func record(at path: String, counterRecorded: Int, third: (type: String, name: String)?) throws {
            let (log, counter, increase, increaseValue) = try CounterLog.open(at: path, value: 0)
            let steady = try log.openStream(
                named: "steady", reactorType: "ReactorLogExamples.CounterReactor", schemaFingerprint: "release-1", initialState: CounterLog.State(value: 0))
            for (stream, recorded) in [(counter, counterRecorded), (steady, 1)] {
                let action = try stream.append(.action, encoding: { ("increase", increase) })
                let mutation = try stream.append(.mutation, cause: action, encoding: { ("increaseValue", increaseValue) })
                try stream.writeSnapshot(CounterLog.State(value: recorded), at: mutation)
            }
            if let third { _ = try log.openStream(named: third.name, reactorType: third.type, schemaFingerprint: "1", initialState: ["n": 0]) }
            try log.close()
        }
        let path = scratch.file("diverging.reactorlog")
        try record(at: path, counterRecorded: 5, third: nil)
        let every = try await Tool.run(["divergence", path])
        #expect(every.status == 1, "\(every.error)")
        #expect(every.lines.first?.hasPrefix("counter: Replay diverges from the recording at #4 (mutation increaseValue, caused by #3 increase).") == true, "\(every.output)")
        #expect(every.lines.last == "steady: Replay reproduces every recorded state.", "\(every.output)")
        let json = try await Tool.run(["divergence", path, "--json"])
        let reports = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(reports.map { $0["stream"] as? String } == ["counter", "steady"] && reports.map { $0["diverges"] as? Bool } == [true, false])
        // One stream asked for: its report alone, as before.
        let one = try await Tool.run(["divergence", path, "--stream", "steady"])
        #expect(one.status == 0 && one.output == "Replay reproduces every state recorded in stream steady.\n", "\(one.error)")

        // A stream this inspector has no reducer for is not passed over as reproduced: exit 6 once the others are told.
        let unknown = scratch.file("unknown-reducer.reactorlog")
        try record(at: unknown, counterRecorded: 1, third: ("Mystery", "mystery"))
        let all = try await Tool.run(["divergence", unknown])
        #expect(all.status == 6 && all.lines.count == 2, "\(all.output)")
        #expect(all.error == "reactorlog: Divergence needs the reducer of mystery (Mystery), which this inspector does not know. The other streams were checked. Build an inspector that registers it (docs/INSPECTOR.md).\n")
        try await fails(["divergence", unknown, "--stream", "mystery"], exit: 6, saying: "Divergence needs the reducer of mystery (Mystery), which this inspector does not know.")
        // Beside a divergence, which is the answer (exit 1), the stream it could not check is still named.
        let both = scratch.file("diverging-and-unknown.reactorlog")
        try record(at: both, counterRecorded: 5, third: ("Mystery", "mystery"))
        let found = try await Tool.run(["divergence", both])
        #expect(found.status == 1 && found.error.hasPrefix("reactorlog: warning: Divergence needs the reducer of mystery (Mystery)"), "\(found.error)")
    }

    @Test("blame without --stream in a log of several blames the one stream whose state has the path; none or several are refused, named")
    func blameFindsTheStream() async throws {
        #expect(try await Tool.run(["blame", demo, "nextPage"]).output == (try await Tool.run(["blame", demo, "nextPage", "--stream", "search"])).output)
        try await fails(["blame", demo, "nextPage", "--stream", "todo"], exit: 2, saying: "The state of 'todo' has nothing at 'nextPage'")
        try await fails(["blame", demo, "nope"], exit: 2, saying: "The log has 3 streams: search, todo, counter. No stream's latest state has 'nope': choose one with --stream.")
        let path = scratch.file("two-counters.reactorlog")
        let (log, _, _, _) = try CounterLog.open(at: path, value: 0)
        _ = try log.openStream(named: "steady", reactorType: "ReactorLogExamples.CounterReactor", schemaFingerprint: "release-1", initialState: CounterLog.State(value: 0))
        try log.close()
        try await fails(["blame", path, "value"], exit: 2, saying: "The states of counter, steady have 'value': choose one with --stream.")
    }

    @Test("a change whose action lies in a damaged block: blame and bisect give it without its action, and say why (exit 5)")
    func actionInDamagedBlock() async throws {
        let path = scratch.file("far-cause.reactorlog")
        // The action's mutation comes 600 entries later.
        let (early, lastPair, late) = try farCauseLog(at: path, increases: 300)
        try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { keys in
            keys.last { $0.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } <= early } ?? keys[0]
        }
        // Before, blame failed on the damage and listed nothing; now the change, with the action's number.
        let blamed = try await Tool.run(["blame", path, "value", "--stream", "counter", "--from", "\(late)"])
        #expect(blamed.status == 5, "\(blamed.error)")
        let row = blamed.lines.last.map { $0.split(separator: " ").joined(separator: " ") } ?? ""
        #expect(row.hasSuffix("#\(late) increaseValue 300 → 301 by #\(early) (cannot be read)"), "\(blamed.output)")
        #expect(blamed.error.hasPrefix("reactorlog: The action that caused #\(late) cannot be read, the change listed without it: Entry #"), "\(blamed.error)")
        let json = try await Tool.run(["blame", path, "value", "--stream", "counter", "--from", "\(late)", "--json"])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(json.status == 5 && objects.count == 1 && objects[0]["action"] as? Int == Int(early) && objects[0]["actionCase"] == nil)
        // Bisect names the step and its mutation, and the action by number.
        let bisected = try await Tool.run(["bisect", path, "--stream", "counter", "--from", "\(lastPair)", "--run", "test \"$REACTORLOG_STEP\" -lt \(late)"])
        #expect(bisected.status == 5, "\(bisected.error)")
        #expect(bisected.output.contains("First bad step: #\(late)"), "\(bisected.output)")
        #expect(bisected.output.contains("caused by: #\(early) action (in a block of entries that cannot be read)"), "\(bisected.output)")
        #expect(bisected.error.contains("The action that caused #\(late) cannot be read, the answer given without it: Entry #"), "\(bisected.error)")
    }

    @Test("a change whose action retention removed: blame and bisect name the action by number, no longer in the log (exit 0)")
    func actionTrimmed() async throws {
        let path = scratch.file("trimmed-cause.reactorlog")
        // A trim at the snapshot removes the action and keeps its mutation.
        let (early, _, late) = try farCauseLog(at: path, increases: 3) { log, late in
            try log.trim(before: late)
        }
        let trimmed = try EventLog.openReadOnly(at: path)
        #expect(try trimmed.entry(at: early) == nil && trimmed.entry(at: late) != nil)
        let blamed = try await Tool.run(["blame", path, "value", "--stream", "counter"])
        #expect(blamed.status == 0 && blamed.error.isEmpty, "\(blamed.error)")
        let row = blamed.lines.last.map { $0.split(separator: " ").joined(separator: " ") } ?? ""
        #expect(row.hasSuffix("#\(late) increaseValue 3 → 4 by #\(early) (no longer in the log)"), "\(blamed.output)")
        let bisected = try await Tool.run(["bisect", path, "--stream", "counter", "--run", "test \"$REACTORLOG_STEP\" -lt \(late)"])
        #expect(bisected.status == 0, "\(bisected.error)")
        #expect(bisected.output.contains("First bad step: #\(late)"), "\(bisected.output)")
        #expect(bisected.output.contains("caused by: #\(early) action (no longer in the log)"), "\(bisected.output)")
    }

    @Test("a mutation logged without its value: the steps it leaves unknown are named, and the states from the snapshot after it read")
    func valueNotRecorded() async throws {
        typealias State = CounterLog.State
        struct Refused: Error {}
        let path = scratch.file("unencodable.reactorlog")
        let (log, stream, increase, increaseValue) = try CounterLog.open(at: path, value: 5)
        let first = try stream.append(.action, encoding: { ("increase", increase) })
        let poison = try stream.append(.mutation, cause: first, encoding: { throw Refused() })
        try await log.flush()
        let second = try stream.append(.action, encoding: { ("increase", increase) })
        let next = try stream.append(.mutation, cause: second, encoding: { ("increaseValue", increaseValue) })
        #expect(stream.isSnapshotDue, "the writer asked for a snapshot, though the policy would wait for 256 mutations")
        try stream.writeSnapshot(State(value: 7), at: next)
        #expect(!stream.isSnapshotDue)
        try stream.append(.mutation, cause: second, encoding: { ("increaseValue", increaseValue) })
        try log.close()

        for step in [poison, second] {
            try await fails(
                ["state", path, "--at", "\(step)"], exit: 2,
                saying: "at #\(step) is rebuilt through mutation #\(poison), which the log holds without its value: it could not be encoded when it was recorded. Pick a step before #\(poison), or from #\(next) on, rebuilt from the snapshot there.")
        }
        #expect(try await Tool.run(["state", path, "--at", "\(first)", "--path", "value"]).output == "5\n")
        #expect(try await Tool.run(["state", path, "--at", "\(next)", "--path", "value"]).output == "7\n")
        #expect(try await Tool.run(["state", path, "--at", "\(next + 1)", "--path", "value"]).output == "8\n")
        // A listing with each change goes on past it: the states it leaves unknown are said to be so.
        let changes = try await Tool.run(["log", path, "--changes"])
        #expect(changes.status == 0, "\(changes.error)")
        #expect(changes.output.contains("~ value: 7 → 8"), "\(changes.output)")
        // Not "not recorded", which an inspector with the reducer would mend: no reducer rebuilds these states.
        #expect(changes.output.contains("state not known: it would be rebuilt through a mutation the log holds without its value"), "\(changes.output)")
        #expect(!changes.output.contains("state not recorded"), "\(changes.output)")
        let changesJSON = try await Tool.run(["log", path, "--changes", "--json"])
        let unknownLines = changesJSON.output.split(separator: "\n").filter { $0.contains(#""stateUnknown":"valueMissing""#) }
        #expect(unknownLines.count == 1 && unknownLines[0].contains(#""sequence":\#(poison)"#), "\(changesJSON.output)")
        // The timeline says so too, in a browser, instead of suggesting an inspector with the reducer.
        let page = scratch.file("unencodable.html")
        let timeline = try await Tool.run(["timeline", path, "--out", page])
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(timeline.status == 0 && html.contains(#""v":true"#), "\(timeline.error)")
        let browser = try await Tool.python("timeline-check.py", [
            page, "--step", "\(poison)", "--expect-note", "Not known at this step: it would be rebuilt through a mutation the log holds without its value",
        ])
        #expect(browser.status == 0, "\(browser.output)\(browser.error)")
        // Bisect skips the states it leaves unknown, answers as far as the rest allows, and says why, exit 0.
        let judge = #"python3 -c 'import json,sys; sys.exit(1 if json.load(sys.stdin)["value"] >= 7 else 0)'"#
        let bisect = try await Tool.run(["bisect", path, "--run", judge])
        #expect(bisect.status == 0, "\(bisect.error)")
        #expect(bisect.output.contains("the first bad step among #\(poison), #\(next)"), "\(bisect.output)")
        #expect(bisect.error.contains(
            "warning: 1 state skipped (#\(poison)): mutation #\(poison) is in the log without its value (it could not be encoded when it was recorded), so the states #\(poison)…#\(second) cannot be rebuilt (a snapshot holds #\(next))."),
            "\(bisect.error)")
        // Blame lists the changes on either side, and the value across the stretch; divergence passes over it.
        let blame = try await Tool.run(["blame", path, "value"])
        #expect(blame.status == 0, "\(blame.error)")
        let rows = blame.output.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(rows.contains("- #\(poison)…#\(next) not recorded 5 → 7 (the changes between are not known)"), "\(blame.output)")
        #expect(rows.contains { $0.hasSuffix("#\(next + 1) increaseValue 7 → 8 by #\(second) increase") }, "\(blame.output)")
        #expect(blame.error.contains("warning: the changes in #\(poison)…#\(next) are not known, the rest listed"), "\(blame.error)")
        // Divergence compares the states on either side and names the stretch it could not check, exit 0 (before
        // 2026-12-06 it said replay reproduced every state, though that stretch was not replayed).
        let divergence = try await Tool.run(["divergence", path])
        #expect(divergence.status == 0, "\(divergence.error)")
        // From the stream's start (its initial state) to the snapshot after the mutation.
        #expect(divergence.output == "Replay reproduces every recorded state it could check; #1…#\(next) could not be checked.\n", "\(divergence.output)")
        #expect(divergence.error.hasPrefix("reactorlog: warning: #1…#\(next) could not be checked: The state of 'counter' at #\(poison) is rebuilt through mutation #\(poison), which the log holds without its value"), "\(divergence.error)")
        let divergenceJSON = try await Tool.run(["divergence", path, "--json"])
        #expect(divergenceJSON.output.contains(#""notRecorded" : "The state of 'counter' at #\#(poison) is rebuilt"#), "\(divergenceJSON.output)")
        // Verify warns of it, exit 0: the log is not damaged.
        let verified = try await Tool.run(["verify", path])
        #expect(verified.status == 0 && verified.output.contains("warning at #\(poison): stream 'counter' has a mutation logged without its value"), "\(verified.output)")
        // Show says what is missing, exit 0: the log is not damaged.
        let shown = try await Tool.run(["show", path, "\(poison)"])
        #expect(shown.status == 0, "\(shown.error)")
        #expect(shown.output.contains("payload: not in the log: it could not be encoded when it was recorded\n"), "\(shown.output)")
        #expect(shown.output.contains("state change: not known: The state of 'counter' at #\(poison) is rebuilt through mutation #\(poison)"), "\(shown.output)")
        // A pack starts from each stream's state before its range: one inside the stretch is refused, naming the starts
        // that work, and both of those pack.
        try await fails(
            ["pack", path, "--from", "\(second)", "--out", scratch.file("inside.pack")], exit: 2,
            saying: "A pack starts from each stream's state before its range: start it at that mutation (--from \(poison)) or after the snapshot at #\(next) (--from \(next + 1)).")
        for start in [poison, next + 1] {
            let packed = try await Tool.run(["pack", path, "--from", "\(start)", "--out", scratch.file("from-\(start).pack")])
            #expect(packed.status == 0, "\(packed.error)")
        }
        // With the snapshot after it damaged, verify does not call that snapshot costless: replay cannot rebuild its state.
        let damaged = scratch.file("unencodable-damaged.reactorlog")
        try FileManager.default.copyItem(atPath: path, toPath: damaged)
        _ = try LogDamage.flipByte(of: damaged, database: "snapshots", mask: 0x40) { keys in
            keys.first { $0.suffix(8).reduce(0) { $0 << 8 | UInt64($1) } == next } ?? []
        }
        let both = try await Tool.run(["verify", damaged])
        #expect(both.status == 1 && both.lines.contains(
            "The snapshot of 'counter' at #\(next) cannot be read either: its state is among those named above that cannot be rebuilt."
        ) && !both.output.contains("no state is lost"), "\(both.output)")
    }

    /// As root, permissions do not apply: the inspector's command as nobody instead (setpriv, from util-linux).
    static func otherUser(_ arguments: [String]) -> (executable: String, arguments: [String]) {
        let binary = Tool.products.appendingPathComponent("reactorlog").path
        guard getuid() == 0 else { return (binary, arguments) }
        return ("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", binary] + arguments)
    }

    func asOtherUser(_ arguments: [String]) async throws -> Tool.Result {
        let command = Self.otherUser(arguments)
        return try await Tool.run(URL(fileURLWithPath: command.executable), command.arguments)
    }

    @Test("a log this user cannot read says so, not that it has no data file; one whose lock file it may not write is read without it, unless a process records into it")
    func permissionDenied() async throws {
        let log = scratch.file("private.reactorlog")
        #expect(try await Tool.run(["demo", "--out", log]).status == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.path)
        for (directory, file) in [(0o700, 0o600), (0o755, 0o600)] {
            try FileManager.default.setAttributes([.posixPermissions: file], ofItemAtPath: log + "/data.mdb")
            try FileManager.default.setAttributes([.posixPermissions: directory], ofItemAtPath: log)
            if getuid() != 0 { try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: log + "/data.mdb") }
            let result = try await asOtherUser(["info", log])
            #expect(result.status == 3, "\(result.error)")
            #expect(result.error.contains("cannot be opened by this user: its data.mdb cannot be read."), "\(result.error)")
            #expect(!result.error.contains("has no data.mdb"))
        }
        // The data readable, the directory not writable: LMDB cannot create lock.mdb, or write the one there (left by
        // the app that recorded the log, its owner's). With no process recording into the log, a read needs no
        // readers' table: the log opens without the lock file and reads as its owner reads it.
        let owners = try await Tool.run(["log", log])
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: log + "/data.mdb")
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: log + "/lock.mdb")
        for lockFile in [true, false] {
            if !lockFile { try FileManager.default.removeItem(atPath: log + "/lock.mdb") }
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: log)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: log) }
            let read = try await asOtherUser(["log", log])
            #expect(read.status == 0 && read.error.isEmpty, "\(read.error)")
            #expect(read.output == owners.output && !owners.output.isEmpty)
            let info = try await asOtherUser(["info", log, "--json"])
            let report = try JSONSerialization.jsonObject(with: Data(info.output.utf8)) as? [String: Any]
            #expect(report?["readWithoutLockFile"] as? Bool == true, "\(info.error)")
            #expect(try await asOtherUser(["info", log]).output.contains("read without LMDB's lock file, which this user may not write"))
            #expect(FileManager.default.fileExists(atPath: log + "/lock.mdb") == lockFile, "nobody made a lock file")
            // Beside a process recording into the log, a read needs the readers' table, in the lock file (which the
            // writer, the log's owner, has made by now).
            let writer = try EventLog.open(at: log)
            let result = try await asOtherUser(["log", log])
            try writer.close()
            #expect(result.status == 3, "\(result.error)")
            #expect(result.error == "reactorlog: The log at \(log) cannot be opened by this user: a process is recording into it, and reading beside one needs LMDB's lock file, lock.mdb, which this user may not write. Run as the log's owner, or copy the log into a directory of your own and open the copy.\n", "\(result.error)")
            // A new log in a directory this user may not write: not 'No log at', which sent users looking for a typo.
            let new = log + "/new.reactorlog"
            let created = try await asOtherUser(["demo", "--out", new])
            #expect(created.status == 3, "\(created.error)")
            #expect(created.error == "reactorlog: No log can be created at \(new): this user may not write in \(log). Choose a directory this user may write, on a file system with room.\n")
        }
        // A command that writes (trim), the directory and lock files open to all, the data file read-only.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: log)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: log + "/data.mdb")
        for file in ["lock.mdb", "writer.lock"] where FileManager.default.fileExists(atPath: log + "/" + file) {
            try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: log + "/" + file)
        }
        let trim = try await asOtherUser(["trim", log, "--before", "10"])
        #expect(trim.status == 3, "\(trim.error)")
        #expect(trim.error.hasPrefix("reactorlog: The log at \(log) cannot be opened by this user: its data.mdb cannot be written."), "\(trim.error)")
        // The writer's lock file not this user's to write: before, "not a ReactorLog log: cannot create writer.lock".
        if getuid() == 0 {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: log + "/writer.lock")
            let locked = try await asOtherUser(["trim", log, "--before", "10"])
            #expect(locked.status == 3, "\(locked.error)")
            #expect(locked.error.hasPrefix("reactorlog: The log at \(log) cannot be opened by this user: its writer.lock, which a writer needs, cannot be written."), "\(locked.error)")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: log)
    }

    @Test("following a log read without its lock file stops with a sentence when a process begins recording into it")
    func writerBeginsBesideALocklessRead() async throws {
        let log = scratch.file("shared.reactorlog")
        #expect(try await Tool.run(["demo", "--out", log]).status == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: scratch.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: log + "/data.mdb")
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: log + "/lock.mdb")
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: log)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: log) }
        let command = Self.otherUser(["tail", log, "--follow", "-n", "1"])
        let output = Pipe()
        let errors = scratch.file("follow.err")
        let follow = try ChildProcess(command.executable, command.arguments, output: .pipe(output), error: .file(errors))
        // The last entry printed: the follow has opened the log, without its lock file, and waits for more.
        let printed = LineReader(output).next() ?? ""
        #expect(printed.contains("#"), "\((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        let writer = try EventLog.open(at: log)
        defer { try? writer.close() }
        struct State: Codable { var count = 0 }
        let stream = try writer.openStream(named: "late", reactorType: "MyApp.LateReactor", schemaFingerprint: "v1", initialState: State())
        try stream.append(.action, ["tap": [String: Int]()], caseName: "tap")
        try await writer.flush()
        // The follow's next read finds the writer and stops rather than read pages the writer may reuse.
        let exit = try await follow.exit()
        let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        #expect(exit.status == 3 && !exit.signalled, "\(said)")
        #expect(said.hasPrefix("reactorlog: The log at \(log) cannot be opened by this user: a process began recording into it while this user, who may not write its lock file, lock.mdb, read it without one, which is safe only while no process records."), "\(said)")
    }

    @Test("following a log that a new recording replaces says so and follows the new log from its first entry, as tail -F follows a file")
    func followedLogReplaced() async throws {
        let log = scratch.file("replaced.reactorlog")
        #expect(try await Tool.run(["demo", "--out", log]).status == 0)
        let output = Pipe()
        let errors = scratch.file("follow.err")
        let follow = try ChildProcess(
            Tool.products.appendingPathComponent("reactorlog").path, ["tail", log, "--follow", "-n", "1"],
            output: .pipe(output), error: .file(errors))
        // The last entry printed: the follow has opened the log and waits for more.
        let printed = LineReader(output).next() ?? ""
        #expect(printed.contains("#73"), "\((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        #expect(try await Tool.run(["demo", "--out", log, "--force"]).status == 0)
        // The new log's entries, from its first: none of the former's is printed again.
        let lines = LineReader(output)
        let next = (1...73).map { _ in lines.next() ?? "" }
        follow.signal(SIGTERM)
        _ = try await follow.exit()
        let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        let words = [next.first, next.last].map { $0?.split(separator: " ").dropFirst().map(String.init) }
        #expect(words == [["#1", "search", "opened"], ["#73", "counter", "closed"]], "\(next.prefix(2)) … \(said)")
        // Caught between the removal and the new log, the follow also says it waits for the new one.
        let notes = said.split(separator: "\n").map(String.init)
        #expect(notes.first == "reactorlog: \(log) was removed or replaced: following the log at that path from its first entry.", "\(said)")
        #expect(notes.dropFirst() == [] || notes.dropFirst() == ["reactorlog: No log at \(log) yet: waiting for a program to begin recording there."], "\(said)")
    }

    func modificationDate(_ path: String) throws -> Date? {
        try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.modificationDate] as? Date
    }

    @Test("one-character paths, a log opened as `.` among them, are paths like any other: no command traps on them")
    func oneCharacterPaths() async throws {
        // Foundation's `deletingLastPathComponent` traps on a path of one character (swift-corelibs-foundation 6.3):
        // every command that makes a file, a log or a directory beside one did, and opening `.` or `x`.
        let directory = scratch.file("short")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let tool = Tool.products.appendingPathComponent("reactorlog").path
        let steps: [(arguments: String, status: Int32)] = [
            ("demo --out z", 0), ("info z", 0), ("timeline z --stream search --out h", 0), ("export z --out j", 0),
            ("import j k", 0), ("pack z --out p", 0), ("compact z c", 0), ("info x", 3), ("info h", 3), ("demo --out z", 2),
        ]
        for (arguments, status) in steps {
            let result = try await Tool.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "cd '\(directory)' && '\(tool)' \(arguments)"])
            #expect(!result.crashed && result.status == status, "\(arguments): \(result.error)")
        }
        let inside = try await Tool.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "cd '\(directory)/z' && '\(tool)' log . --limit 1"])
        #expect(!inside.crashed && inside.status == 0 && inside.output.hasSuffix("#1  search  opened\n"), "\(inside.error)")
    }

    @Test("a missing path, a directory that is not a log, a plain file")
    func notLogs() async throws {
        try await fails(["info", scratch.file("nope.reactorlog")], exit: 3, saying: "No log at \(scratch.file("nope.reactorlog")). Check the path")
        // A name a typo away from an entry of its directory is named with it, written as the path was.
        try await fails(["info", scratch.file("demo.reactorlgo")], exit: 3, saying: "No log at \(scratch.file("demo.reactorlgo")). Did you mean \(demo)?")
        let tool = Tool.products.appendingPathComponent("reactorlog").path
        let typed = try await Tool.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "cd '\(scratch.path)' && '\(tool)' log Demo.reactorlog"])
        #expect(typed.status == 3 && typed.error == "reactorlog: No log at Demo.reactorlog. Did you mean demo.reactorlog?\n", "\(typed.error)")
        try await fails(["info", ""], exit: 3, saying: "No log at an empty path. Check the path")
        // A new log whose directory is missing: not 'No log at' the directory, which reads as a log looked for.
        let nowhere = scratch.file("missing/deeper/new.reactorlog")
        try await fails(["demo", "--out", nowhere], exit: 3, saying: "No log can be created at \(nowhere): \(scratch.file("missing/deeper")) does not exist or is not a directory.")
        // A log directory given to import, which reads an export: not "is empty".
        try await fails(["import", demo, scratch.file("copy.reactorlog")], exit: 2, saying: "\(demo) is a directory, not an export")
        let photos = scratch.file("photos")
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: photos + "/cat.jpg", contents: Data([1]))
        try await fails(["log", photos], exit: 3, saying: "is not a ReactorLog log: it has no data.mdb")
        // A writer's lock files alone (a first open killed, or one that failed before 2026-12-03, when a failed open
        // left them): a log never begun, as CrashTests.newLogOnFullDisk checked of the full disk's leftovers before.
        let unbegun = scratch.file("unbegun.reactorlog")
        try FileManager.default.createDirectory(atPath: unbegun, withIntermediateDirectories: false)
        for name in ["lock.mdb", "writer.lock"] { _ = FileManager.default.createFile(atPath: unbegun + "/" + name, contents: Data()) }
        try await fails(["info", unbegun], exit: 3, saying: "it has no data.mdb: a writer opened it and has not begun the log")
        let file = scratch.file("notes.txt")
        _ = FileManager.default.createFile(atPath: file, contents: Data("hi".utf8))
        try await fails(["verify", file], exit: 3, saying: "it is a file, not a log directory")
        // A log's data file named instead of its directory: the directory to open.
        try await fails(["info", demo + "/data.mdb"], exit: 3, saying: "is not a ReactorLog log: it is one of a log's files; open the directory that holds it, \(demo) (a data.mdb alone")
        #expect(try FileManager.default.contentsOfDirectory(atPath: photos) == ["cat.jpg"])
    }

    @Test("a log of a newer format names both versions")
    func newerFormat() async throws {
        let future = scratch.file("future.reactorlog")
        try EventLog.open(at: future).close()
        do {
            let env = try Environment(path: future)
            let meta = try env.openDatabase("meta")
            // As a later writer leaves it: sealed (an unsealed 99 is a bad bit, which the seal puts back).
            try env.write { txn in
                try txn.put(meta, key: Array("format-version".utf8), value: Array("99".utf8))
                try MetadataSeal.seal(txn, meta)
            }
        }
        try await fails(["info", future], exit: 4, saying: "uses log format version 99, but this ReactorLog reads versions up to \(EventLog.formatVersion)")
    }

    @Test("an unknown stream, a step out of range, a malformed path, an unknown kind, a bad time, a missing entry")
    func badArguments() async throws {
        let before = try modificationDate(demo)
        try await fails(["log", demo, "--stream", "nope"], exit: 2, saying: "The log has no stream named 'nope'. Its streams: search, todo, counter.")
        // A typo or a change of case is named with the stream meant, by every command that takes --stream.
        try await fails(["state", demo, "--stream", "Search", "--at", "3"], exit: 2, saying: "no stream named 'Search': did you mean 'search'? Its streams:")
        for command in [["tail"], ["export"], ["pack", "--out", scratch.file("typo.pack")], ["timeline", "--out", scratch.file("typo.html")], ["blame", "items"]] {
            try await fails([command[0], demo] + command.dropFirst() + ["--stream", "todoo"], exit: 2, saying: "no stream named 'todoo': did you mean 'todo'?")
        }
        let many = scratch.file("many.reactorlog")
        let log = try EventLog.open(at: many)
        for name in ["a1", "b2", "c3", "d4", "e5", "f6", "g7"] { _ = try log.openStream(named: name, reactorType: "R", schemaFingerprint: "v1", initialState: 0) }
        try log.close()
        try await fails(["log", many, "--stream", "h8"], exit: 2, saying: "no stream named 'h8'. Its streams: a1, b2, c3, d4, e5 and 2 more (`reactorlog info` lists them).")
        try await fails(["state", many, "--at", "0"], exit: 2, saying: "The log has 7 streams: a1, b2, c3, d4, e5 and 2 more (`reactorlog info` lists them). Choose one with --stream.")
        try await fails(["state", demo, "--stream", "search", "--at", "99999"], exit: 2, saying: "Step #99999 is past the log's last step")
        // Blame starts from the state before --from, which is not the step to name.
        try await fails(["blame", demo, "value", "--from", "100"], exit: 2, saying: "--from 100 is past the log's last step, #73, so there is nothing to blame. Pick --from and --to from 1 to #73.")
        // Without --stream, a step past the end names no stream: the range is what to fix, not the choice of stream.
        for command in [["state", "--at", "99999"], ["diff", "1", "99999"]] {
            try await fails([command[0], demo] + command.dropFirst(), exit: 2, saying: "Step #99999 is past the log's last step, #73, so no stream has a state there. Pick a step from 0 (the initial state) to #73.")
        }
        try await fails(["state", demo, "--stream", "search", "--at", "5", "--path", "repos["], exit: 2, saying: "is not a state path")
        try await fails(["blame", demo, "a..b", "--stream", "search"], exit: 2, saying: "is not a state path")
        try await fails(["blame", demo, "nextPage", "--stream", "search", "-n", "0"], exit: 64, saying: "--latest must be at least 1.")
        // A path in no state of the range reads as a mistake, not as a value that never changed; with what is there.
        try await fails(
            ["blame", demo, "repo", "--stream", "search"], exit: 2,
            saying: "The state of 'search' has nothing at 'repo' from #1 to #33 (at #33, the state has isLoadingNextPage, nextPage, query, repos). Did you mean 'repos'?")
        try await fails(["blame", demo, "repos[99].name", "--stream", "search", "-n", "3"], exit: 2, saying: "(at #33, repos holds 30 items)")
        try await fails(["blame", demo, "repos[29]", "--stream", "search", "--to", "12"], exit: 2, saying: "from #1 to #12 (at #12, repos holds 10 items)")
        try await fails(["blame", demo, "query.name", "--stream", "search", "--json"], exit: 2, saying: #"(at #33, query is "rx")"#)
        try await fails(["state", demo, "--at", "0"], exit: 2, saying: "The log has 3 streams: search, todo, counter. Choose one with --stream.")
        try await fails(["log", demo, "--kind", "mutations"], exit: 2, saying: "'mutations' is not an entry kind. Did you mean 'mutation'? Use action,")
        try await fails(["log", demo, "--kind", "snapshot"], exit: 2, saying: "'snapshot' is not an entry kind. Use action,")
        try await fails(["log", demo, "--kind", "effecterror"], exit: 2, saying: "'effecterror' is not an entry kind. Did you mean 'effectError'?")
        try await fails(["log", demo, "--kind", "streamopend"], exit: 2, saying: "Did you mean 'streamOpened'?")
        try await fails(["log", demo, "--since", "yesterday"], exit: 2, saying: "is not a time")
        try await fails(["show", demo, "99999"], exit: 2, saying: "The log has no entry #99999 (its entries run #1…#73).")
        try await fails(["show", demo, "0"], exit: 2, saying: "The log has no entry #0 (its entries run #1…#73). Step 0 is a stream's initial state, which `reactorlog state \(demo) 0` prints.")
        try await fails(["diff", demo, "1", "99999", "--stream", "search"], exit: 2, saying: "past the log's last step")
        // Steps of two streams, no --stream: which stream's states to compare is left unsaid.
        try await fails(["diff", demo, "3", "40"], exit: 2,
                        saying: "#3 is an entry of stream 'search' and #40 of 'todo': a diff compares one stream's states. Choose it with --stream.")
        #expect(try await Tool.run(["diff", demo, "3", "40", "--stream", "todo"]).status == 0)
        try await fails(["state", demo, "--stream", "search", "--at", "29", "--path", "nothing.here"], exit: 2, saying: "has nothing at 'nothing.here' (the state has isLoadingNextPage, nextPage, query, repos). Check the path,")
        // A member one typo or a change of case away is named, with the rest of the path, when the state has it all.
        try await fails(["state", demo, "--stream", "search", "--at", "29", "--path", "nextpage"], exit: 2, saying: "(the state has isLoadingNextPage, nextPage, query, repos). Did you mean 'nextPage'?")
        try await fails(["state", demo, "--stream", "search", "--at", "29", "--path", "repo[0]"], exit: 2, saying: "Did you mean 'repos[0]'?")
        try await fails(["state", demo, "--stream", "todo", "--at", "50", "--path", "items[0].titel"], exit: 2, saying: "Did you mean 'items[0].title'?")
        try await fails(["state", demo, "--stream", "search", "--at", "29", "--path", "repo[99]"], exit: 2, saying: "Check the path,")
        #expect(try modificationDate(demo) == before)
    }

    @Test("a usage error is one line and exits 64; help still prints in full and exits 0")
    func usage() async throws {
        try await fails(["state", demo], exit: 64, saying: "Give the step whose state to print, as in 'reactorlog state \(demo) 29' (0: the initial state; a step copied as #13 needs quotes, '#13': a shell takes an unquoted # for the start of a comment). See 'reactorlog help state'.")
        // What a shell leaves of `show LOG #13`.
        try await fails(["show", demo], exit: 64, saying: "Missing expected argument '<sequence>' (a step copied as #13 needs quotes, '#13': a shell takes an unquoted # for the start of a comment). See 'reactorlog help show'.")
        try await fails(["state", demo, "29", "--at", "30"], exit: 64, saying: "Two steps given, 29 and --at 30: give one. See 'reactorlog help state'.")
        // A negative step given as an argument reads as an option to the parser, which then finds the step missing.
        try await fails(["show", demo, "-1"], exit: 64, saying: "-1 is no step: steps are numbers of 0 or more (0: the initial state). See 'reactorlog help show'.")
        try await fails(["diff", demo, "3", "-2", "--stream", "search"], exit: 64, saying: "-2 is no step: steps are numbers of 0 or more")
        try await fails(["state", demo, "-1"], exit: 64, saying: "-1 is no step: steps are numbers of 0 or more")
        // What is no number, with or without the '#' a step is printed with, says what a step is.
        try await fails(["show", demo, "abc"], exit: 64, saying: "The value 'abc' is invalid for '<sequence>': a step is a number of 0 or more, such as 31 or #31. See 'reactorlog help show'.")
        try await fails(["log", demo, "--from", "#x"], exit: 64, saying: "The value '#x' is invalid for '--from <from>': a step is a number of 0 or more, such as 31 or #31.")
        try await fails(["what-if", demo, "--skip", "31,32"], exit: 64, saying: "a step is a number of 0 or more, such as 31 or #31; an option that takes more than one is repeated, as in --skip 31 --skip 32.")
        try await fails(["log", demo, "--kind", "action,mutations"], exit: 2, saying: "'mutations' is not an entry kind. Did you mean 'mutation'?")
        try await fails(["frobnicate"], exit: 64, saying: "Unknown command 'frobnicate'. See 'reactorlog help'.")
        // A mistyped command gets the nearest name; a log named before its command, the order.
        try await fails(["stat", demo, "--at", "3"], exit: 64, saying: "Unknown command 'stat'. Did you mean 'state'?")
        // Help of a command that does not exist is no help of the whole tool (exit 0), as the parser gives it.
        try await fails(["help", "blaem"], exit: 64, saying: "reactorlog: Unknown command 'blaem'. Did you mean 'blame'? See 'reactorlog help'.")
        try await fails([demo], exit: 64, saying: "is a log, not a command: the command comes first, as in 'reactorlog info \(demo)'")
        // A command name is shown with its control characters made visible, as text from a log is.
        try await fails(["\u{1B}]0;pwned\u{7}"], exit: 64, saying: "Unknown command '\\u{1B}]0;pwned\\u{7}'. See 'reactorlog help'.")
        try await fails(["log", demo, "--limit", "abc"], exit: 64, saying: "--limit")
        // A mistyped option is named, with the nearest the command has, before a missing argument or a command's own
        // check (which said '--at' was missing, or that bisect needs --run).
        try await fails(["state", demo, "--steam", "search"], exit: 64, saying: "Unknown option '--steam'. Did you mean '--stream'? See 'reactorlog help state'.")
        try await fails(["bisect", demo, "--stream", "search", "--runn", "true"], exit: 64, saying: "Unknown option '--runn'. Did you mean '--run'?")
        try await fails(["what-if", demo, "--without", "31"], exit: 64, saying: "Unknown option '--without'. See 'reactorlog help what-if'.")
        // An option where the command takes an argument in its place (as log takes --from, diff takes two steps): the
        // command's arguments in order.
        try await fails(["diff", demo, "--from", "29", "--to", "31"], exit: 64, saying: "Unknown option '--from': diff takes its arguments in order, reactorlog diff <log> <from> <to>. See 'reactorlog help diff'.")
        try await fails(["blame", demo, "--path", "nextPage"], exit: 64, saying: "Unknown option '--path': blame takes its arguments in order, reactorlog blame <log> <path>.")
        try await fails(["compact", demo, "--out", scratch.file("new.reactorlog")], exit: 64, saying: "compact takes its arguments in order, reactorlog compact <log> <destination>.")
        try await fails(["state", demo, "--stream=search", "--path", "--steam"], exit: 64, saying: "Unknown option '--steam'.")
        try await fails(["state", demo, "--stream=search", "--path", "--at"], exit: 64, saying: "Missing value for '--path <path>'.")
        // A path where the command takes it after --out: the option meant.
        try await fails(["demo", "new.reactorlog"], exit: 64, saying: "Unexpected argument 'new.reactorlog': did you mean '--out new.reactorlog'? See 'reactorlog help demo'.")
        try await fails(["export", demo, "bug.jsonl"], exit: 64, saying: "did you mean '--out bug.jsonl'?")
        try await fails(["timeline", demo, "search"], exit: 64, saying: "Unexpected argument 'search'. See 'reactorlog help timeline'.")
        let help = try await Tool.run(["log", "--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("USAGE: reactorlog log"))
    }

    @Test("output written to a full device is an error with exit 8, for text, JSON and help alike")
    func fullDevice() async throws {
        for arguments in [["log", demo], ["info", demo], ["state", demo, "--stream", "search", "--at", "29"], ["log", demo, "--json"], ["help", "log"], ["--version"]] {
            let errors = scratch.file("full.err")
            let child = try ChildProcess(
                Tool.products.appendingPathComponent("reactorlog").path, arguments, output: .file("/dev/full"), error: .file(errors))
            let exit = try await child.exit()
            let message = try String(contentsOfFile: errors, encoding: .utf8)
            #expect(exit.status == 8 && !exit.signalled, "\(arguments): \(message)")
            #expect(message.contains("No space left on device"), "\(arguments): \(message)")
            #expect(message.filter { $0 == "\n" }.count == 1, "\(arguments): \(message)")
        }
    }

    /// Before 2026-12-04, trim read the pack, then refused it as `not a ReactorLog log: it is a file`.
    @Test("tail --follow and trim of a pack, which never changes, are refused at once, the pack left as it was")
    func followPack() async throws {
        let pack = scratch.file("follow.pack")
        #expect(try await Tool.run(["pack", demo, "--out", pack]).status == 0)
        let packed = try Data(contentsOf: URL(fileURLWithPath: pack))
        try await fails(["tail", pack, "--follow"], exit: 2, saying: "is an export, which never grows: --follow needs a log directory that a process writes.")
        try await fails(["trim", pack, "--before", "3"], exit: 2, saying: "follow.pack is an export, which trim does not change. Import it into a log (`reactorlog import")
        #expect(try await Tool.run(["tail", pack, "-n", "1"]).lines.count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: pack)) == packed)
    }

    @Test("a pack opened where no temporary log can be made names TMPDIR")
    func unwritableTemporaryDirectory() async throws {
        let pack = scratch.file("demo.pack")
        #expect(try await Tool.run(["pack", demo, "--out", pack]).status == 0)
        let missing = scratch.file("no-such-tmp")
        let result = try await Tool.run(Tool.products.appendingPathComponent("reactorlog"), ["info", pack], environment: ["TMPDIR": missing])
        #expect(result.status == 8, "\(result.error)")
        #expect(result.error == "reactorlog: Cannot open \(pack): an export is read into a temporary log, and none can be made in \(missing)/ (No such file or directory). Set TMPDIR to a writable directory.\n")
    }

    @Test("bisect, which ignores SIGPIPE, says its output's reader closed the pipe, with exit 8")
    func closedPipe() async throws {
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let errors = scratch.file("pipe.err")
        let child = try ChildProcess(
            Tool.products.appendingPathComponent("reactorlog").path,
            ["bisect", demo, "--stream", "search", "--run", "python3 " + Tool.scripts.appendingPathComponent("unique-repos.py").path], output: .pipe(pipe), error: .file(errors))
        let exit = try await child.exit()
        let message = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(exit.status == 8 && !exit.signalled, "\(message)")
        #expect(message.hasSuffix("reactorlog: Could not write the output: its reader closed the pipe before the end.\n"), "\(message)")
    }

    @Test("out-of-range times, counts and steps are refused with a sentence, never a crash")
    func outOfRange() async throws {
        try await fails(["log", demo, "--since", "99999-01-01T00:00:00Z"], exit: 2, saying: "is out of range")
        try await fails(["log", demo, "--since", "25:99"], exit: 2, saying: "is not a time of day")
        try await fails(["log", demo, "--since", "12:60"], exit: 2, saying: "is not a time of day")
        // A day its month does not have, or hour 24, which the ISO 8601 parser would move on to March 2 or the next day.
        try await fails(["log", demo, "--since", "2026-02-30T00:00:00Z"], exit: 2, saying: "'2026-02-30T00:00:00Z' is not a date: month 2 of 2026 has 28 days.")
        try await fails(["log", demo, "--until", "2026-04-31T10:00:00.5+02:00"], exit: 2, saying: "is not a date: month 4 of 2026 has 30 days.")
        try await fails(["log", demo, "--since", "2026-01-01T24:00:00Z"], exit: 2, saying: "is not a time: hours run from 0 to 23.")
        // A local date and time, as show prints one, is checked as ISO 8601 is.
        try await fails(["log", demo, "--since", "2026-02-30 10:00"], exit: 2, saying: "'2026-02-30 10:00' is not a date: month 2 of 2026 has 28 days.")
        try await fails(["log", demo, "--since", "2026-01-01 24:00:00"], exit: 2, saying: "is not a time: hours run from 0 to 23.")
        try await fails(["log", demo, "--until", "2026-13-01T10:00"], exit: 2, saying: "'2026-13-01T10:00' is not a time. Use YYYY-MM-DD HH:MM[:SS] with months 1 to 12")
        // Times when no entry was written (a time of day is today's, and the log may be from another day): said, with
        // when its entries were written; a span that holds entries the other filters leave out lists nothing.
        try await fails(["log", demo, "--since", "2262-01-01T00:00:00Z"], exit: 2, saying: "The log has no entry since 2262-01-01T00:00:00Z: its entries were written between 20")
        try await fails(["log", demo, "--stream", "todo", "--until", "2000-01-01T00:00:00Z", "--changes"], exit: 2, saying: "Stream 'todo' has no entry until 2000-01-01T00:00:00Z")
        let none = try await Tool.run(["log", demo, "--since", "2000-01-01T00:00:00Z", "--kind", "error", "--stream", "todo"])
        #expect(none.status == 0 && none.output.isEmpty, "\(none.error)")
        try await fails(["log", demo, "--until", "12:59.5"], exit: 2, saying: "is not a time of day")
        try await fails(["log", demo, "--since", "12:31", "--until", "12:30"], exit: 2, saying: "--until 12:30 is before --since 12:31")
        try await fails(["log", demo, "--limit=-1"], exit: 2, saying: "--limit is -1")
        try await fails(["tail", demo, "--lines=-3"], exit: 2, saying: "--lines is -3")
        // Written apart, the parser takes a negative number for an option and would say the value is missing.
        try await fails(["state", demo, "--stream", "search", "--at", "-1"], exit: 64, saying: "reactorlog: --at is -1, but it takes a number of 0 or more. See 'reactorlog help state'.")
        try await fails(["tail", demo, "-n", "-3"], exit: 64, saying: "reactorlog: -n is -3, but it takes a number of 0 or more. See 'reactorlog help tail'.")
        // Where 0 is refused too, the sentence does not offer it (before 2026-12-04 it said "0 or more" for all).
        try await fails(["blame", demo, "--stream", "search", "query", "-n", "-3"], exit: 64, saying: "reactorlog: -n is -3, but it takes a number of 1 or more.")
        try await fails(["demo", "--out", scratch.file("negative.reactorlog"), "--actions", "-5"], exit: 64, saying: "reactorlog: --actions is -5, but it takes a number of 1 or more.")
        try await fails(["bisect", demo, "--stream", "search", "--run", "true", "--timeout", "-5"], exit: 64, saying: "reactorlog: --timeout is -5, but it takes a number of seconds above 0.")
        try await fails(["log", demo, "--since", "-1"], exit: 64, saying: "reactorlog: --since is followed by -1, which reads as an option; a value that begins with '-' is written --since=-1.")
        try await fails(["bisect", demo, "--stream", "search", "--from", "18446744073709551615", "--run", "true"], exit: 7, saying: "is not before the bad step")
        // Both ends given the wrong way round: a usage error, as in every command that takes --from and --to.
        try await fails(["bisect", demo, "--stream", "counter", "--from", "50", "--to", "40", "--run", "true"], exit: 64, saying: "reactorlog: --from 50 is after --to 40: give the earlier step first.")
        // A case no entry has reads as a typo, with the cases there are; one outside the range lists nothing.
        try await fails(
            ["log", demo, "--stream", "search", "--case", "setQery"], exit: 2,
            saying: "No entry of stream 'search' has the case 'setQery': did you mean 'setQuery'? Its cases are Failure, appendRepos, closed, loadNextPage, opened, setLoadingNextPage, setQuery, setRepos, updateQuery.")
        try await fails(["log", demo, "--case", "frobnicate"], exit: 2, saying: "No entry of the log has the case 'frobnicate': its cases are Failure,")
        let outside = try await Tool.run(["log", demo, "--stream", "search", "--case", "setQuery", "--from", "40"])
        #expect(outside.status == 0 && outside.output.isEmpty && outside.error.isEmpty, "\(outside.error)")
        // An empty command would exit 0 for every state and call them all good.
        try await fails(["bisect", demo, "--stream", "search", "--run", " "], exit: 64, saying: "--run needs a command that judges a state")
        try await fails(["bisect", demo, "--stream", "search"], exit: 64, saying: "Give --run with a command that judges a state")
        try await fails(["bisect", demo, "--replay", scratch.file("no-session.txt")], exit: 3, saying: "Cannot read \(scratch.file("no-session.txt")).")
        let sessions: [(String, String)] = [
            ("bisect: #3 good\nthe judge's own output\nbisect: #3 bad\n", "gives #3 two verdicts, good on line 1 and bad on line 3. Keep the one that is right."),
            ("bisect: #x good\n", "line 1 is not a probe: 'bisect: #x good'."),
            ("bisect: #3 fine\n", "line 1 is not a probe"),
            ("nothing here\n", "holds no bisect probes."),
            (#"{"probes": [{"step": 1}]}"#, "is JSON but not a bisect's --json output"),
        ]
        for (index, (text, saying)) in sessions.enumerated() {
            let file = scratch.file("session-\(index).txt")
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            try await fails(["bisect", demo, "--stream", "search", "--replay", file], exit: 2, saying: "\(file) " + saying)
        }
        // A time of day is today's: 00:00, before the demo this test recorded, lists it whatever the hour (12:30
        // failed before noon, as a time the log has no entry since is refused).
        #expect(try await Tool.run(["log", demo, "--since", "00:00"]).status == 0)
        // Trimming before a step past the end would empty the log: a typo, refused before the log is touched.
        let before = try modificationDate(demo)
        try await fails(["trim", demo, "--before", "99999"], exit: 2, saying: "Step #99999 is past the log's last step, #73. Trim before a step of the log (--before 74 removes every entry).")
        #expect(try modificationDate(demo) == before)
        try await fails(["compact", demo, scratch.file("no/such/copy")], exit: 2, saying: "Cannot create \(scratch.file("no/such/copy")): No such file or directory. Check that")
    }

    @Test("--from after --to is a usage error in every command that takes both")
    func reversedRange() async throws {
        for command in [["log", demo], ["export", demo], ["pack", demo, "--out", scratch.file("r.pack")],
                        ["timeline", demo, "--stream", "search", "--out", scratch.file("r.html")],
                        ["blame", demo, "nextPage", "--stream", "search"]] {
            try await fails(command + ["--from", "20", "--to", "10"], exit: 64, saying: "--from 20 is after --to 10: give the earlier step first.")
        }
        #expect(try await Tool.run(["log", demo, "--from", "20", "--to", "20"]).lines.count == 1)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("r.pack")))
    }

    @Test("a pack, export or timeline of a range without entries is refused, naming where the entries are, and writes nothing")
    func emptyRange() async throws {
        let pack = scratch.file("empty.pack")
        try await fails(["pack", demo, "--stream", "search", "--from", "34", "--to", "50", "--out", pack], exit: 2,
                        saying: "Stream 'search' has no entry in #34…#50: its entries run #1…#33.")
        try await fails(["pack", demo, "--from", "99", "--out", pack], exit: 2, saying: "The log has no entry from #99 on: its entries run #1…#73.")
        try await fails(["export", demo, "--stream", "todo", "--to", "20", "--out", pack], exit: 2,
                        saying: "Stream 'todo' has no entry in #1…#20: its entries run #34…#55.")
        try await fails(["timeline", demo, "--stream", "search", "--from", "40", "--to", "50", "--out", pack], exit: 2,
                        saying: "Stream 'search' has no entry in #40…#50: its entries run #1…#33.")
        #expect(!FileManager.default.fileExists(atPath: pack))
        // One entry in the range is enough; --last never comes up empty while the stream has an entry.
        #expect(try await Tool.run(["pack", demo, "--stream", "search", "--from", "33", "--to", "50", "--out", pack]).status == 0)
        #expect(try await Tool.run(["pack", demo, "--stream", "search", "--last", "1ms", "--out", pack, "--force"]).status == 0)
        // A length that is not one says what one is.
        for last in ["5x", "1h 30m", "", ".5h"] {
            try await fails(["pack", demo, "--last", last, "--out", pack, "--force"], exit: 64,
                            saying: "The value '\(last)' is invalid for '--last <last>': a length of time is a number and a unit, ms, s, m, h or d, such as 90s, 15m, 2h, 1h30m or 1d.")
        }
        try await fails(["pack", demo, "--last", "999999999d", "--out", pack, "--force"], exit: 64, saying: "it is longer than a log can span")
    }

    @Test("import refuses garbage and an existing target, and leaves nothing behind")
    func badImports() async throws {
        let garbage = scratch.file("garbage.jsonl")
        _ = FileManager.default.createFile(atPath: garbage, contents: Data("not json\n".utf8))
        let target = scratch.file("new.reactorlog")
        try await fails(["import", garbage, target], exit: 2, saying: "is not a ReactorLog export")
        #expect(!FileManager.default.fileExists(atPath: target))
        try await fails(["import", garbage, demo], exit: 2, saying: "already exists")
        try await fails(["import", scratch.file("missing.jsonl"), target], exit: 3, saying: "Cannot read")
        // A file that is not text at all, a log's data file above all, is named for what it is (before 2026-12-04:
        // `line 1 cannot be imported: it is not valid UTF-8`); a later line that is not text is named by its number.
        try await fails(["import", demo + "/data.mdb", target], exit: 2, saying: "data.mdb is not a ReactorLog export but a log's data file: the inspector reads the directory that holds it as it is")
        let binary = scratch.file("photo.jpg")
        _ = FileManager.default.createFile(atPath: binary, contents: Data([0xFF, 0xD8, 0xFF, 0xE0, 0x0A]))
        try await fails(["import", binary, target], exit: 2, saying: "photo.jpg is not a ReactorLog export: it is not text, as every export is.")
        let header = try #require(try await Tool.run(["export", demo]).lines.first)
        _ = FileManager.default.createFile(atPath: binary, contents: Data((header + "\n").utf8) + Data([0xFF, 0x0A]))
        try await fails(["import", binary, target], exit: 2, saying: "photo.jpg line 2 cannot be imported: it is not valid UTF-8")
        #expect(!FileManager.default.fileExists(atPath: target))

        let export = scratch.file("demo.jsonl")
        _ = try await Tool.run(["export", demo, "--out", export])
        var lines = try String(contentsOfFile: export, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[5] = lines[5].replacingOccurrences(of: "\"kind\":\"", with: "\"kind\":\"x")
        try lines.joined(separator: "\n").write(toFile: export, atomically: true, encoding: .utf8)
        try await fails(["import", export, target], exit: 2, saying: "line 6 cannot be imported: its kind")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains("new.reactorlog") }
        #expect(leftovers.isEmpty)
    }

    @Test("import is all or nothing: every malformed export is refused whole, naming its line")
    func malformedImports() async throws {
        let export = scratch.file("whole.jsonl")
        #expect(try await Tool.run(["export", demo, "--out", export]).status == 0)
        let text = try String(contentsOfFile: export, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        let cases: [(name: String, bytes: Data, saying: String)] = [
            ("cut off", Data(text.utf8.prefix(text.utf8.count - 25)),
             "line \(lines.count) cannot be imported: the file ends in the middle of it, cut short. Copy or download it again (`reactorlog log` reads the lines before it)."),
            ("type error", Data(lines.enumerated().map { $1.replacingOccurrences(of: $0 == 4 ? "\"sequence\":" : "\u{0}", with: "\"sequence\":\"x\",\"was\":") }.joined(separator: "\n").utf8),
             "line 5 cannot be imported: entry.sequence has the wrong type"),
            ("missing field", Data(lines.enumerated().map { $0 == 3 ? $1.replacingOccurrences(of: "\"kind\":", with: "\"kinds\":") : $1 }.joined(separator: "\n").utf8),
             "line 4 cannot be imported: it lacks 'kind'"),
            ("trailing garbage", Data((text + "}garbage\n").utf8), "line \(lines.count + 1) cannot be imported: it is not valid JSON"),
            ("duplicated line", Data((lines[0...4] + [lines[4]] + lines[5...]).joined(separator: "\n").utf8), "line 6 cannot be imported: its entry #4 repeats #4"),
            ("invalid UTF-8", Data(lines[0...2].joined(separator: "\n").utf8) + Data([0x0A, 0xFF, 0xFE, 0x0A]) + Data(lines[3...].joined(separator: "\n").utf8),
             "line 4 cannot be imported: it is not valid UTF-8"),
        ]
        for (index, bad) in cases.enumerated() {
            let file = scratch.file("bad-\(index).jsonl")
            try bad.bytes.write(to: URL(fileURLWithPath: file))
            let target = scratch.file("bad-\(index).reactorlog")
            try await fails(["import", file, target], exit: 2, saying: bad.saying)
            #expect(!FileManager.default.fileExists(atPath: target), "\(bad.name)")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.contains(".importing-") }
        #expect(leftovers.isEmpty)
    }

    @Test("a pack cut short (a partial download) is read up to the cut, every command saying what is missing, exit 5")
    func cutShortPack() async throws {
        let pack = scratch.file("whole.pack")
        #expect(try await Tool.run(["pack", demo, "--out", pack]).status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: pack))
        // Cut inside line 16 (entry #14's), as a download that stopped would leave it.
        let newlines = bytes.indices.filter { bytes[$0] == 0x0A }
        let cut = scratch.file("cut.pack")
        try bytes.prefix(newlines[14] + 40).write(to: URL(fileURLWithPath: cut))
        let said = "cut.pack ends in the middle of line 16, cut short: what was read is the 15 lines before it, and what the rest held (later entries, snapshots) is missing."
        let listing = try await Tool.run(["log", cut])
        #expect(listing.status == 5 && listing.error.contains(said) && listing.error.contains("Copy or download the whole file again."), "\(listing.error)")
        #expect(listing.lines.last?.contains("#14 search") == true, "every entry before the cut: \(listing.output)")
        #expect(try await Tool.run(["state", cut, "13", "--path", "nextPage"]).output == "3\n")
        // A step past the cut may be in what was cut off: the damage, not the argument, is said first.
        let past = try await Tool.run(["show", cut, "40"])
        #expect(past.status == 5 && past.error.contains("\(said) What was asked for may be in the part cut off: The log has no entry #40"), "\(past.error)")
        // A bisect whose last state read is good: the bad state may be past the cut (exit 5, not 7).
        let bisect = try await Tool.run(["bisect", cut, "--run", "true"])
        #expect(bisect.status == 5 && bisect.error.contains("\(said) What was asked for may be in the part cut off: The state at #14"), "\(bisect.error)")
        #expect(try await Tool.run(["bisect", pack, "--stream", "search", "--to", "14", "--run", "true"]).status == 7, "the whole pack: no bad state")
        // A timeline page of it says so too, where a page shared on its own is read.
        let page = scratch.file("cut.html")
        let timeline = try await Tool.run(["timeline", cut, "--out", page])
        #expect(timeline.status == 5 && !timeline.output.contains("cut short"), "once, on standard error: \(timeline.output)")
        #expect(try String(contentsOfFile: page, encoding: .utf8).contains("ends in the middle of line 16, cut short: what was read is the 15 lines before it"))
        let verify = try await Tool.run(["verify", cut])
        #expect(verify.status == 1 && verify.output.contains("error: the file ends in the middle of line 16, cut short") && verify.output.contains("DAMAGED: "), "\(verify.output)")
        // Cut inside a character of a line's text: read up to the cut as well. A last line whose bytes are not UTF-8
        // elsewhere is refused, as any such line is.
        let whole = bytes.prefix(newlines[14] + 1)
        try (whole + Data(#"{"entry":{"case":"caf"#.utf8) + Data([0xC3])).write(to: URL(fileURLWithPath: cut))
        let inCharacter = try await Tool.run(["log", cut])
        #expect(inCharacter.status == 5 && inCharacter.error.contains(said), "\(inCharacter.error)")
        try (whole + Data(#"{"entry":{"case":""#.utf8) + Data([0xFF]) + Data(#""}}"#.utf8)).write(to: URL(fileURLWithPath: cut))
        try await fails(["log", cut], exit: 2, saying: "cut.pack line 16 cannot be imported: it is not valid UTF-8.")
        try bytes.prefix(newlines[14] + 40).write(to: URL(fileURLWithPath: cut))
        // import stays all or nothing; a pack cut inside its header has nothing to read.
        try await fails(["import", cut, scratch.file("cut.reactorlog")], exit: 2, saying: "line 16 cannot be imported: the file ends in the middle of it, cut short.")
        try bytes.prefix(50).write(to: URL(fileURLWithPath: cut))
        try await fails(["log", cut], exit: 2, saying: "cut.pack is cut short: it ends inside its header line. Copy or download it again.")
        // An export of the one-document format cut short is named so, not as JSON that is no export.
        let document = scratch.file("whole.json"), cutDocument = scratch.file("cut.json")
        #expect(try await Tool.run(["export", demo, "--format", "json", "--out", document]).status == 0)
        try Data(contentsOf: URL(fileURLWithPath: document)).prefix(3000).write(to: URL(fileURLWithPath: cutDocument))
        try await fails(["log", cutDocument], exit: 2, saying: "cut.json is cut short: it ends before its export document does. Copy or download it again.")
    }

    @Test("import removes the staging directory a killed import of the same destination left behind")
    func abandonedStaging() async throws {
        let export = scratch.file("again.jsonl")
        #expect(try await Tool.run(["export", demo, "--out", export]).status == 0)
        let gone = try ChildProcess("/bin/true", [])
        _ = try await gone.exit()
        let target = scratch.file("again.reactorlog")
        let abandoned = "\(target).importing-\(gone.pid)-42"
        try FileManager.default.createDirectory(atPath: abandoned, withIntermediateDirectories: false)
        #expect(try await Tool.run(["import", export, target]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        #expect(try await Tool.run(["verify", target]).status == 0)
    }

    @Test("trimming a log another process is writing is refused, naming that process")
    func trimWhileWriting() async throws {
        let live = scratch.file("live.reactorlog")
        let writer = try WriterProcess(log: live)
        defer { writer.stop() }
        try await fails(["trim", live, "--before", "5"], exit: 8, saying: "already open for writing (by process \(writer.process.pid))")
    }

    @Test("verify on a healthy log that another process is writing says OK, every time")
    func verifyWhileWriting() async throws {
        let live = scratch.file("growing.reactorlog")
        let writer = try WriterProcess(log: live)
        defer { writer.stop() }
        for _ in 0..<10 {
            let result = try await Tool.run(["verify", live])
            #expect(result.status == 0, "\(result.output) \(result.error)")
            #expect(result.output.contains("OK: "), "\(result.output)")
        }
    }

    @Test("demo --force refuses a log another process is writing, and the log keeps growing")
    func demoForceWhileWriting() async throws {
        let live = scratch.file("busy.reactorlog")
        let writer = try WriterProcess(log: live)
        defer { writer.stop() }
        try await fails(["demo", "--out", live, "--force"], exit: 8, saying: "already open for writing (by process \(writer.process.pid))")
        #expect(FileManager.default.fileExists(atPath: live + "/data.mdb"))
    }

    @Test("demo --force replaces a log, but never a directory holding files that are not the log's")
    func demoForceKeepsOtherFiles() async throws {
        let out = scratch.file("mine.reactorlog")
        #expect(try await Tool.run(["demo", "--out", out]).status == 0)
        #expect(try await Tool.run(["demo", "--out", out, "--force"]).status == 0)
        let verified = try await Tool.run(["verify", out])
        #expect(verified.status == 0, "\(verified.output)\(verified.error)")
        let notes = out + "/notes.txt"
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: notes))
        try await fails(["demo", "--out", out, "--force"], exit: 2, saying: "holds files that are not the log's (notes.txt)")
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "mine\n")
        let verifiedAgain = try await Tool.run(["verify", out])
        #expect(verifiedAgain.status == 0, "\(verifiedAgain.output)\(verifiedAgain.error)")
    }

    @Test("compact refuses a destination inside the source log, also through a symbolic link")
    func compactInsideSource() async throws {
        try await fails(["compact", demo, demo + "/copy"], exit: 2, saying: "is inside the log itself")
        try await fails(["compact", demo, demo], exit: 2, saying: "is inside the log itself")
        let link = scratch.file("alias")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: demo)
        try await fails(["compact", demo, link + "/copy"], exit: 2, saying: "is inside the log itself")
        #expect(!FileManager.default.fileExists(atPath: demo + "/copy"))
    }
}

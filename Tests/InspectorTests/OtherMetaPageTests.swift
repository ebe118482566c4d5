import EventLogKit
import Foundation
import TestSupport
import Testing

/// A log that LMDB refuses because the meta page it reads the log from is damaged, read from the other one. Before
/// 2026-12-04 every command refused such a log whole ("not a ReactorLog log", exit 3, where the main database's root
/// pointed at another tree's page), though the commit before the last was whole in the file.
@Suite("Reading from the other meta page", .serialized, .timeLimit(.minutes(2)))
struct OtherMetaPageTests {
    let scratch = ScratchDirectory()
    let demo: String

    init() async throws {
        demo = try await Tool.demoLog(in: scratch)
        // The tests read the log as it stood one commit before its last, which must have written entries: the demo's
        // last commit may hold only a snapshot, taken as its last stream closed and committed after it on a busy
        // machine (a full suite's run saw it). One entry more, in a commit of its own, is after everything.
        let log = try EventLog.open(at: demo)
        let note = try log.openStream(named: "note", reactorType: "Note", schemaFingerprint: "1", initialState: ["n": 0])
        try note.append(.action, ["note": "last"], caseName: "note")
        try await log.flush()
        try log.close()
    }

    private func damagedCopy(_ name: String, _ choice: LogDamage.MetaPageChoice, at offset: Int, mask: UInt8) throws -> (path: String, data: Data) {
        let path = scratch.file(name)
        try FileManager.default.copyItem(atPath: demo, toPath: path)
        try LogDamage.flipMetaPage(of: path, choice, at: offset, mask: mask)
        return (path, try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb")))
    }

    /// Why LMDB refuses the log, as the inspector words it, for the damage at `offset` of `commitBefore`: a meta page
    /// LMDB does not take for one is named so (before, it was "not an LMDB file"), other damage by the page walk.
    private func problem(_ offset: Int) -> String {
        offset == 16 ? "one of its meta pages lacks LMDB's magic number" : "its data.mdb has a damaged page structure (the main database refers to page"
    }

    /// The main database's root moved 256 pages on, out of the file, and LMDB's magic number flipped. (A root moved
    /// onto another page of the file reads as the demo log's layout has it: onto the former root, `formerRoot`.)
    @Test(
        "a damaged current meta page: every command reads the log as it stood one commit before, says so and exits 5; verify names it, compact saves it; the log is left as it was",
        arguments: [(129, UInt8(0x01)), (16, 0x01)])
    func commitBefore(offset: Int, mask: UInt8) async throws {
        let (log, before) = try damagedCopy("current-\(offset)-\(mask).reactorlog", .current, at: offset, mask: mask)
        let sound = try await Tool.run(["log", demo, "--json"]).lines
        let listed = try await Tool.run(["log", log, "--json"])
        // A prefix of the sound log's entries: the last commit's are missing, nothing else.
        #expect(listed.status == 5 && !listed.lines.isEmpty && listed.lines.count < sound.count, "\(listed.error)")
        #expect(Array(sound.prefix(listed.lines.count)) == listed.lines)
        #expect(listed.error.hasPrefix("reactorlog: \(log) was read as it stood one commit before its last, so what the last commit wrote is missing; LMDB refuses the log as it is: \(problem(offset))"), "\(listed.error)")
        #expect(listed.error.hasSuffix(". `reactorlog compact` copies what was read into a sound log.\n"))
        #expect(listed.error.filter { $0 == "\n" }.count == 1)
        let last = listed.lines.count
        let state = try await Tool.run(["state", log, "--stream", "counter", "--at", "\(last)"])
        let soundState = try await Tool.run(["state", demo, "--stream", "counter", "--at", "\(last)"])
        #expect(state.status == 5 && state.output == soundState.output)
        // A command's own failure, in one line with which log it read. What the read lacks may be in the last commit:
        // that is the damage's failure, exit 5 (before 2026-12-05, exit 2, as for a typo). An argument wrong whatever
        // the log holds stays exit 2, and says which log was read too. (Two lines before 2026-12-06.)
        let missing = " What was asked for may be in that last commit: "
        for command in [["show", log, "\(sound.count)"], ["state", log, "--stream", "counter", "--at", "\(sound.count)"],
                        ["state", log, "--stream", "counterz", "--at", "1"]] {
            let past = try await Tool.run(command)
            #expect(past.status == 5 && past.error.hasPrefix("reactorlog: \(log) was read as it stood one commit before its last"), "\(past.error)")
            #expect(past.error.contains(missing) && past.error.filter { $0 == "\n" }.count == 1, "\(command): \(past.error)")
        }
        let wrong = try await Tool.run(["log", log, "--since", "25:99"])
        #expect(wrong.status == 2 && !wrong.error.contains(missing) && wrong.error.filter { $0 == "\n" }.count == 1, "\(wrong.error)")
        #expect(wrong.error.contains(". \(log) was read as it stood one commit before its last") && wrong.error.contains("as it is: \(problem(offset))"), "\(wrong.error)")
        let verified = try await Tool.run(["verify", log])
        #expect(verified.status == 1 && verified.lines.first?.hasPrefix("error: LMDB refuses the log as it is (\(problem(offset))") == true, "\(verified.output)")
        #expect(verified.lines.first?.contains("): what follows is the log as it stood one commit before its last, without what the last commit wrote") == true)
        #expect(verified.lines.contains { $0.hasPrefix("DAMAGED: \(last) entries") })
        let saved = scratch.file("saved-\(offset)-\(mask).reactorlog")
        #expect(try await Tool.run(["compact", log, saved]).status == 5)
        #expect(try await Tool.run(["verify", saved]).status == 0)
        #expect(try await Tool.run(["log", saved, "--json"]).lines == listed.lines)
        // The FORMAT.md reader in Python reads the same commit (FORMAT.md, "A damaged meta page"), and says so.
        let python = try await Tool.python("read-log.py", [log]), pythonSaved = try await Tool.python("read-log.py", [saved])
        #expect(pythonSaved.status == 0 && python.output == pythonSaved.output, "\(python.error)")
        #expect(python.status == 1 && python.error.hasPrefix("\(log) was read as it stood one commit before its last, so what the last commit wrote is missing"), "\(python.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: log + "/data.mdb")) == before)
    }

    @Test("a damaged other meta page, which makes LMDB refuse the log, leaves the last commit whole: read whole, exit 5")
    func lastCommitWhole() async throws {
        let (log, _) = try damagedCopy("other-magic.reactorlog", .other, at: 16, mask: 0x01)
        let listed = try await Tool.run(["log", log, "--json"]), sound = try await Tool.run(["log", demo, "--json"])
        #expect(listed.status == 5 && listed.lines == sound.lines, "\(listed.error)")
        #expect(listed.error == "reactorlog: \(log) was read whole, from its sound meta page; LMDB refuses the log as it is: one of its meta pages lacks LMDB's magic number. `reactorlog compact` copies what was read into a sound log.\n", "\(listed.error)")
        let verified = try await Tool.run(["verify", log])
        #expect(verified.status == 1 && verified.lines.first?.hasPrefix("error: LMDB refuses the log as it is (one of its meta pages lacks LMDB's magic number): what follows is the log read whole from its sound meta page") == true)
        let python = try await Tool.python("read-log.py", [log]), pythonSound = try await Tool.python("read-log.py", [demo])
        #expect(python.status == 1 && python.output == pythonSound.output, "\(python.error)")
        #expect(python.error == "\(log) was read whole, from its sound meta page; LMDB refuses the log as it is: one of its meta pages lacks LMDB's magic number\n")
    }

    /// Before 2026-12-06 a zeroed meta page, whose transaction id reads 0, was taken for the older commit: with the
    /// current page zeroed, the commit before was read and every command said the log `was read whole`. And a zeroed
    /// first page (or only its first sector) left no page size to find the second by: `not a ReactorLog log`, exit 3.
    @Test("a zeroed meta page cannot say which commit is the later: every reader says what the last commit wrote may be missing", arguments: [
        "current", "other", "first sector",
    ])
    func zeroedMetaPage(_ zeroed: String) async throws {
        let log = scratch.file("zeroed-meta-\(zeroed).reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        let ids = try LogDamage.metaPageTransactions(of: log)
        let currentPage = ids[1] > ids[0] ? 1 : 0
        let current = zeroed == "current" || zeroed == "first sector" && currentPage == 0
        if zeroed == "first sector" {
            let file = URL(fileURLWithPath: log).appendingPathComponent("data.mdb")
            var bytes = try Data(contentsOf: file)
            bytes.replaceSubrange(0..<512, with: Data(count: 512))
            try bytes.write(to: file)
        } else {
            try LogDamage.zeroPage(of: log, page: current ? currentPage : 1 - currentPage)
        }
        let sound = try await Tool.run(["log", demo, "--json"]).lines
        let listed = try await Tool.run(["log", log, "--json"])
        #expect(listed.status == 5 && listed.lines == (current ? Array(sound.prefix(listed.lines.count)) : sound) && !listed.lines.isEmpty, "\(listed.error)")
        #expect(current == (listed.lines.count < sound.count))
        let said = "was read from its one sound meta page, which holds its last commit or the one before it (the damaged page, which would tell, is lost), so what the last commit wrote may be missing; LMDB refuses the log as it is: one of its meta pages lacks LMDB's magic number"
        #expect(listed.error == "reactorlog: \(log) \(said). `reactorlog compact` copies what was read into a sound log.\n", "\(listed.error)")
        // What the read lacks may be in the last commit: the damage is said first, exit 5.
        let missing = try await Tool.run(["show", log, "\(sound.count + 1)"])
        #expect(missing.status == 5 && missing.error.contains("may be missing; LMDB refuses") && missing.error.contains("What was asked for may be in that last commit: "), "\(missing.error)")
        let verified = try await Tool.run(["verify", log])
        #expect(verified.status == 1 && verified.lines.first?.contains("what follows is the log as its one sound meta page records it, its last commit or the one before it") == true, "\(verified.output)")
        let python = try await Tool.python("read-log.py", [log])
        #expect(python.status == 1 && python.error == "\(log) \(said)\n", "\(python.error)")
        let staging = scratch.file("zeroed-meta-staging-\(zeroed)")
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        let opened = try #require(EventLog.openFromOtherMetaPage(at: log, copyingInto: staging))
        #expect(opened.isCommitBefore == nil)
    }

    @Test("a log refused for anything but its data file's meta pages is refused as before, never read from the other page")
    func notForOtherRefusals() async throws {
        // A lock file that is a directory: the data file opens on its own, so nothing is read from the other page.
        let locked = scratch.file("lock-dir.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: locked)
        try? FileManager.default.removeItem(atPath: locked + "/lock.mdb")
        try FileManager.default.createDirectory(atPath: locked + "/lock.mdb", withIntermediateDirectories: false)
        let refused = try await Tool.run(["info", locked])
        #expect(refused.status == 3 && !refused.error.contains("meta page") && !refused.error.contains("one commit before"), "\(refused.error)")
        // Both meta pages damaged: nothing to read from.
        let (both, _) = try damagedCopy("both.reactorlog", .current, at: 129, mask: 0x01)
        try LogDamage.flipMetaPage(of: both, .other, at: 129, mask: 0x01)
        let neither = try await Tool.run(["info", both])
        #expect(neither.status == 5 && neither.error.contains("damaged page structure") && !neither.error.contains("one commit before"), "\(neither.error)")
        let python = try await Tool.python("read-log.py", [both])
        #expect(python.status == 1 && python.output.isEmpty && python.error.contains("damaged meta page") && !python.error.contains("one commit before"), "\(python.error)")
    }

    /// LMDB reads the meta page at the index of the highest transaction id's parity (with its lock file): a bad bit in
    /// the current page's id that breaks its parity makes LMDB read the other page, the commit before. Before session
    /// 80 every command read that commit with exit 0, and verify called the log healthy.
    @Test("a bad bit in the current meta page's transaction id: every command reads the last commit from it, says so and exits 5; verify names it")
    func laterCommitThanLMDBReads() async throws {
        let log = scratch.file("parity.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        let page = try LogDamage.flipMetaPage(of: log, .current, at: 144, mask: 0x01)
        let ids = try LogDamage.metaPageTransactions(of: log)
        let listed = try await Tool.run(["log", log, "--json"]), sound = try await Tool.run(["log", demo, "--json"])
        #expect(listed.status == 5 && listed.lines == sound.lines, "\(listed.error)")
        #expect(listed.error == "reactorlog: \(log) was read from the meta page LMDB does not read, which holds the later commit: its data.mdb has meta pages whose transaction ids, \(ids[0]) and \(ids[1]), no run of commits leaves (page 0 holds an even one, page 1 the odd one next to it): one is damaged, and the page LMDB reads may hold the commit before the last. `reactorlog compact` copies what was read into a sound log.\n", "page \(page): \(listed.error)")
        let verified = try await Tool.run(["verify", log])
        #expect(verified.status == 1 && verified.lines.first?.hasPrefix("error: LMDB reads the log as it stood one commit before its last (its data.mdb has meta pages whose transaction ids") == true, "\(verified.output)")
        let saved = scratch.file("parity-saved.reactorlog")
        #expect(try await Tool.run(["compact", log, saved]).status == 5)
        #expect(try await Tool.run(["log", saved, "--json"]).lines == sound.lines)
        // The Python reader reads what LMDB reads, and says the ids are damaged.
        let python = try await Tool.python("read-log.py", [log])
        #expect(python.status == 1 && python.error.contains("no run of commits leaves"), "\(python.error)")
    }

    /// A bad bit that lowers the last commit's id below the other page's, or raises the commit before's above it, keeps
    /// the ids' pattern: before 2026-12-05 every command read the commit before with exit 0, verify called the log healthy
    /// and the Python reader printed it without a word. The free lists tell.
    @Test(
        "ids that keep their pattern but make the commit before current: every command reads the last commit, says so and exits 5; verify and the Python reader name it",
        arguments: [true, false])
    func commitBeforeMadeCurrent(lowerTheLast: Bool) async throws {
        let log = scratch.file("made-current-\(lowerTheLast).reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        try LogDamage.makeCommitBeforeCurrent(of: log, lowerTheLast: lowerTheLast)
        let listed = try await Tool.run(["log", log, "--json"]), sound = try await Tool.run(["log", demo, "--json"])
        #expect(listed.status == 5 && listed.lines == sound.lines, "\(listed.error)")
        #expect(listed.error.hasPrefix("reactorlog: \(log) was read from the meta page LMDB does not read, which holds the later commit: its data.mdb has meta pages whose transaction ids") && listed.error.contains("disagree with their free lists"), "\(listed.error)")
        let verified = try await Tool.run(["verify", log])
        #expect(verified.status == 1 && verified.lines.first?.hasPrefix("error: LMDB reads the log as it stood one commit before its last") == true, "\(verified.output)")
        let python = try await Tool.python("read-log.py", [log])
        #expect(python.status == 1 && python.error.contains("disagree with their free lists") && python.error.contains("what was read may be the log as it stood before its last commit"), "\(python.error)")
        #expect(try await Tool.run(["trim", log, "--before", "2"]).status != 0)
    }

    /// The last commit a trim's: it holds no entry past the commit before, but fewer old ones. Before 2026-12-05 a bad bit
    /// that made the commit before current read the trimmed entries back with exit 0, since only the highest sequence
    /// numbers were compared.
    @Test("ids that make the commit before a trim current: every command reads the trimmed log, says so and exits 5", arguments: [true, false])
    func commitBeforeATrimMadeCurrent(lowerTheLast: Bool) async throws {
        let log = scratch.file("trim-made-current-\(lowerTheLast).reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        #expect(try await Tool.run(["trim", log, "--before", "30"]).status == 0)
        let trimmed = try await Tool.run(["log", log, "--json"]).lines
        try #require(trimmed.count < (try await Tool.run(["log", demo, "--json"])).lines.count, "the trim removed nothing")
        try LogDamage.makeCommitBeforeCurrent(of: log, lowerTheLast: lowerTheLast)
        let listed = try await Tool.run(["log", log, "--json"])
        #expect(listed.status == 5 && listed.lines == trimmed, "\(listed.error)")
        #expect(listed.error.hasPrefix("reactorlog: \(log) was read from the meta page LMDB does not read, which holds the later commit: its data.mdb has meta pages whose transaction ids"), "\(listed.error)")
        let verified = try await Tool.run(["verify", log])
        #expect(verified.status == 1 && verified.lines.first?.hasPrefix("error: LMDB reads the log as it stood one commit before its last") == true, "\(verified.output)")
    }

    /// A last commit that wrote no entry (a snapshot, here) leaves both commits with the same entries, which then cannot
    /// tell which is the later: before 2026-12-06 a bad bit in an id read the commit before with exit 0, the last
    /// snapshot missing. The free lists tell: a commit files the pages it frees under its own id. One and two
    /// snapshot commits make the last id odd in one case and even in the other, so that bit 0 flipped makes the ids
    /// equal (LMDB reads page 0) in one, and the other page's id the higher in the other.
    @Test("a last commit with no entry, its id damaged: the free lists show the later commit, and every command reads it, says so and exits 5", arguments: [1, 2])
    func laterCommitWithoutEntries(snapshotCommits: Int) async throws {
        let log = scratch.file("snapshot-last-\(snapshotCommits).reactorlog")
        let writer = try EventLog.open(at: log)
        let stream = try writer.openStream(named: "notes", reactorType: "MyApp.Notes", schemaFingerprint: "v1", initialState: 0)
        var steps: [UInt64] = []
        for note in 1...20 { steps.append(try stream.append(.mutation, note, caseName: "add")) }
        try await writer.flush()
        for commit in 1...snapshotCommits {
            try stream.writeSnapshot(commit * 1_000, at: steps[commit])
            try await writer.flush()
        }
        try writer.close()
        let sound = scratch.file("snapshot-last-sound-\(snapshotCommits).reactorlog")
        try FileManager.default.copyItem(atPath: log, toPath: sound)
        let soundInfo = try await Tool.run(["info", sound, "--json"])
        try LogDamage.flipMetaPage(of: log, .current, at: 144, mask: 0x01)
        let ids = try LogDamage.metaPageTransactions(of: log)
        let info = try await Tool.run(["info", log, "--json"])
        #expect(info.status == 5 && info.output.replacingOccurrences(of: log, with: sound) == soundInfo.output, "ids \(ids): \(info.output) \(soundInfo.output) \(info.error)")
        #expect(info.error.hasPrefix("reactorlog: \(log) was read from the meta page LMDB does not read, which holds the later commit: its data.mdb has meta pages whose transaction ids, \(ids[0]) and \(ids[1]),"), "\(info.error)")
        let state = try await Tool.run(["state", log, "--at", "\(steps[snapshotCommits])"])
        #expect(state.status == 5 && state.output == "\(snapshotCommits * 1_000)\n", "\(state.output)\(state.error)")
        let verified = try await Tool.run(["verify", log])
        #expect(verified.status == 1 && verified.lines.first?.hasPrefix("error: LMDB reads the log as it stood one commit before its last") == true, "\(verified.output)")
    }

    /// A hostile file: the page LMDB reads by the id's parity claims pages far past the file's end, which the checks
    /// before mapping did not look at (they checked the page with the highest id): every command died of SIGBUS.
    @Test("a meta page LMDB reads by its id's parity, not the highest id's page, is checked before LMDB maps the file: no crash")
    func pageReadByParityIsChecked() async throws {
        let log = scratch.file("parity-hostile.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        let ids = try LogDamage.metaPageTransactions(of: log)
        let current = ids[1] > ids[0] ? 1 : 0, other = 1 - current
        // The current page's id two above the other's, so of the other's parity; the other claims 10,001 pages.
        try LogDamage.setMetaPage(of: log, page: current, at: 144, to: ids[other] + 2)
        try LogDamage.setMetaPage(of: log, page: other, at: 136, to: 10_000)
        try LogDamage.setMetaPage(of: log, page: other, at: 128, to: 5_000)
        let listed = try await Tool.run(["log", log, "--json"]), sound = try await Tool.run(["log", demo, "--json"])
        #expect(listed.status == 5 && listed.lines == sound.lines, "\(listed.error)")
        #expect(listed.error.contains("was read whole, from its sound meta page; LMDB refuses the log as it is: its data.mdb is truncated: its meta page says it uses 10001 pages"), "\(listed.error)")
        let python = try await Tool.python("read-log.py", [log]), pythonSound = try await Tool.python("read-log.py", [demo])
        #expect(python.status == 1 && python.output == pythonSound.output && python.error.contains("was read whole"), "\(python.error)")
    }

    /// A current meta page whose main root is the commit before's: the tree LMDB reads is sound, but the older one, so
    /// before 2026-12-05 every command read the log as it stood one commit before with exit 0, and verify called it
    /// healthy. The last commit freed that page, and a commit's trees never reach a page its free list names.
    @Test("a current meta page whose main root is the commit before's: read as the commit before, said so, exit 5; verify and the Python reader name it")
    func formerRoot() async throws {
        let log = scratch.file("former-root.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        let (ids, roots) = (try LogDamage.metaPageTransactions(of: log), try LogDamage.metaPageValues(of: log, at: 128))
        let current = ids[1] > ids[0] ? 1 : 0
        try LogDamage.setMetaPage(of: log, page: current, at: 128, to: roots[1 - current])
        let listed = try await Tool.run(["log", log, "--json"]), sound = try await Tool.run(["log", demo, "--json"]).lines
        #expect(listed.status == 5 && !listed.lines.isEmpty && listed.lines.count < sound.count, "\(listed.error)")
        #expect(Array(sound.prefix(listed.lines.count)) == listed.lines)
        let reason = "its data.mdb has a damaged page structure (the main database reaches page \(roots[1 - current]), which the free list names as free)"
        #expect(listed.error.hasPrefix("reactorlog: \(log) was read as it stood one commit before its last, so what the last commit wrote is missing; LMDB refuses the log as it is: \(reason)."), "\(listed.error)")
        let verified = try await Tool.run(["verify", log])
        #expect(verified.status == 1 && verified.lines.first?.hasPrefix("error: LMDB refuses the log as it is (\(reason)): what follows is the log as it stood one commit before its last") == true, "\(verified.output)")
        let python = try await Tool.python("read-log.py", [log])
        #expect(python.status == 1 && python.output.split(separator: "\n").count > 1, "\(python.error)")
        #expect(python.error.contains("was read as it stood one commit before its last") && python.error.contains("which the free list names as free"), "\(python.error)")
    }

    /// A bad bit in the free list alone (here its root, sent past the file's end): LMDB's readers never read the free
    /// list, so the last commit is read whole and without a word; only a writer, which takes pages from it, is refused,
    /// and verify names it. Before 2026-12-05 every command read the log as it stood one commit before, exit 5.
    @Test("a damaged free list alone: every command reads the last commit, exit 0; verify names it for writers; a writer is refused and the log left as it was")
    func freeListAlone() async throws {
        let log = scratch.file("free-list.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        let page = try LogDamage.flipMetaPage(of: log, .current, at: 85, mask: 0x01)
        let root = try LogDamage.metaPageValues(of: log, at: 80)[page], last = try LogDamage.metaPageValues(of: log, at: 136)[page]
        let damaged = try Data(contentsOf: URL(fileURLWithPath: log + "/data.mdb"))
        let listed = try await Tool.run(["log", log, "--json"]), sound = try await Tool.run(["log", demo, "--json"])
        #expect(listed.status == 0 && listed.error.isEmpty && listed.lines == sound.lines, "\(listed.error)")
        let verified = try await Tool.run(["verify", log])
        #expect(verified.status == 1, "\(verified.output)")
        #expect(verified.lines.contains("error: the log's data.mdb has a damaged page structure (the free list refers to page \(root), outside pages 2…\(last)), which only a writer trips on: readers can still open it"), "\(verified.output)")
        let trimmed = try await Tool.run(["trim", log, "--before", "2"])
        #expect(trimmed.status != 0 && trimmed.error.contains("which only a writer trips on: readers can still open it"), "\(trimmed.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: log + "/data.mdb")) == damaged)
        let python = try await Tool.python("read-log.py", [log]), pythonSound = try await Tool.python("read-log.py", [demo])
        #expect(python.status == 0 && python.output == pythonSound.output, "\(python.error)")
    }
}

import EventLogKit
import Foundation
import TestSupport
import Testing

/// A log one of whose leaf pages is damaged beyond mending, read from a copy with that page left out. Before 2026-12-06
/// a zeroed sector at the start of any leaf page of a larger log (its header) refused the whole log to every command:
/// 64 of the 640 sectors of an 8,002-entry log read nothing, though the other pages held every other entry.
/// Five minutes: the page sweep runs two inspector processes a page, 10–20 seconds alone, but past two minutes among
/// the whole suite's tests on a slow two-core host (157 s, 2026-12-07).
@Suite("Reading a copy with a damaged page left out", .serialized, .timeLimit(.minutes(5)))
struct LeftOutPageTests {
    let scratch = ScratchDirectory()

    /// A demo log of 1,500 actions (6,002 entries: its entries and index span many leaf pages) and a copy of it, named
    /// `name`, with the first sector of a leaf page of `database` that both commits reach zeroed (a page of the last
    /// commit alone is whole in the commit before, which is read instead); the paths and that page's number.
    private func leafSectorZeroed(_ name: String, database: String) async throws -> (demo: String, log: String, page: Int) {
        let demo = scratch.file("demo-1500.reactorlog")
        try await DemoLog.withLastCommitApart(at: demo, actions: 1500)
        let log = scratch.file(name)
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        let before = try LogDamage.leafPages(of: log, database: database, in: .other)
        let leaves = try LogDamage.leafPages(of: log, database: database).filter(before.contains)
        try #require(leaves.count > 2)
        let page = leaves[leaves.count / 2]
        try LogDamage.zeroFirstSector(of: log, page: page)
        return (demo, log, page)
    }

    @Test("an entries page whose header a zeroed sector took: every command reads the rest, naming the entries left out, exit 5; verify names the page; compact saves the rest; the Python reader refuses with one line")
    func entriesPageLeftOut() async throws {
        let (demo, log, page) = try await leafSectorZeroed("entries-page.reactorlog", database: "entries")
        let before = try Data(contentsOf: URL(fileURLWithPath: log + "/data.mdb"))
        let problem = "its data.mdb has a leaf page damaged beyond mending (page \(page) of database 'entries' is neither a branch nor a leaf page (flags 0))"
        let read = "\(log) was read from a copy with a damaged page left out, whose records are missing; LMDB refuses the log as it is: \(problem)."
        let listed = try await Tool.run(["log", log]), sound = try await Tool.run(["log", demo])
        // The page's entries, named in one line: `#A…#B were left out, the rest listed: Entry #A is corrupt: …`.
        let named = try #require(listed.error.firstMatch(of: #/^reactorlog: #(\d+)…#(\d+) were left out, the rest listed: Entry #(\d+) is corrupt: /#))
        let (first, last) = (try #require(UInt64(named.1)), try #require(UInt64(named.2)))
        #expect(last > first + 10 && UInt64(named.3) == first)
        #expect(listed.status == 5 && listed.error.hasSuffix(read + "\n") && listed.error.filter { $0 == "\n" }.count == 1, "\(listed.error)")
        let kept = sound.lines.filter { line in
            guard let number = line.firstMatch(of: #/#(\d+) /#).flatMap({ UInt64($0.1) }) else { return true }
            return !(first...last).contains(number)
        }
        #expect(listed.lines == kept && kept.count < sound.lines.count)
        // A state past the damage is rebuilt as the sound log rebuilds it.
        let at = ["state", "--at", "\(min(last + 400, 6_002))"]
        let state = try await Tool.run([at[0], log] + at.dropFirst()), soundState = try await Tool.run([at[0], demo] + at.dropFirst())
        #expect(state.status == 5 && state.output == soundState.output && soundState.status == 0, "\(state.error)")
        let verified = try await Tool.run(["verify", log])
        #expect(verified.status == 1 && verified.lines.first?.hasPrefix("error: LMDB refuses the log as it is (\(problem)): what follows is the log read from a copy with a damaged page left out") == true, "\(verified.output)")
        #expect(verified.output.contains("#\(first)…#\(last) cannot be read: "), "\(verified.output)")
        // compact saves what was read: a sound file, which names the entries left out as damage.
        let saved = scratch.file("entries-page-saved.reactorlog")
        #expect(try await Tool.run(["compact", log, saved]).status == 5)
        let savedVerify = try await Tool.run(["verify", saved])
        #expect(savedVerify.status == 1 && savedVerify.output.contains("#\(first)…#\(last) cannot be read: "), "\(savedVerify.output)")
        #expect(try await Tool.run(["log", saved]).lines == listed.lines)
        // The FORMAT.md reader in Python reads sound pages only: it refuses the log in one line.
        let python = try await Tool.python("read-log.py", [log])
        #expect(python.status == 1 && python.error == "\(log): its data.mdb has a damaged page structure (page \(page) of database 'entries' is neither a branch nor a leaf page (flags 0))\n", "\(python.error)")
        // The library leaves the page out only when asked: a last resort, after the commit before.
        let staging = scratch.file("entries-page-staging"), stagingLeftOut = scratch.file("entries-page-staging-left-out")
        for directory in [staging, stagingLeftOut] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false) }
        #expect(EventLog.openMended(at: log, copyingInto: staging) == nil)
        let library = try #require(EventLog.openMended(at: log, copyingInto: stagingLeftOut, leavingOutPages: true))
        #expect(library.pagesLeftOut == 1 && library.records == 0 && library.problem == problem)
        #expect(try Data(contentsOf: URL(fileURLWithPath: log + "/data.mdb")) == before)
    }

    /// Every leaf page of `entries` and of the stream index that both commits share, its header zeroed in turn: what a
    /// read leaves out is the page's, never an answer that differs from the sound log's.
    @Test("each shared leaf page's header zeroed in turn: a listing prints the sound log's lines but the page's, in order, and one line of failure; the last state is the sound log's")
    func everyLeafPage() async throws {
        let (demo, _, _) = try await leafSectorZeroed("every-leaf-probe.reactorlog", database: "entries")
        let sound = try await Tool.run(["log", demo]), last = try await Tool.run(["state", demo, "--at", "6002"])
        var problems: [String] = [], pages = 0
        for database in ["entries", "stream-index"] {
            let shared = try LogDamage.leafPages(of: demo, database: database, in: .other)
            for page in try LogDamage.leafPages(of: demo, database: database).filter(shared.contains) {
                let log = scratch.file("every-leaf-\(database)-\(page).reactorlog")
                try FileManager.default.copyItem(atPath: demo, toPath: log)
                try LogDamage.zeroFirstSector(of: log, page: page)
                let listed = try await Tool.run(["log", log]), state = try await Tool.run(["state", log, "--at", "6002"])
                var rest = sound.lines[...]
                // Each line printed is the sound log's next but for those skipped: a subsequence.
                let inOrder = listed.lines.allSatisfy { line in
                    guard let found = rest.firstIndex(of: line) else { return false }
                    rest = rest[(found + 1)...]
                    return true
                }
                if listed.status != 5 || !inOrder || listed.error.filter({ $0 == "\n" }).count != 1 {
                    problems.append("log after page \(page) of \(database): exit \(listed.status), in order \(inOrder): \(listed.error.prefix(300))")
                }
                if state.status != 5 || state.output != last.output {
                    problems.append("state after page \(page) of \(database): exit \(state.status): \(state.error.prefix(300))")
                }
                try FileManager.default.removeItem(atPath: log)
                pages += 1
            }
        }
        #expect(pages > 30 && problems.isEmpty, "\(pages) pages: \(problems)")
    }

    @Test("the root leaf of the snapshots, its header zeroed: every state is rebuilt from the entries as the sound log's, exit 5; verify names the page")
    func snapshotsRootLeftOut() async throws {
        let (demo, _, _) = try await leafSectorZeroed("snapshots-probe.reactorlog", database: "entries")
        let log = scratch.file("snapshots-root.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        let root = try LogDamage.databaseRoot(of: log, database: "snapshots")
        // A root leaf, that both commits share: the commit before, which would hold a page of the last commit alone, is no help.
        let leaves = try LogDamage.leafPages(of: log, database: "snapshots"), before = try LogDamage.databaseRoot(of: log, database: "snapshots", in: .other)
        try #require(leaves == [root] && before == root)
        try LogDamage.zeroFirstSector(of: log, page: root)
        for command in [["state", "--at", "3000"], ["state", "--at", "5999"], ["log", "--from", "2990", "--to", "3010"]] {
            let damaged = try await Tool.run([command[0], log] + command.dropFirst()), sound = try await Tool.run([command[0], demo] + command.dropFirst())
            #expect(damaged.status == 5 && damaged.output == sound.output && sound.status == 0, "\(command): \(damaged.error)")
            #expect(damaged.error.contains("(page \(root) of database 'snapshots' is neither a branch nor a leaf page (flags 0))"), "\(damaged.error)")
        }
        let verified = try await Tool.run(["verify", log])
        #expect(verified.status == 1 && verified.lines.first?.contains("database 'snapshots'") == true, "\(verified.output)")
    }

    @Test("a stream index page whose header a zeroed sector took: listings and time travel as the sound log's, exit 5; verify names the index")
    func indexPageLeftOut() async throws {
        let (demo, log, page) = try await leafSectorZeroed("index-page.reactorlog", database: "stream-index")
        for command in [["log"], ["state", "--at", "3000"], ["blame", "value", "--stream", "counter", "-n", "3"]] {
            let damaged = try await Tool.run([command[0], log] + command.dropFirst()), sound = try await Tool.run([command[0], demo] + command.dropFirst())
            #expect(damaged.status == 5 && damaged.output == sound.output && sound.status == 0, "\(command): \(damaged.error)")
            #expect(damaged.error.hasSuffix("(page \(page) of database 'stream-index' is neither a branch nor a leaf page (flags 0)). `reactorlog compact` copies what was read into a sound file, which names the missing records as damage.\n"), "\(command): \(damaged.error)")
        }
        let verified = try await Tool.run(["verify", log])
        #expect(verified.status == 1 && verified.output.contains("the index block of stream '"), "\(verified.output)")
    }
}

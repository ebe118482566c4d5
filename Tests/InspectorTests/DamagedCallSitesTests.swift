import EventLogKit
import Foundation
import TestSupport
import Testing

/// A log whose call sites' pages alone are damaged, read without them. The demo log keeps its sites on one page, shared
/// by every commit after the first actions: before 2026-12-06 a zeroed sector at its start (storage that loses power
/// mid-write) left every command nothing to read (`Nothing was read; restore the log from a copy`), though every entry
/// was whole. Since 2026-12-06 such a page whose first sector alone is zeroed is rebuilt from its records
/// (`RebuiltPageTests`): here the whole page is lost.
@Suite("Reading a log without its damaged call sites", .serialized, .timeLimit(.minutes(2)))
struct DamagedCallSitesTests {
    let scratch = ScratchDirectory()

    /// A copy of a new demo log, named `name`, with its call sites' root page zeroed whole; the demo log's path, the
    /// copy's, and the root page's number.
    private func sitesPageZeroed(_ name: String) async throws -> (demo: String, log: String, page: Int) {
        let demo = try await Tool.demoLog(in: scratch)
        let log = scratch.file(name)
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        let page = try LogDamage.databaseRoot(of: log, database: "sites")
        try LogDamage.zeroPage(of: log, page: page)
        return (demo, log, page)
    }

    @Test("the call sites' page zeroed whole: every command reads the rest whole, one line, exit 5; verify names it; compact is refused, export and import save the rest; the Python reader too")
    func sitesPageZeroed() async throws {
        let (demo, log, page) = try await sitesPageZeroed("sites-zeroed.reactorlog")
        let before = try Data(contentsOf: URL(fileURLWithPath: log + "/data.mdb"))
        // The page's zeroed number or flags, whichever the walk reads first (the demo's layout varies with timing).
        let problem = try #require(EventLog.openWithoutCallSites(at: log)?.problem)
        #expect(problem.hasPrefix("its data.mdb has a damaged page structure (page \(page) "), "\(problem)")
        let said = "reactorlog: \(log) was read whole but for its actions' call sites, whose pages are damaged; LMDB refuses the log as it is: \(problem)."
        let hint = " `reactorlog export` and `reactorlog import` copy what was read, without call sites, into a sound log.\n"
        // What shows no call site reads as the sound log, and says what was read in one line.
        for command in [["log"], ["state", "--at", "20", "--stream", "search"], ["diff", "3", "30", "--stream", "search"],
                        ["blame", "nextPage", "--stream", "search"], ["info"], ["show", "17"]] {
            let damaged = try await Tool.run([command[0], log] + command.dropFirst()), sound = try await Tool.run([command[0], demo] + command.dropFirst())
            #expect(damaged.status == 5 && damaged.output.replacingOccurrences(of: log, with: demo) == sound.output && sound.status == 0, "\(command): \(damaged.error)")
            #expect(damaged.error == said + hint, "\(command): \(damaged.error)")
        }
        // Each action's site is left out and counted, never shown as an action that recorded none.
        let listed = try await Tool.run(["log", log, "--json"]), sound = try await Tool.run(["log", demo, "--json"])
        let sites = sound.lines.filter { $0.contains("\"callSite\":") }.count
        #expect(sites > 10)
        #expect(listed.status == 5 && listed.lines == sound.lines.map { $0.replacingOccurrences(of: #""callSite":"[^"]*","#, with: "", options: .regularExpression) })
        #expect(listed.error.hasPrefix("reactorlog: \(sites) actions' call sites were left out, the rest listed: Entry #2 is corrupt: its call site, number 1, is damaged or missing from the log."), "\(listed.error)")
        #expect(listed.error.hasSuffix(said.dropFirst("reactorlog: ".count) + "\n") && listed.error.filter { $0 == "\n" }.count == 1, "\(listed.error)")
        let verified = try await Tool.run(["verify", log])
        #expect(verified.status == 1 && verified.lines.first?.hasPrefix("error: LMDB refuses the log as it is (\(problem)): the damaged pages are its call sites'") == true, "\(verified.output)")
        // LMDB's compacting copy would walk the damaged pages: refused, nothing made; an export and an import save the rest.
        let compacted = scratch.file("sites-compacted.reactorlog")
        let compact = try await Tool.run(["compact", log, compacted])
        #expect(compact.status == 5 && compact.error.hasPrefix("reactorlog: Cannot compact \(log): LMDB's copy would read the damaged pages of its call sites.") && !FileManager.default.fileExists(atPath: compacted), "\(compact.error)")
        let export = scratch.file("sites-zeroed.jsonl"), saved = scratch.file("sites-saved.reactorlog")
        #expect(try await Tool.run(["export", log, "--out", export]).status == 5)
        #expect(try await Tool.run(["import", export, saved]).status == 0)
        #expect(try await Tool.run(["verify", saved]).status == 0)
        #expect(try await Tool.run(["log", saved, "--json"]).lines == listed.lines)
        // The FORMAT.md reader in Python reads it so too, each such site shown as unknown.
        let python = try await Tool.python("read-log.py", [log]), pythonSound = try await Tool.python("read-log.py", [demo])
        let unknown = pythonSound.lines.map { $0.replacingOccurrences(of: " @ .*$", with: " @ ?", options: .regularExpression) }
        #expect(python.status == 1 && python.lines == unknown && unknown != pythonSound.lines, "\(python.error)")
        #expect(python.error == String(said.dropFirst("reactorlog: ".count).dropLast()) + "\n", "\(python.error)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: log + "/data.mdb")) == before)
    }

    @Test("the library reads such a log in place without its call sites, each action's site damage; a sound log, or one damaged elsewhere too, is not read so")
    func libraryReadsWithoutSites() async throws {
        let (demo, log, _) = try await sitesPageZeroed("sites-zeroed-library.reactorlog")
        #expect(throws: EventLogError.self) { try EventLog.openReadOnly(at: log) }
        let read = try #require(EventLog.openWithoutCallSites(at: log))
        #expect(read.problem.hasPrefix("its data.mdb has a damaged page structure ("))
        let sound = try EventLog.openReadOnly(at: demo)
        #expect(try read.log.readEntries().map(\.sequence) == sound.readEntries().map(\.sequence))
        #expect(try sound.callSite(at: 2) == "reactorlog/Demo.swift:82")
        #expect(throws: EventLogError.self) { try read.log.callSite(at: 2) }
        #expect(try read.log.hasCallSites())
        #expect(EventLog.openWithoutCallSites(at: demo) == nil)
        // LMDB's copy would read the damaged pages: refused before it makes anything.
        let copy = scratch.file("sites-zeroed-copy.reactorlog")
        #expect(throws: EventLogError.self) { try read.log.copy(to: copy) }
        #expect(!FileManager.default.fileExists(atPath: copy))
        // The streams' page zeroed as well: the damage is not the call sites' alone.
        try LogDamage.zeroPage(of: log, page: try LogDamage.databaseRoot(of: log, database: "streams"))
        #expect(EventLog.openWithoutCallSites(at: log) == nil)
    }
}

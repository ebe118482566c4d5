import EventLogKit
import Foundation
import TestSupport
import Testing

/// A log one of whose pages cannot be read, read whole from a copy with that page rebuilt: a branch from the pages under
/// it, a root leaf whose header alone is damaged from its records. Before 2026-12-06 a zeroed sector at the start of a
/// branch page both commits share refused the whole log, and one of the last commit's was read as the commit before,
/// without the last commit's entries; at the start of the one page of `meta` or `streams`, it refused the whole log.
@Suite("Reading a copy with a damaged page rebuilt", .serialized, .timeLimit(.minutes(2)))
struct RebuiltPageTests {
    let scratch = ScratchDirectory()

    /// A demo log of 1,500 actions (6,002 entries) and one entry more in a commit of its own, whose `entries` and stream
    /// index are each a root branch over several leaves.
    private func demo() async throws -> String {
        let demo = scratch.file("demo-1500.reactorlog")
        try await DemoLog.withLastCommitApart(at: demo, actions: 1500)
        return demo
    }

    @Test("a root branch whose header a zeroed sector took, of the entries or of the stream index: every command reads the whole log as the sound one, exit 5, one line naming the page; compact saves a sound log", arguments: ["entries", "stream-index"])
    func rootBranchRebuilt(database: String) async throws {
        let demo = try await demo()
        let log = scratch.file("\(database)-root.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        let root = try LogDamage.databaseRoot(of: log, database: database)
        let leaves = try LogDamage.leafPages(of: log, database: database)
        try #require(leaves.count > 2 && !leaves.contains(root))
        try LogDamage.zeroFirstSector(of: log, page: root)
        let problem = "its data.mdb has a branch page that cannot be read (page \(root) of database '\(database)' is neither a branch nor a leaf page (flags 0)), rebuilt from the \(leaves.count) pages under it, which nothing else reaches"
        let read = "reactorlog: \(log) was read whole, from a copy with that record mended; LMDB refuses the log as it is: \(problem). `reactorlog compact` copies what was read into a sound log.\n"
        for command in [["log"], ["state", "--at", "6003"], ["state", "--at", "3000"], ["blame", "value", "--stream", "counter", "-n", "3"]] {
            let damaged = try await Tool.run([command[0], log] + command.dropFirst()), sound = try await Tool.run([command[0], demo] + command.dropFirst())
            #expect(sound.status == 0 && !sound.output.isEmpty)
            #expect(damaged.status == 5 && damaged.output == sound.output && damaged.error == read, "\(command): \(damaged.error)")
        }
        let verified = try await Tool.run(["verify", log])
        #expect(verified.status == 1 && verified.lines.first?.hasPrefix("error: LMDB refuses the log as it is (\(problem)): what follows is the log read whole from a copy with that record mended") == true, "\(verified.output)")
        // compact saves what was read: a sound log, every entry in it.
        let saved = scratch.file("\(database)-root-saved.reactorlog")
        #expect(try await Tool.run(["compact", log, saved]).status == 5)
        #expect(try await Tool.run(["verify", saved]).status == 0)
        #expect(try await Tool.run(["log", saved]).output == (try await Tool.run(["log", demo])).output)
    }

    @Test("a root leaf whose first sector is zeroed, of meta, streams, call sites or snapshots: every command reads the whole log as the sound one, call sites and all, exit 5, one line naming the page", arguments: ["meta", "streams", "sites", "snapshots"])
    func rootLeafRebuilt(database: String) async throws {
        let demo = try await Tool.demoLog(in: scratch)
        let log = scratch.file("\(database)-root-leaf.reactorlog")
        try FileManager.default.copyItem(atPath: demo, toPath: log)
        let root = try LogDamage.databaseRoot(of: log, database: database)
        try #require(try LogDamage.leafPages(of: log, database: database) == [root])
        try LogDamage.zeroFirstSector(of: log, page: root)
        let problem = try #require(EventLog.openMended(at: log, copyingInto: try staging("\(database)-staging"))?.problem)
        #expect(problem.hasPrefix("its data.mdb has a leaf page whose header cannot be read (page \(root) of database '\(database)' is neither a branch nor a leaf page (flags 0)), rebuilt from the "), "\(problem)")
        let read = "reactorlog: \(log) was read whole, from a copy with that record mended; LMDB refuses the log as it is: \(problem). `reactorlog compact` copies what was read into a sound log.\n"
        for command in [["log", "--json"], ["state", "--at", "20", "--stream", "search"], ["blame", "nextPage", "--stream", "search"], ["info"]] {
            let damaged = try await Tool.run([command[0], log] + command.dropFirst()), sound = try await Tool.run([command[0], demo] + command.dropFirst())
            #expect(sound.status == 0 && !sound.output.isEmpty)
            #expect(damaged.status == 5 && damaged.output.replacingOccurrences(of: log, with: demo) == sound.output && damaged.error == read, "\(command): \(damaged.error)")
        }
    }

    /// An empty directory for a copy, named `name`.
    private func staging(_ name: String) throws -> String {
        let directory = scratch.file(name)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        return directory
    }
}

import EventLogKit
import Foundation
import TestSupport
import Testing

/// The shipped inspector and FORMAT.md's Python reader read a log of the first record layout (a fixture written
/// by the release before the compact layout) exactly as that release did.
@Suite("Version-1 fixture", .timeLimit(.minutes(2)))
struct VersionOneFixtureTests {
    let scratch = ScratchDirectory()

    @Test("export writes the same lines the version-1 release wrote, and verify passes")
    func export() async throws {
        let log = try scratch.fixture("version1.reactorlog")
        #expect(try await Tool.run(["verify", log]).status == 0)
        let output = scratch.file("now.jsonl")
        #expect(try await Tool.run(["export", log, "--out", output]).status == 0)
        let now = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        let then = try ScratchDirectory.fixtureText("version1.export.jsonl").split(separator: "\n")
        #expect(now.count == then.count && now.count == 72)
        // The header names the exporting library; every other line is the log's own, but for the exact digits of
        // the snapshots' times, which exports carry since 2026-12-07.
        let lines = now.dropFirst().map { line in
            String(line.hasPrefix(#"{"snapshot""#) ? line.replacing(#/,"timestampNanoseconds":"\d+"/#, with: "") : line)
        }
        #expect(lines == then.dropFirst().map(String.init))
    }

    @Test("a reader that had it open when another process's writer converted its index gets a sentence saying to reopen it")
    func convertedUnderReader() async throws {
        let path = try scratch.fixture("version1.reactorlog")
        let reader = try EventLog.openReadOnly(at: path)
        #expect(try reader.sequences(stream: "search", kinds: [.mutation]).count == 45)
        // `trim` opens the log for writing, which converts the index and drops the old one.
        let trim = try await Tool.run(["trim", path, "--before", "1"])
        #expect(trim.status == 0, "\(trim.error)")
        #expect {
            _ = try reader.sequences(stream: "search", kinds: [.mutation])
        } throws: { error in
            "\(error)".contains("converted the log while it was open here; open it again")
        }
        try reader.close()
    }

    @Test("the Python reader reads it from FORMAT.md alone")
    func pythonReader() async throws {
        let result = try await Tool.python("read-log.py", [try scratch.fixture("version1.reactorlog")])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("format 1, codec json"))
        #expect(result.output.contains(#"#3 search mutation setQuery {"setQuery":{"_0":"q0"}} <- #2"#))
        #expect(result.output.hasSuffix("5 snapshots, all checksums match\n"))
    }
}

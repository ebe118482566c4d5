import Foundation
import TestSupport
import Testing

/// Files the inspector writes: new and private, never through a symbolic link, never over a file unasked.
@Suite("reactorlog safe output", .timeLimit(.minutes(2)))
struct SafeOutputTests {
    let scratch = ScratchDirectory()
    let demo: String

    init() async throws {
        demo = try await Tool.demoLog(in: scratch)
    }

    func permissions(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test("export writes a new file with the log's permissions and leaves no staging file behind")
    func newFileTakesTheLogsMode() async throws {
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: demo + "/data.mdb")
        let out = scratch.file("out.jsonl")
        let result = try await Tool.run(["export", demo, "--output", out])
        #expect(result.status == 0, "\(result.error)")
        #expect(try permissions(out) == 0o600)
        #expect(try String(contentsOfFile: out, encoding: .utf8).hasPrefix(#"{"reactorlog":"#))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasSuffix(".partial") }
        #expect(leftovers.isEmpty)
    }

    @Test("an existing file is kept unless --force, which replaces it")
    func existingFile() async throws {
        let out = scratch.file("keep.jsonl")
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: out))
        let refused = try await Tool.run(["export", demo, "--output", out])
        #expect(refused.status == 2)
        #expect(refused.error.contains("already exists"))
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "precious\n")
        #expect(try await Tool.run(["export", demo, "--output", out, "--force"]).status == 0)
        #expect(try String(contentsOfFile: out, encoding: .utf8).hasPrefix(#"{"reactorlog":"#))
    }

    @Test("a symbolic link is never replaced nor written through, even with --force")
    func symbolicLink() async throws {
        let target = scratch.file("target.txt")
        try Data("target\n".utf8).write(to: URL(fileURLWithPath: target))
        let link = scratch.file("link.jsonl")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        for extra in [[], ["--force"]] {
            let result = try await Tool.run(["export", demo, "--output", link] + extra)
            #expect(result.status == 2, "\(result.error)")
            #expect(result.error.contains("symbolic link") || result.error.contains("already exists"))
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "target\n")
    }
}

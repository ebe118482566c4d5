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
        let result = try await Tool.run(["export", demo, "--out", out])
        #expect(result.status == 0, "\(result.error)")
        #expect(try permissions(out) == 0o600)
        #expect(try String(contentsOfFile: out, encoding: .utf8).hasPrefix(#"{"reactorlog":"#))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasSuffix(".partial") }
        #expect(leftovers.isEmpty)
    }

    /// Before 2026-12-04 every command's refusal said `Choose another --output`, though `pack` and `timeline` take
    /// `--out`.
    @Test("an existing file is kept unless --force, which replaces it; the refusal names the command's own option")
    func existingFile() async throws {
        let out = scratch.file("keep.jsonl")
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: out))
        let refused = try await Tool.run(["export", demo, "--out", out])
        #expect(refused.status == 2)
        #expect(refused.error.contains("already exists. Choose another --out, or pass --force to replace it."), "\(refused.error)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "precious\n")
        #expect(try await Tool.run(["export", demo, "--out", out, "--force"]).status == 0)
        #expect(try String(contentsOfFile: out, encoding: .utf8).hasPrefix(#"{"reactorlog":"#))
        for command in [["pack", demo], ["timeline", demo, "--stream", "search"]] {
            let again = try await Tool.run(command + ["--out", out])
            #expect(again.status == 2 && again.error.contains("already exists. Choose another --out, or pass --force"), "\(command): \(again.error)")
        }
        #expect(try String(contentsOfFile: out, encoding: .utf8).hasPrefix(#"{"reactorlog":"#))
    }

    /// Before 2026-12-06 `export` alone took `--output` (and `pack` and `demo` no `-o`): `--out FILE` failed on it.
    @Test("every command that writes a file takes -o and --out; export still takes --output")
    func oneNameForTheOutput() async throws {
        for (index, name) in ["-o", "--out", "--output"].enumerated() {
            let file = scratch.file("named\(index).jsonl")
            let result = try await Tool.run(["export", demo, "--stream", "todo", name, file])
            #expect(result.status == 0, "\(name): \(result.error)")
            #expect(try String(contentsOfFile: file, encoding: .utf8).hasPrefix(#"{"reactorlog":"#), "\(name)")
        }
        let pack = scratch.file("short.pack")
        #expect(try await Tool.run(["pack", demo, "-o", pack]).status == 0)
        #expect(FileManager.default.fileExists(atPath: pack))
        let page = scratch.file("short.html")
        #expect(try await Tool.run(["timeline", demo, "--stream", "search", "-o", page]).status == 0)
        #expect(FileManager.default.fileExists(atPath: page))
        let log = scratch.file("short.reactorlog")
        #expect(try await Tool.run(["demo", "-o", log]).status == 0)
        #expect(try await Tool.run(["info", log]).status == 0)
    }

    @Test("a symbolic link is never replaced nor written through, even with --force")
    func symbolicLink() async throws {
        let target = scratch.file("target.txt")
        try Data("target\n".utf8).write(to: URL(fileURLWithPath: target))
        let link = scratch.file("link.jsonl")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        for extra in [[], ["--force"]] {
            let result = try await Tool.run(["export", demo, "--out", link] + extra)
            #expect(result.status == 2, "\(result.error)")
            #expect(result.error.contains("symbolic link") || result.error.contains("already exists"))
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "target\n")
    }

    @Test("an export interrupted or terminated before it is complete leaves nothing behind and says so, on one line whatever the file's name", arguments: [SIGINT, SIGTERM])
    func interruptedExport(signal number: Int32) async throws {
        let big = scratch.file("big-\(number).reactorlog")
        #expect(try await Tool.run(["demo", "--out", big, "--actions", "50000"]).status == 0)
        // A name with a terminal's escape and a line break: the message shows them, it does not send them.
        let out = scratch.file("big-\(number)\u{1B}[2J\n.jsonl"), errors = scratch.file("export-\(number).err")
        let export = try ChildProcess(Tool.products.appendingPathComponent("reactorlog").path, ["export", big, "--out", out], error: .file(errors))
        // Another process: nothing to await but its unfinished file, once it holds a first block (so the export is
        // well under way, its handlers long installed; bounded by the suite's limit).
        let unfinished = { try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix(".big-\(number)\u{1B}[2J\n.jsonl.") } }
        let written = { try unfinished().first.map { try FileManager.default.attributesOfItem(atPath: scratch.file($0))[.size] as? Int ?? 0 } ?? 0 }
        while try written() == 0 && !FileManager.default.fileExists(atPath: out) {
            usleep(5_000)
        }
        try #require(!FileManager.default.fileExists(atPath: out), "the export ended before it could be stopped")
        export.signal(number)
        let exit = try await export.exit()
        let message = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(exit.status == 128 + number && !exit.signalled, "\(message)")
        let event = number == SIGINT ? "interrupted" : "terminated"
        let shown = out.replacingOccurrences(of: "\u{1B}", with: "\\u{1B}").replacingOccurrences(of: "\n", with: "\\u{A}")
        #expect(message == "reactorlog: \(event); \(shown) was not written.\n", "\(message)")
        #expect(try unfinished().isEmpty && !FileManager.default.fileExists(atPath: out))
    }
}

extension SafeOutputTests {
    @Test("a compact whose copy fails midway (the file size limit, as a full disk) leaves nothing and names the destination")
    func failedCompact() async throws {
        let destination = scratch.file("cut.reactorlog"), errors = scratch.file("compact.err")
        let reactorlog = Tool.products.appendingPathComponent("reactorlog").path
        // A limit of a few blocks: the copy's writes past it fail with EFBIG.
        let compact = try ChildProcess(
            "/bin/sh", ["-c", #"ulimit -f 8 && exec "$0" compact "$1" "$2""#, reactorlog, demo, destination], error: .file(errors))
        let exit = try await compact.exit()
        let message = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(exit.status == 3 && !exit.signalled, "\(message)")
        #expect(message.hasPrefix("reactorlog: LMDB error on \(destination): mdb_env_copyfd2 failed: File too large"), "\(message)")
        #expect(!FileManager.default.fileExists(atPath: destination))
        #expect(try await Tool.run(["verify", demo]).status == 0)
    }
}

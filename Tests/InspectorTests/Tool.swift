import Foundation
import TestSupport

/// Runs a built executable as a user would: arguments, standard input, exit code, both outputs.
enum Tool {
    struct Result {
        let status: Int32
        /// Whether a signal ended the process (a crash), `status` then being the signal's number.
        var crashed = false
        let output: String
        let error: String

        var lines: [String] { output.split(separator: "\n").map(String.init) }
    }

    /// The directory holding the built products, next to the test bundle.
    static let products = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()

    /// Records a demo log in `scratch` with `reactorlog demo` and returns its path; a failed recording throws,
    /// so a suite never runs its commands on a missing log.
    static func demoLog(in scratch: ScratchDirectory) async throws -> String {
        let path = scratch.file("demo.reactorlog")
        let result = try await run(["demo", "--out", path])
        guard result.status == 0 else { throw DemoFailed(message: result.error) }
        return path
    }

    /// `reactorlog demo` failed.
    struct DemoFailed: Error {
        let message: String
    }

    /// The repository's Tools/scripts directory.
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tools/scripts")

    /// Runs one of Tools/scripts' Python scripts with Debian's Python, where Tools/scripts/setup.sh installs the
    /// packages they import (lmdb, selenium); with the first `python3` on the path elsewhere.
    static func python(_ script: String, _ arguments: [String]) async throws -> Result {
        let debian = "/usr/bin/python3"
        let interpreter = FileManager.default.isExecutableFile(atPath: debian) ? debian : "/usr/bin/env"
        let prefix = interpreter == debian ? [] : ["python3"]
        return try await run(URL(fileURLWithPath: interpreter), prefix + [scripts.appendingPathComponent(script).path] + arguments)
    }

    /// Runs `reactorlog` to completion.
    static func run(_ arguments: [String], input: Data = Data()) async throws -> Result {
        try await run("reactorlog", arguments, input: input)
    }

    /// Runs `tool` to completion; its outputs go to temporary files, so no pipe can fill up and stall it.
    static func run(_ tool: String, _ arguments: [String], input: Data = Data()) async throws -> Result {
        try await run(products.appendingPathComponent(tool), arguments, input: input)
    }

    /// Runs the executable at `url` to completion (``ChildProcess``, not Foundation's `Process`, whose start can
    /// crash the test process on Linux).
    static func run(_ url: URL, _ arguments: [String], input: Data = Data(), environment extra: [String: String] = [:]) async throws -> Result {
        var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        environment["NO_COLOR"] = "1"
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        let outputURL = scratch.appendingPathExtension("out"), errorURL = scratch.appendingPathExtension("err"), inputURL = scratch.appendingPathExtension("in")
        defer { for url in [outputURL, errorURL, inputURL] { try? FileManager.default.removeItem(at: url) } }
        try input.write(to: inputURL)
        let child = try ChildProcess(
            url.path, arguments, environment: environment, input: .file(inputURL.path), output: .file(outputURL.path), error: .file(errorURL.path))
        let exit = try await child.exit()
        var result = Result(
            status: exit.status,
            output: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
            error: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self))
        result.crashed = exit.signalled
        return result
    }
}

import Foundation
import TestSupport
import Testing

@Suite("reactorlog tail --follow", .timeLimit(.minutes(1)))
struct FollowTests {
    @Test("tail --follow prints every entry another process writes, once, in order, as it is committed")
    func followsAnotherWriter() async throws {
        let scratch = ScratchDirectory()
        let log = scratch.file("live.reactorlog")
        let writer = try WriterProcess(log: log)
        defer { writer.stop() }

        let tail = Process()
        tail.executableURL = Tool.products.appendingPathComponent("reactorlog")
        tail.arguments = ["tail", log, "--follow", "--json", "-n", "5"]
        let output = Pipe()
        tail.standardOutput = output
        let errors = scratch.file("tail.err")
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        tail.standardError = FileHandle(forWritingAtPath: errors)
        try tail.run()
        defer {
            tail.terminate()
            tail.waitUntilExit()
        }
        var text = ""
        var sequences: [Int] = []
        while sequences.count < 2000 {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            text += String(decoding: data, as: UTF8.self)
            while let newline = text.firstIndex(of: "\n") {
                let line = text[..<newline]
                text.removeSubrange(...newline)
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                sequences.append(try #require(object?["sequence"] as? Int))
            }
        }
        let ended = tail.isRunning ? "still running" : "ended with \(tail.terminationStatus)"
        #expect(sequences.count >= 2000, "tail \(ended); it said: \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 + 1 })
    }
}

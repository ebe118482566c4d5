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

        let output = Pipe()
        let errors = scratch.file("tail.err")
        let tail = try ChildProcess(
            Tool.products.appendingPathComponent("reactorlog").path, ["tail", log, "--follow", "--json", "-n", "5"],
            output: .pipe(output), error: .file(errors))
        var sequences: [Int] = []
        let lines = LineReader(output)
        let reading = Result { () throws in
            while sequences.count < 2000, let line = lines.next() {
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                sequences.append(try #require(object?["sequence"] as? Int))
            }
        }
        // A follow never ends by itself: stop it, then say how it ended (by this signal, unless it failed first).
        tail.signal(SIGTERM)
        let exit = try await tail.exit()
        try reading.get()
        #expect(sequences.count >= 2000, "tail ended with \(exit); it said: \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 + 1 })
    }
}

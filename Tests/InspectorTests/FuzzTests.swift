import Foundation
import TestSupport
import Testing

/// The suite's short fuzz runs. Longer runs with libFuzzer: Tools/scripts/fuzz.sh (figures in docs/PERFORMANCE.md).
@Suite("fuzzing", .serialized, .timeLimit(.minutes(3)))
struct FuzzTests {
    let scratch = ScratchDirectory()

    @Test("the decoders of records, keys, JSON, state paths and export lines survive 300 000 mutated inputs")
    func decoders() async throws {
        // A new seed each run widens what the suite covers over time; a failure prints it, to repeat the run.
        let seed = UInt64.random(in: 1...UInt64.max)
        let result = try await Tool.run("reactorlog-fuzz", ["--mutate", "300000", "--seed", String(seed)])
        #expect(!result.crashed && result.status == 0, "seed \(seed): \(result.error)")
        #expect(result.output.contains("300000 inputs, no crash"))
    }

    @Test("import takes a mutated export whole or refuses it in one line; what it takes verifies")
    func importCorpus() async throws {
        let demo = try await Tool.demoLog(in: scratch)
        let export = scratch.file("demo.jsonl")
        #expect(try await Tool.run(["export", demo, "--stream", "search", "--out", export]).status == 0)
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: export)))
        let seed = UInt64.random(in: 1...UInt64.max)
        var generator = Xorshift(state: seed)
        var imported = 0
        for trial in 0..<60 {
            var bytes = original
            for _ in 0...Int.random(in: 0...3, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0...3, using: &generator) {
                case 0: bytes[index] ^= UInt8(1 << Int.random(in: 0...7, using: &generator))
                case 1: bytes.remove(at: index)
                case 2: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: index)
                default: bytes.removeLast(Int.random(in: 0...(bytes.count - index - 1), using: &generator))
                }
            }
            let file = scratch.file("mutated-\(trial).jsonl")
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            let target = scratch.file("imported-\(trial).reactorlog")
            let result = try await Tool.run(["import", file, target])
            #expect(!result.crashed, "seed \(seed) trial \(trial) crashed: \(result.error)")
            #expect([0, 2, 4].contains(result.status), "seed \(seed) trial \(trial): exit \(result.status): \(result.error)")
            if result.status == 0 {
                imported += 1
                let verify = try await Tool.run(["verify", target])
                #expect(verify.status == 0, "seed \(seed) trial \(trial) imported a log that does not verify: \(verify.output)")
            } else {
                #expect(result.error.split(separator: "\n").count == 1, "seed \(seed) trial \(trial): \(result.error)")
                #expect(!FileManager.default.fileExists(atPath: target), "seed \(seed) trial \(trial) left a partial log behind")
            }
        }
        // Some mutations (inside a string, say) keep the file valid: those must import and verify.
        #expect(imported < 60)
    }
}


import Foundation
import TestSupport
import Testing

/// A log attached to a bug report may be cut short or damaged: no command may crash on it.
@Suite("reactorlog on damaged files", .timeLimit(.minutes(3)))
struct DamagedFileTests {
    let scratch = ScratchDirectory()

    @Test("a data file truncated anywhere is refused with one line and exit 5, never a crash")
    func truncationSweep() throws {
        let demo = scratch.file("demo.reactorlog")
        #expect(try Tool.run(["demo", "--out", demo]).status == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: demo + "/data.mdb"))
        var generator = SystemRandomNumberGenerator()
        // Every page boundary, and random cuts inside pages, from just past the two meta pages.
        let pageCuts = stride(from: 8192, to: data.count, by: 4096).map { $0 }
        let randomCuts = (0..<24).map { _ in Int.random(in: 8193..<data.count, using: &generator) }
        var crashes: [String] = []
        for (index, cut) in (pageCuts + randomCuts).enumerated() {
            let copy = scratch.file("cut-\(index).reactorlog")
            try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
            try data.prefix(cut).write(to: URL(fileURLWithPath: copy + "/data.mdb"))
            for command in [["info", copy], ["log", copy], ["verify", copy], ["export", copy]] {
                let result = try Tool.run(command)
                if result.crashed { crashes.append("\(command[0]) at \(cut) bytes: signal \(result.status)") }
                #expect(result.status == 5, "\(command[0]) at \(cut): \(result.error)")
                #expect(result.error.contains("is truncated"), "\(command[0]) at \(cut): \(result.error)")
                #expect(result.error.filter { $0 == "\n" }.count == 1)
            }
        }
        #expect(crashes.isEmpty, "\(crashes)")
    }

    @Test("a file with damaged meta pages, or not LMDB at all, is refused before LMDB maps it")
    func damagedMeta() throws {
        let demo = scratch.file("meta.reactorlog")
        #expect(try Tool.run(["demo", "--out", demo]).status == 0)
        var data = try Data(contentsOf: URL(fileURLWithPath: demo + "/data.mdb"))
        for offset in [20, 4096 + 20] { data[offset] ^= 0xFF }   // both versions: LMDB's magic, damaged
        try data.write(to: URL(fileURLWithPath: demo + "/data.mdb"))
        let damaged = try Tool.run(["info", demo])
        #expect(damaged.status == 5, "\(damaged.error)")
        #expect(damaged.error.contains("has damaged meta pages"), "\(damaged.error)")
        for offset in [16, 4096 + 16] { data[offset] ^= 0xFF }   // and both magics: not LMDB at all
        try data.write(to: URL(fileURLWithPath: demo + "/data.mdb"))
        let foreign = try Tool.run(["info", demo])
        #expect(foreign.status == 3, "\(foreign.error)")
        #expect(foreign.error.contains("is not an LMDB file"), "\(foreign.error)")
    }
}

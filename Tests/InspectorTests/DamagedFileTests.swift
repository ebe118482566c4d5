import Foundation
import TestSupport
import Testing

// The limit guards against a hang: these sweeps start hundreds of processes, and on a CI machine whose two cores the
// whole suite shares, the longest took 176 s of three minutes.
/// A log attached to a bug report may be cut short or damaged: no command may crash on it.
@Suite("reactorlog on damaged files", .timeLimit(.minutes(6)))
struct DamagedFileTests {
    let scratch = ScratchDirectory()

    @Test("a data file truncated anywhere is refused with one line and exit 5, never a crash")
    func truncationSweep() async throws {
        let demo = scratch.file("demo.reactorlog")
        #expect(try await Tool.run(["demo", "--out", demo]).status == 0)
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
                let result = try await Tool.run(command)
                if result.crashed { crashes.append("\(command[0]) at \(cut) bytes: signal \(result.status)") }
                #expect(result.status == 5, "\(command[0]) at \(cut): \(result.error)")
                #expect(result.error.contains("is truncated"), "\(command[0]) at \(cut): \(result.error)")
                #expect(result.error.filter { $0 == "\n" }.count == 1)
            }
        }
        #expect(crashes.isEmpty, "\(crashes)")
    }

    @Test("a file with damaged meta pages, or not LMDB at all, is refused before LMDB maps it")
    func damagedMeta() async throws {
        let demo = scratch.file("meta.reactorlog")
        #expect(try await Tool.run(["demo", "--out", demo]).status == 0)
        var data = try Data(contentsOf: URL(fileURLWithPath: demo + "/data.mdb"))
        for offset in [20, 4096 + 20] { data[offset] ^= 0xFF }   // both versions: LMDB's magic, damaged
        try data.write(to: URL(fileURLWithPath: demo + "/data.mdb"))
        let damaged = try await Tool.run(["info", demo])
        #expect(damaged.status == 5, "\(damaged.error)")
        #expect(damaged.error.contains("has damaged meta pages"), "\(damaged.error)")
        for offset in [16, 4096 + 16] { data[offset] ^= 0xFF }   // and both magics: not LMDB at all
        try data.write(to: URL(fileURLWithPath: demo + "/data.mdb"))
        // In a directory a writer left its lock file in, that is damage to a log (exit 5); without it, some other file.
        let lost = try await Tool.run(["info", demo])
        #expect(lost.status == 5 && lost.error.contains("is damaged: its data.mdb is not an LMDB file"), "\(lost.error)")
        try FileManager.default.removeItem(atPath: demo + "/writer.lock")
        let foreign = try await Tool.run(["info", demo])
        #expect(foreign.status == 3, "\(foreign.error)")
        #expect(foreign.error.contains("is not a ReactorLog log: its data.mdb is not an LMDB file"), "\(foreign.error)")
    }

    @Test("every byte of both meta pages, damaged: no crash; a damaged page size in the current one is named")
    func metaByteSweep() async throws {
        let demo = scratch.file("sweep.reactorlog")
        #expect(try await Tool.run(["demo", "--out", demo]).status == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: demo + "/data.mdb"))
        let copy = scratch.file("flipped.reactorlog")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
        var crashes: [String] = []
        // LMDB makes current the meta page with the higher transaction id (byte 144) and then trusts its page size
        // (byte 40): damaged there, it divided by zero or read past its map, whatever the other page said.
        for offset in Array(0..<152) + Array(4096..<4096 + 152) {
            var flipped = data
            flipped[offset] ^= 0xFF
            try flipped.write(to: URL(fileURLWithPath: copy + "/data.mdb"))
            let result = try await Tool.run(["info", copy])
            if result.crashed { crashes.append("byte \(offset): signal \(result.status)") }
            #expect(result.error.filter { $0 == "\n" }.count <= 1, "byte \(offset): \(result.error)")
        }
        #expect(crashes.isEmpty, "\(crashes)")
        let transactions = [0, 4096].map { page in data[(page + 144)..<(page + 152)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        let current = transactions[1] > transactions[0] ? 4096 : 0
        for size in [UInt32(0), 4097, 1 << 20] {
            var damaged = data
            withUnsafeBytes(of: size.littleEndian) { damaged.replaceSubrange((current + 40)..<(current + 44), with: $0) }
            try damaged.write(to: URL(fileURLWithPath: copy + "/data.mdb"))
            let result = try await Tool.run(["info", copy])
            #expect(result.status == 5, "\(size): \(result.error)")
            #expect(result.error.contains("has a damaged meta page: its page size is \(size)"), "\(result.error)")
        }
    }

    @Test("random byte flips anywhere past the meta pages: no command crashes, and verify reports every flip that changes an export")
    func byteFlipSweep() async throws {
        // 12 000 entries: trees deep enough to have branch pages, whose page numbers LMDB follows unchecked.
        let log = scratch.file("flips.reactorlog")
        #expect(try await Tool.run(["demo", "--out", log, "--actions", "3000", "--durability", "nosync"]).status == 0)
        let cleanExport = scratch.file("clean.jsonl")
        #expect(try await Tool.run(["export", log, "--out", cleanExport]).status == 0)
        let clean = try Data(contentsOf: URL(fileURLWithPath: cleanExport))
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: log + "/data.mdb")))
        let seed = UInt64.random(in: 1...UInt64.max)
        var generator = Xorshift(state: seed)
        let flips = (0..<60).map { _ in
            (offset: Int.random(in: 8192..<original.count, using: &generator), mask: UInt8.random(in: 1...255, using: &generator))
        }
        // Two trials at a time: one after another, the sweep took 176 s of its 180 s limit on a busy CI machine.
        let outcomes = try await flips.mapTwoAtATime { trial, flip in
            try await flipTrial(trial, offset: flip.offset, mask: flip.mask, original: original, clean: clean)
        }
        let crashes = outcomes.flatMap(\.crashes), unreported = outcomes.flatMap(\.unreported), refused = outcomes.count(where: \.refused)
        #expect(crashes.isEmpty, "seed \(seed): \(crashes)")
        #expect(unreported.isEmpty, "seed \(seed): verify said OK, but the export changed: \(unreported)")
        #expect(refused > 0, "some flips damage what a command reads, which it refuses (exit 5)")
    }

    @Test("random byte flips: no time-travel command crashes, and every answer it gives with exit 0 is the sound log's")
    func timeTravelFlipSweep() async throws {
        // The demo log: three streams, snapshots every 8 mutations, the reducers `reactorlog` knows. Sweeps like this
        // one by hand found blame dying of a stack overflow, bisect leaving its mutation unshown with exit 0, and tail
        // listing 42 entries for 5.
        let log = try await Tool.demoLog(in: scratch)
        let seed = UInt64.random(in: 1...UInt64.max)
        var generator = Xorshift(state: seed)
        let (early, late) = (Int.random(in: 1...36, using: &generator), Int.random(in: 37...73, using: &generator))
        let sweep = try await AnswerSweep(log: log, commands: Self.timeTravel(early, late), in: scratch)
        let flips = (0..<60).map { _ in
            let (offset, mask) = (Int.random(in: 8192..<sweep.original.count, using: &generator), UInt8.random(in: 1...255, using: &generator))
            return AnswerSweep.Damage(name: "byte \(offset) ^ \(mask)") { $0[offset] ^= mask }
        }
        let problems = try await sweep.problems(flips)
        #expect(problems.isEmpty, "seed \(seed): \(problems)")
    }

    @Test("every page of a log zeroed, and a sector of each: no command crashes, and every answer given with exit 0 is the sound log's")
    func zeroedPageSweep() async throws {
        // Storage that loses power may leave a page, or a 512-byte sector of one, zeroed: a different damage from a bad
        // bit, to page headers, node tables and records at once. Every page past the meta pages, whole and a sector.
        let log = try await Tool.demoLog(in: scratch)
        // Bisect, whose judge is a process a probe, is left to the flip sweep: this one runs every page each time.
        let commands = [["info", "LOG"], ["log", "LOG"], ["verify", "LOG"]] + Self.timeTravel(20, 50).filter { $0[0] != "bisect" }
        let sweep = try await AnswerSweep(log: log, commands: commands, in: scratch)
        let pages = 2..<sweep.original.count / 4096
        let damages = pages.flatMap { page in
            let sector = page * 4096 + (page * 5 % 8) * 512
            return [
                AnswerSweep.Damage(name: "page \(page) zeroed") { $0.replaceSubrange(page * 4096..<(page + 1) * 4096, with: repeatElement(0, count: 4096)) },
                AnswerSweep.Damage(name: "the sector at byte \(sector) zeroed") { $0.replaceSubrange(sector..<sector + 512, with: repeatElement(0, count: 512)) },
            ]
        }
        let problems = try await sweep.problems(damages)
        #expect(problems.isEmpty, "\(problems)")
    }

    /// The time-travel commands the sweeps run on the demo log, at steps `early` (1…36) and `late` (37…73).
    static func timeTravel(_ early: Int, _ late: Int) -> [[String]] {
        let judge = "python3 '\(Tool.scripts.appendingPathComponent("unique-repos.py").path)'"
        return [
            ["state", "LOG", "--at", "\(early)"], ["state", "LOG", "--at", "\(late)", "--stream", "search", "--path", "repos.count"],
            ["diff", "LOG", "\(early)", "\(late)", "--stream", "counter"], ["log", "LOG", "--changes", "--from", "\(early)", "--to", "\(early + 12)"],
            ["blame", "LOG", "nextPage", "--stream", "search"], ["bisect", "LOG", "--stream", "search", "--run", judge],
            ["show", "LOG", "\(late)"], ["tail", "LOG", "-n", "5"],
        ]
    }

    /// What one flip did: the commands that crashed, the change verify missed, whether a command refused the copy.
    struct FlipOutcome: Sendable {
        var crashes: [String] = [], unreported: [String] = [], refused = false
    }

    /// Flips byte `offset` of a copy of `original` with `mask`, runs info, verify and export on it, and compares the
    /// export with `clean` when verify said OK.
    func flipTrial(_ trial: Int, offset: Int, mask: UInt8, original: [UInt8], clean: Data) async throws -> FlipOutcome {
        var bytes = original
        bytes[offset] ^= mask
        let copy = scratch.file("flip-\(trial).reactorlog")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
        try Data(bytes).write(to: URL(fileURLWithPath: copy + "/data.mdb"))
        let export = scratch.file("flip-\(trial).jsonl")
        var outcome = FlipOutcome()
        defer { AnswerSweep.keepOrRemove(copy, if: !outcome.crashes.isEmpty || !outcome.unreported.isEmpty) }
        var statuses: [String: Int32] = [:]
        for command in [["info", copy], ["verify", copy], ["export", copy, "--out", export]] {
            let result = try await Tool.run(command)
            statuses[command[0]] = result.status
            if result.crashed { outcome.crashes.append("\(command[0]) after flipping byte \(offset): signal \(result.status)") }
            #expect(result.error.filter { $0 == "\n" }.count <= 1, "\(command[0]) at \(offset): \(result.error)")
        }
        outcome.refused = statuses.values.contains(5)
        if statuses["verify"] == 0, statuses["export"] == 0 {
            let exported = try Data(contentsOf: URL(fileURLWithPath: export))
            // What changed, so that a rare miss can be understood from the report alone.
            if let (line, changed) = zip(clean.split(separator: 0x0A), exported.split(separator: 0x0A)).enumerated()
                .first(where: { $0.element.0 != $0.element.1 }).map({ ($0.offset + 1, String(decoding: $0.element.1, as: UTF8.self)) }) {
                outcome.unreported.append("byte \(offset) (page \(offset / 4096)): export line \(line) became \(changed.prefix(300))")
            } else if exported != clean {
                outcome.unreported.append("byte \(offset) (page \(offset / 4096)): the export's length changed")
            }
        }
        return outcome
    }
}

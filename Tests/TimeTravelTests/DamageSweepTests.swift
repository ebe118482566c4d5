import EventLogKit
import Foundation
import ReactorLog
import ReactorLogPersistence
import TestSupport
import TimeTravel
import Testing

/// Time travel over damage whose place is drawn at random, so that the layouts a loaded host's clock makes now and
/// then (a snapshot inside the damaged block, an action and its mutation on either side of a block's end, the last
/// mutation alone in its block) are met by every run, not by one in fifty.
@Suite("Time travel past random damage", .timeLimit(.minutes(3)))
struct DamageSweepTests {
    let scratch = ScratchDirectory()

    /// A ledger of 2,000 deposits, closed (its last state in a snapshot) or, `crashed`, left as a crashed app leaves
    /// it; the published states, the initial one first.
    private func ledger(_ name: String, crashed: Bool) throws -> (path: String, published: [LedgerReactor.State]) {
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = .every(mutations: 16)
        let log = try EventLog.open(at: scratch.file(name), configuration: configuration)
        let path = crashed ? scratch.file("killed-" + name) : log.path
        let published = try recordLedger(log, deposits: 2_000, crashedCopy: crashed ? path : nil)
        try log.close()
        return (path, published)
    }

    @Test(
        "past a random damaged block (and the index block over it, every other round): each state is the published one or refused, blame's report lists only true changes and covers the rest, bisect finds the bug or a range holding it",
        arguments: [false, true])
    func randomDamage(crashed: Bool) throws {
        let (source, published) = try ledger(crashed ? "crashed.reactorlog" : "closed.reactorlog", crashed: crashed)
        let healthy = try EventLog.openReadOnly(at: source)
        let mutations = try healthy.sequences(stream: "ledger", kinds: [.mutation], from: 1, through: .max)
        let balance = try StatePath(parsing: "balance")
        let truth = try TimeMachine(log: healthy, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() }).blame(balance)
        let changes = Dictionary(uniqueKeysWithValues: truth.map { ($0.mutation.sequence, $0) })
        let blocks = try LogDamage.firstNumbers(of: source, database: "entries")
        var random = Xorshift(state: crashed ? 0xC4A5_4ED : 0xC105_ED)
        for round in 0..<10 {
            let path = scratch.file("\(crashed ? "crashed" : "closed")-\(round).reactorlog")
            try FileManager.default.copyItem(atPath: source, toPath: path)
            // The block before the last and the last first, where a crash's end and the last snapshot meet (the last
            // mutation may have a block of its own), then blocks at random; the index over it too in half the rounds.
            let block = round < 4 ? blocks.count - 2 + round % 2 : Int.random(in: 0..<blocks.count, using: &random)
            let damaged = blocks[block]
            try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { keys in keys[block] }
            let withIndex = round % 4 < 2
            if withIndex { try LogDamage.damageIndexBlocks(over: damaged, in: path) }
            let machine = try TimeMachine(log: try EventLog.openReadOnly(at: path), stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
            let context = "round \(round), block from #\(damaged)\(withIndex ? " and its index" : ""), crashed: \(crashed)"

            // Every state near the damage, and some anywhere: the published one, or refused.
            let near = mutations.indices.filter { mutations[$0] + 120 >= damaged && mutations[$0] <= damaged + 400 }
            let far = (0..<30).map { _ in Int.random(in: mutations.indices, using: &random) }
            for index in near + far {
                do {
                    let state = try machine.state(at: mutations[index])
                    #expect(state == published[index + 1], "#\(mutations[index]), \(context)")
                } catch is TimeTravelError {}
            }

            // Blame's report: each change it lists is a true one, and every true change it leaves out lies in a
            // stretch it names.
            let report = try machine.blameReport(balance)
            for change in report.changes {
                let true_ = changes[change.mutation.sequence]
                #expect(true_?.old == change.old && true_?.new == change.new, "#\(change.mutation.sequence), \(context)")
            }
            let listed = Set(report.changes.map(\.mutation.sequence))
            let unaccounted = truth.map(\.mutation.sequence).filter { step in
                !listed.contains(step) && !report.unknownStretches.contains { $0.steps.contains(step) }
            }
            #expect(unaccounted.isEmpty, "\(unaccounted.prefix(5)), \(context), stretches \(report.unknownStretches.map(\.steps))")

            // Divergence: the recording's reduce reproduces every state that can be checked, none wrongly called
            // divergent; damage between two recorded states is named unchecked. A changed reduce (a deposit of 7 adds 8,
            // every ninth deposit) is found diverging.
            let same = try machine.divergenceReport()
            #expect(same.divergence == nil, "\(context): \(String(describing: same.divergence))")
            if try healthy.snapshotSequences(stream: "ledger").contains(where: { $0 > damaged }) {
                #expect(!same.unchecked.isEmpty, "\(context)")
            }
            let changed = try TimeMachine(log: machine.log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor(changedReduce: true) })
            #expect(try changed.divergenceReport().divergence != nil, "\(context)")

            // Bisect at a bug inside the damaged block and three random ones: the bug, or a range holding it; where the
            // last state cannot be rebuilt (a crash, or the last block and the index over it damaged), a bug past the
            // damage may instead be named as after the last state that can be.
            let inside = mutations.first { $0 > damaged } ?? mutations[mutations.count - 1]
            for bug in [inside] + (0..<3).map({ _ in mutations[Int.random(in: 1..<mutations.count, using: &random)] }) {
                do {
                    let result = try machine.bisect { _, step in step >= bug ? .bad : .good }
                    if let firstBad = result.firstBad {
                        #expect(firstBad == bug, "bug at #\(bug), \(context): \(result.probes)")
                    } else {
                        #expect(result.candidates.contains(bug), "bug at #\(bug), \(context): \(result.candidates)")
                    }
                } catch TimeTravelError.bisectPrecondition(let sentence) {
                    #expect(bug >= damaged && sentence.contains("the last that can be rebuilt before the damage"), "bug at #\(bug), \(context): \(sentence)")
                }
            }
        }
    }
}

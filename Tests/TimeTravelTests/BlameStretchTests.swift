import EventLogKit
import Foundation
import TestSupport
import Testing
@testable import TimeTravel

/// Blame replays a long range in stretches that start at snapshots, on several threads: its answer must be exactly
/// the one replay's, gaps and range bounds included.
@Suite("Blame in stretches", .timeLimit(.minutes(2)))
struct BlameStretchTests {
    let scratch = ScratchDirectory()

    /// Each change as `#mutation old→new`, where blames differ.
    func summary(_ changes: [BlameEntry]) -> String {
        changes.map { "#\($0.mutation.sequence) \($0.old.map(String.init(describing:)) ?? "-")→\($0.new.map(String.init(describing:)) ?? "-")" }
            .joined(separator: " ")
    }

    @Test("cut at every snapshot and run on four threads, blame finds exactly what one replay finds: across a gap, and where replay and snapshots disagree")
    func sameAsOneReplay() throws {
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = .every(mutations: 10)
        let log = try EventLog.open(at: scratch.file("stretches.reactorlog"), configuration: configuration)
        // Recorded with a reduce that takes a million off the balance at deposit 170, replayed with one that does not:
        // from there on, the snapshots a stretch starts from hold what replay never reaches.
        _ = try recordLedger(log, deposits: 300, bugAtDeposit: 170)
        try log.removeEntries(250..<300)
        #expect(try log.gaps(stream: "ledger").count == 1)
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let last = try machine.lastStep()
        for path in ["deposits", "balance", "last"] {
            for (from, through) in [(UInt64(1), UInt64.max), (35, 480), (290, last), (101, 102)] {
                let statePath = try StatePath(parsing: path)
                let whole = try machine.blame(statePath, from: from, through: through, workers: 1)
                let before = machine.reconstructions
                let split = try machine.blame(statePath, from: from, through: through, workers: 4, minimumSpan: 1)
                #expect(split == whole, "\(path) from #\(from) through #\(through): \(summary(split)) against \(summary(whole))")
                if through - from > 100 {
                    #expect(machine.reconstructions - before > 4, "the range was cut into stretches at its snapshots")
                }
            }
        }
        #expect(try machine.blame(try StatePath(parsing: "balance"), from: 1, through: .max, workers: 1).count > 200, "the paths do change")
    }
}

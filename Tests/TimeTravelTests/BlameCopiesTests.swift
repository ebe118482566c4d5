import EventLogKit
import Foundation
import TestSupport
import Testing
@testable import TimeTravel

/// Blame copies each change's mutation and action into one shared buffer (``EntryArena``): the copies must be the
/// log's own entries, payload bytes and all, and decode as they do.
@Suite("Blame's copies of entries", .timeLimit(.minutes(3)))
struct BlameCopiesTests {
    let scratch = ScratchDirectory()

    @Test("every change's mutation and action equal the entries the log reads at their numbers, and decode alike")
    func copiesAreTheLogsEntries() throws {
        let log = try EventLog.open(at: scratch.file("copies.reactorlog"))
        _ = try recordLedger(log, deposits: 120, bugAtDeposit: nil)
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let changes = try machine.blame(try StatePath(parsing: "balance"), from: 1, through: .max, workers: 2, minimumSpan: 1)
        #expect(changes.count > 100)
        var actions = 0
        for change in changes {
            #expect(change.mutation == (try log.entry(at: change.mutation.sequence)))
            let before = try machine.state(at: change.mutation.sequence - 1)
            let after = try machine.state(at: change.mutation.sequence)
            #expect(try machine.reduce(before, change.mutation) == after, "the copy's payload decodes")
            if let cause = change.mutation.cause {
                let action = try #require(change.action, "#\(change.mutation.sequence) names its action #\(cause)")
                #expect(action == (try log.entry(at: cause)))
                actions += 1
            }
        }
        #expect(actions == changes.count, "every deposit's mutation has its action")
    }
}

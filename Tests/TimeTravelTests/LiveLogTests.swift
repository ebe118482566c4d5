import EventLogKit
import ReactorLog
import ReactorLogPersistence
import TestSupport
import TimeTravel
import Testing

/// A time machine made on the log the process writes. Before 2026-12-07 it read only what the log's writer had
/// committed: right after `send` (which hands entries to the writer and returns), `state(at:)` of the step just sent
/// said `Step #2 is past the log's last step, #0`, and `assertReplayMatchesRecording()` passed over a reducer bug it had
/// no committed snapshot of, unless the test flushed the log first.
@Suite("Time travel on the log being written", .timeLimit(.minutes(2)))
struct LiveLogTests {
    let scratch = ScratchDirectory()

    /// A log whose writer gathers appends for an hour unless something waits for them, with a snapshot every
    /// four mutations, and a ledger recorded to it (a planted bug at its tenth deposit), its stream's opening committed.
    func gatheringLedger() throws -> (EventLog, LedgerReactor) {
        var configuration = EventLogConfiguration()
        configuration.commitInterval = .seconds(3_600)
        configuration.snapshotPolicy = .every(mutations: 4)
        let log = try EventLog.open(at: scratch.file("live.reactorlog"), configuration: configuration)
        let reactor = LedgerReactor(bugAtDeposit: 10)
        try reactor.attach(to: log, stream: "ledger")
        try log.flush()
        return (log, reactor)
    }

    @Test("a machine made right after sends sees every step sent, with no flush, while the writer would gather for an hour")
    func seesWhatWasSent() throws {
        let (log, reactor) = try gatheringLedger()
        let committed = try log.highestSequence()
        for amount in 1...20 { reactor.send(.deposit(amount)) }
        #expect(try log.highestSequence() == committed, "committed without waiting: the test's premise does not hold")
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let last = try machine.lastStep()
        #expect(last == committed + 40)
        #expect(try machine.state(at: last) == reactor.currentState)
        // The recording's bug at the tenth deposit, which the replayer's reduce does not have, shows in the snapshots
        // the sends queued.
        let divergence = try #require(try machine.divergence())
        #expect(divergence.step > committed + 20 && divergence.step <= last)
        #expect(throws: TimeTravelError.replayDiverges(divergence)) { try machine.assertReplayMatchesRecording() }
        withExtendedLifetime(reactor) {}
        try log.close()
    }

    @Test("a machine made before more sends reaches them through lastStep(), which state(at:) asks first")
    func laterSendsReached() throws {
        let (log, reactor) = try gatheringLedger()
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor(bugAtDeposit: 10) })
        let before = try machine.lastStep()
        for amount in 1...3 { reactor.send(.deposit(amount)) }
        #expect(try machine.state(at: before + 6) == reactor.currentState)
        #expect(try machine.lastStep() == before + 6)
        withExtendedLifetime(reactor) {}
        try log.close()
    }
}

import EventLogKit
import TestSupport
import TimeTravel
import Testing

/// The descriptions of blame's, bisect's and divergence's answers: printed in a test or a playground, each reads as a sentence, not as
/// the structs' fields (each with its two `LogEntry`s dumped whole).
@Suite("Blame's and bisect's answers in a line")
struct ResultDescriptionTests {
    let scratch = ScratchDirectory()

    /// A ledger of twelve deposits (amounts 1…9, then 1…3) whose tenth, mutation #21 caused by #20, takes a million
    /// off the balance; a snapshot every four mutations (#9, #17, #25).
    func ledger() throws -> EventLog {
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = .every(mutations: 4)
        let log = try EventLog.open(at: scratch.file("ledger.reactorlog"), configuration: configuration)
        _ = try recordLedger(log, deposits: 12, bugAtDeposit: 10)
        return log
    }

    @Test("a change: its mutation, the values before and after, and its action; without a reducer, the range of mutations")
    func blameEntries() throws {
        let log = try ledger()
        let replayed = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor(bugAtDeposit: 10) })
        let changes = try replayed.blame(StatePath(parsing: "last[0]"))
        #expect(changes.first?.description == "#3 add: absent → 1, by #2 deposit")
        #expect(changes.dropFirst().first?.description == "#9 add: 1 → 2, by #8 deposit")
        let recorded = try TimeMachine(log: log, stream: "ledger", replayer: RecordedStates())
        let ranges = try recorded.blame(StatePath(parsing: "deposits"))
        #expect(ranges.first?.description == "one of #3…#9 (4 mutations, the states between not recorded): 0 → 4")
    }

    @Test("a divergence report of a sound log: one sentence")
    func soundDivergenceReport() throws {
        let log = try ledger()
        let replayed = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor(bugAtDeposit: 10) })
        #expect(try replayed.divergenceReport().description == "Replay reproduces every recorded state.")
    }

    @Test("a bisect's answer: the first bad step, its mutation and action; without a reducer, the recorded states around it")
    func bisectResults() throws {
        let log = try ledger()
        let replayed = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor(bugAtDeposit: 10) })
        let found = try replayed.bisect { state, _ in state.balance >= 0 ? .good : .bad }
        #expect(found.description == "First bad step: #21 add, caused by #20 deposit (\(found.probes.count) states judged).")
        let recorded = try TimeMachine(log: log, stream: "ledger", replayer: RecordedStates())
        let bounded = try recorded.bisect { _, step in step >= 21 ? .bad : .good }
        #expect(bounded.description
            == "The first bad state lies between the recorded states at #17 (good) and #25 (bad), one of the 4 mutations between them (\(bounded.probes.count) states judged).")
    }
}

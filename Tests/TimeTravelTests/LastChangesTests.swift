import EventLogKit
import Foundation
import Synchronization
import TestSupport
import Testing
@testable import TimeTravel

/// `lastChanges` walks back from a step in widening windows of snapshot intervals: its answer must be the end of
/// blame's, and its cost the distance back, not the stream's length.
@Suite("The last changes of a path", .timeLimit(.minutes(2)))
struct LastChangesTests {
    let scratch = ScratchDirectory()

    func ledger() throws -> (EventLog, TimeMachine<ReactorReplayer<LedgerReactor>>) {
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = .every(mutations: 10)
        let log = try EventLog.open(at: scratch.file("last.reactorlog"), configuration: configuration)
        _ = try recordLedger(log, deposits: 300)
        try log.removeEntries(250..<300)
        return (log, try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() }))
    }

    @Test("the last N changes up to a step, from a step, are exactly the end of blame's list, across a gap")
    func endOfBlame() throws {
        let (_, machine) = try ledger()
        try expectEndOfBlame(machine)
        #expect(try machine.lastChanges(of: try StatePath(parsing: "balance"), count: 0).isEmpty)
    }

    @Test("without a reducer, the walk compares recorded states only, and finds exactly the end of their blame")
    func endOfRecordedBlame() throws {
        let (log, _) = try ledger()
        try expectEndOfBlame(try TimeMachine(log: log, stream: "ledger", replayer: RecordedStates()))
    }

    func expectEndOfBlame<R: Replayer>(_ machine: TimeMachine<R>) throws {
        let last = try machine.lastStep()
        #expect(try machine.blame(try StatePath(parsing: "balance")).count > 20, "the paths do change")
        for path in ["balance", "last.count", "last[0]", "nothing"] {
            let statePath = try StatePath(parsing: path)
            for (from, step) in [(UInt64(1), UInt64.max), (1, 480), (35, 480), (290, last), (101, 102), (1, 0)] {
                let whole = try machine.blame(statePath, from: from, through: step)
                for count in [1, 2, 7, 40, 1_000] {
                    let found = try machine.lastChanges(of: statePath, count: count, from: from, atOrBefore: step)
                    #expect(found == Array(whole.suffix(count)), "\(path), \(count) from #\(from) through #\(step)")
                }
            }
        }
    }

    @Test("the walk replays about the distance back to the Nth change, not the stream")
    func costIsTheDistance() throws {
        let (log, _) = try ledger()
        let counting = CountingReplayer()
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: counting)
        let balance = try StatePath(parsing: "balance")
        _ = try machine.blame(balance, from: 1, through: .max)
        let everything = counting.reductions.value
        #expect(everything >= 250)
        for (count, most) in [(1, 20), (3, 20), (30, 70)] {
            let before = counting.reductions.value
            #expect(try machine.lastChanges(of: balance, count: count).count == count)
            // balance changes at every mutation and snapshots come every 10: one or two intervals hold the last
            // three changes, and windows of 1, 2 and 4 intervals the last thirty.
            let replayed = counting.reductions.value - before
            #expect(replayed <= most, "\(count) changes: \(replayed) of \(everything) mutations replayed")
        }
    }
}

/// The ledger's replayer, counting the mutations it reduces.
struct CountingReplayer: Replayer {
    let reactor = ReactorReplayer { LedgerReactor() }
    let reductions = Counter()

    final class Counter: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }

    var canReduce: Bool { true }
    func decodeState(_ data: Data, codec: CodecID, recordedWith schema: String, log: EventLog) throws -> LedgerReactor.State {
        try reactor.decodeState(data, codec: codec, recordedWith: schema, log: log)
    }
    func reduce(
        _ state: LedgerReactor.State, _ mutation: LogEntry, recordedWith schema: String, log: EventLog
    ) throws -> LedgerReactor.State {
        reductions.add()
        return try reactor.reduce(state, mutation, recordedWith: schema, log: log)
    }
    func json(_ state: LedgerReactor.State) throws -> JSONValue { try reactor.json(state) }
    func checkDecodes(_ entry: LogEntry, recordedWith schema: String, log: EventLog) throws {
        try reactor.checkDecodes(entry, recordedWith: schema, log: log)
    }
}

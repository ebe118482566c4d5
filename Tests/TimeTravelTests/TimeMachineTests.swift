import EventLogKit
import Foundation
import ReactorLog
import ReactorLogPersistence
import ReactorLogExamples
import Synchronization
import TestSupport
@testable import TimeTravel
import Testing

@Suite("Time travel", .timeLimit(.minutes(2)))
struct TimeMachineTests {
    let scratch = ScratchDirectory()

    func openLog(_ name: String = "t.reactorlog", policy: SnapshotPolicy = .every(mutations: 16), durability: Durability = .grouped) throws -> EventLog {
        var configuration = EventLogConfiguration(durability: durability)
        configuration.snapshotPolicy = policy
        return try EventLog.open(at: scratch.file(name), configuration: configuration)
    }

    func mutationSteps(_ log: EventLog, _ stream: String) throws -> [UInt64] {
        try log.readEntries(EntryQuery(stream: stream, kinds: [.mutation])).map(\.sequence)
    }

    /// Stream `ledger` of `log`, opened as LedgerReactor's recorder opens it, for a test to append to by hand the
    /// layouts a reactor does not write.
    func handWrittenLedger(in log: EventLog) throws -> LogStream {
        try log.openStream(
            named: "ledger", reactorType: String(reflecting: LedgerReactor.self),
            schemaFingerprint: LedgerReactor.defaultSchemaFingerprint, initialState: LedgerReactor.State())
    }

    @Test("the state at every step equals the state the live reactor published (Ledger, Todo, GitHub Search)")
    func everyStep() async throws {
        let log = try openLog()
        let ledgerStates = try recordLedger(log, deposits: 100)
        let ledger = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let ledgerSteps = try mutationSteps(log, "ledger")
        #expect(try ledger.state(at: 0) == ledgerStates[0])
        for (index, step) in ledgerSteps.enumerated() {
            #expect(try ledger.state(at: step) == ledgerStates[index + 1])
            #expect(try ledger.state(at: step - 1) == ledgerStates[index])
        }

        let todo = TodoReactor()
        try todo.attach(to: log, stream: "todo")
        let todoStates = Recorder<TodoReactor.State>()
        let observation = todo.observe { todoStates.append($0) }
        for index in 0..<40 {
            todo.send(.add("task \(index)"))
            if index % 3 == 0 { todo.send(.toggle(id: index / 2 + 1)) }
            if index % 7 == 0 { todo.send(.move(from: 0, to: index / 2)) }
            if index % 5 == 0 { todo.send(.delete(id: index)) }
        }
        observation.cancel()

        let counter = CounterReactor(delay: .milliseconds(1))
        try counter.attach(to: log, stream: "counter")
        let counterStates = Recorder<CounterReactor.State>()
        let counterObservation = counter.observe { counterStates.append($0) }
        for index in 0..<6 {
            counter.send(index % 3 == 2 ? .decrease : .increase)
            _ = await counter.state { !$0.isLoading }
        }
        counterObservation.cancel()

        let search = GitHubSearchReactor(service: FakeGitHubSearchService(latency: .zero))
        try search.attach(to: log, stream: "search")
        let searchStates = Recorder<GitHubSearchReactor.State>()
        let searchObservation = search.observe { searchStates.append($0) }
        search.send(.updateQuery("swift"))
        _ = await search.state { $0.repos.count == 10 }
        search.send(.loadNextPage)
        _ = await search.state { $0.repos.count == 20 && !$0.isLoadingNextPage }
        searchObservation.cancel()
        try await log.flush()

        let todoMachine = try TimeMachine(log: log, stream: "todo", replayer: ReactorReplayer { TodoReactor() })
        for (index, step) in try mutationSteps(log, "todo").enumerated() {
            #expect(try todoMachine.state(at: step) == todoStates.all[index + 1])
        }
        let counterMachine = try TimeMachine(log: log, stream: "counter", replayer: ReactorReplayer { CounterReactor() })
        let counterSteps = try mutationSteps(log, "counter")
        #expect(counterSteps.count == 18)
        for (index, step) in counterSteps.enumerated() {
            #expect(try counterMachine.state(at: step) == counterStates.all[index + 1])
        }
        let searchMachine = try TimeMachine(log: log, stream: "search", replayer: ReactorReplayer { GitHubSearchReactor() })
        for (index, step) in try mutationSteps(log, "search").enumerated() {
            #expect(try searchMachine.state(at: step) == searchStates.all[index + 1])
        }
    }

    @Test("states over a range are streamed with their entries")
    func statesOverRange() throws {
        let log = try openLog()
        let published = try recordLedger(log, deposits: 50)
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        var iterator = try machine.states(from: 10, through: 40)
        var seen: [UInt64] = []
        while let (entry, state) = try iterator.next() {
            seen.append(entry.sequence)
            if entry.kind == .mutation { #expect(published.contains(state)) }
        }
        #expect(seen == Array(10...40))
        #expect(iterator.state == (try machine.state(at: 40)))
    }

    @Test("blame finds exactly the mutations that changed a path, with old and new values and the causing action")
    func blame() throws {
        let log = try openLog()
        let published = try recordLedger(log, deposits: 60)
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let steps = try mutationSteps(log, "ledger")
        for (text, value) in [("last[0]", { (s: LedgerReactor.State) in s.last.first }), ("last.count", { (s: LedgerReactor.State) in s.last.count })] as [(String, (LedgerReactor.State) -> Int?)] {
            let expected = (1..<published.count).filter { value(published[$0]) != value(published[$0 - 1]) }.map { steps[$0 - 1] }
            let found = try machine.blame(try StatePath(parsing: text))
            #expect(found.map(\.mutation.sequence) == expected, "\(text)")
        }
        let balance = try machine.blame(try StatePath(parsing: "balance"))
        #expect(balance.count == 60)
        #expect(balance.first?.old == .number(0))
        #expect(balance.first?.new == .number(1))
        #expect(balance.first?.action?.caseName == "deposit")
        let count = try machine.blame(try StatePath(parsing: "last.count"))
        #expect(count.map { $0.new } == [.number(1), .number(2), .number(3)])
        #expect(try machine.lastChange(of: try StatePath(parsing: "last.count"), atOrBefore: .max)?.mutation.sequence == steps[2])
        #expect(try machine.lastChange(of: try StatePath(parsing: "deposits"), atOrBefore: steps[9])?.mutation.sequence == steps[9])
        // lastChange walks back snapshot interval by snapshot interval, and agrees with blame everywhere.
        let first = try StatePath(parsing: "last[0]")
        for step in steps {
            #expect(try machine.lastChange(of: first, atOrBefore: step)?.mutation.sequence == (try machine.blame(first, through: step).last?.mutation.sequence))
        }
        #expect(try machine.lastChange(of: try StatePath(parsing: "nothing"), atOrBefore: .max) == nil)
        let before = machine.reconstructions
        _ = try machine.lastChange(of: try StatePath(parsing: "deposits"), atOrBefore: try #require(steps.last))
        #expect(machine.reconstructions - before == 1)
    }

    @Test("bisect finds a planted bug in a log of over 100,000 entries in O(log n) reconstructions")
    func bisectPlantedBug() throws {
        let log = try openLog("long.reactorlog", policy: .every(mutations: 256), durability: .noSync)
        _ = try recordLedger(log, deposits: 55_000, bugAtDeposit: 31_337)
        #expect(try log.highestSequence() > 110_000)
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor(bugAtDeposit: 31_337) })
        let result = try machine.bisect { state, _ in state.balance >= 0 ? .good : .bad }
        let steps = try mutationSteps(log, "ledger")
        #expect(result.firstBad == steps[31_336])
        #expect(result.mutation?.caseName == "add")
        #expect(result.action?.caseName == "deposit")
        #expect(result.diff?.changes.map(\.path.description).contains("balance") == true)
        let bound = Int(log2(Double(steps.count)).rounded(.up)) + 2
        #expect(result.probes.count <= bound)
        #expect(result.reconstructions <= bound + 2)

        let replayed = try machine.bisect(replaying: result.probes)
        #expect(replayed.firstBad == result.firstBad)
        #expect(replayed.probes == result.probes)
    }

    @Test("bisect judges only the stream's own mutations, however many entries of other streams lie between them")
    func bisectInterleavedStreams() throws {
        let log = try openLog("interleaved.reactorlog", policy: .every(mutations: 4096), durability: .noSync)
        do {
            let sparse = LedgerReactor(bugAtDeposit: 7)
            let busy = LedgerReactor()
            try sparse.attach(to: log, stream: "sparse")
            try busy.attach(to: log, stream: "busy")
            for _ in 0..<10 {
                sparse.send(.deposit(1))
                for _ in 0..<1_000 { busy.send(.deposit(1)) }
            }
            sparse.send(.deposit(1))
        }
        try log.flush()
        // More steps than bisect lists at once, so that it halves the sequence range first.
        #expect(try log.highestSequence() > 4 * 4_096)
        let machine = try TimeMachine(log: log, stream: "sparse", replayer: ReactorReplayer { LedgerReactor(bugAtDeposit: 7) })
        let steps = try mutationSteps(log, "sparse")
        let result = try machine.bisect { state, _ in state.balance >= 0 ? .good : .bad }
        #expect(result.firstBad == steps[6])
        // The initial state, the stream's last mutation (not the log's last step, another stream's), then only the
        // stream's mutations: about log2 of their number, not of the log's length.
        #expect(result.probes.prefix(2).map(\.step) == [0, steps[10]])
        #expect(result.probes.allSatisfy { $0.step == 0 || steps.contains($0.step) }, "\(result.probes)")
        #expect(result.probes.count <= 3 + Int(log2(Double(steps.count)).rounded(.up)), "\(result.probes)")
        #expect(try machine.bisect(replaying: result.probes) == result)
    }

    @Test("bisect skips states it cannot judge, and reports the range it cannot narrow")
    func bisectWithSkips() throws {
        let log = try openLog()
        _ = try recordLedger(log, deposits: 200, bugAtDeposit: 120)
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor(bugAtDeposit: 120) })
        let steps = try mutationSteps(log, "ledger")
        let culprit = steps[119]
        let farSkips = try machine.bisect { state, step in
            step > 0 && step % 5 == 0 && step != culprit && step != steps[118] && step != steps.last ? .skip : (state.balance >= 0 ? .good : .bad)
        }
        #expect(farSkips.firstBad == culprit)
        let nearSkips = try machine.bisect { state, step in
            (steps[117]...steps[119]).contains(step) && step != steps[119] ? .skip : (state.balance >= 0 ? .good : .bad)
        }
        #expect(nearSkips.firstBad == nil)
        #expect(nearSkips.candidates == [steps[117], steps[118], steps[119]])
        // Every state skipped but the one next to the bad end: bisect tries point after point until it meets it, with an
        // odd or an even number of points before the end (before, with an even number, it never tried that one).
        for count in [9, 10] {
            let end = steps[count]
            let lone = try machine.bisect(through: end) { _, step in
                step == 0 || step == steps[count - 1] ? .good : step == end ? .bad : .skip
            }
            #expect(lone.firstBad == end, "\(count) points before the end: \(lone.probes)")
        }
        let noBadState = #expect(throws: TimeTravelError.self) { try machine.bisect { _, _ in .good } }
        #expect(noBadState?.description.contains("is good: there is no bad state to find") == true)
        let skippedStart = #expect(throws: TimeTravelError.self) { try machine.bisect { _, _ in .skip } }
        #expect(skippedStart?.description.contains("was skipped") == true)
    }

    @Test("against any states skipped, bisect names the first bad step or the tightest range of steps around it")
    func bisectSkipsAtRandom() throws {
        let log = try openLog()
        _ = try recordLedger(log, deposits: 40)
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let steps = try mutationSteps(log, "ledger")
        var random = Xorshift(state: 0x5EED_B15E_C7)
        for round in 0..<300 {
            // The bug at steps[bug]; each other step but the last skipped with the round's odds, the bug's own too.
            let bug = Int.random(in: 1..<steps.count, using: &random)
            let odds = [0.2, 0.5, 0.8][round % 3]
            let skipped = Set(steps.dropLast().filter { _ in Double.random(in: 0..<1, using: &random) < odds })
            let result = try machine.bisect { _, step in
                step == 0 || !skipped.contains(step) ? (step >= steps[bug] ? .bad : .good) : .skip
            }
            // The judged states nearest the bug on either side bound the answer: every step between them is skipped.
            let good = steps[..<bug].lastIndex { !skipped.contains($0) } ?? -1
            let bad = try #require(steps[bug...].firstIndex { !skipped.contains($0) })
            let expected = Array(steps[(good + 1)...bad])
            #expect(result.candidates == expected, "round \(round), bug at #\(steps[bug]): \(result.probes)")
            #expect(result.firstBad == (expected == [steps[bug]] ? steps[bug] : nil), "round \(round)")
        }
    }

    @Test("bisect refuses a start whose state is bad, and says whether an earlier start could help")
    func bisectFromABadState() throws {
        let log = try openLog(policy: .every(mutations: 4))
        _ = try recordLedger(log, deposits: 30)
        let steps = try mutationSteps(log, "ledger")
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let given = #expect(throws: TimeTravelError.self) { try machine.bisect(from: steps[4]) { _, _ in .bad } }
        #expect(given?.description == "The state at #\(steps[4]) is already bad, so the bug came earlier. Start the bisect from an earlier step.")
        let initial = #expect(throws: TimeTravelError.self) { try machine.bisect { _, _ in .bad } }
        #expect(initial?.description == "The initial state (#0) is already bad, so no recorded step made it bad. Check that the test passes on a good state.")

        // With the run's start removed, the earliest step the log rebuilds is a snapshot: no earlier start exists.
        _ = try log.trim(before: 20)
        let trimmed = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let earliest = try trimmed.earliestReplayableStep()
        #expect(earliest > 0)
        let fromEarliest = #expect(throws: TimeTravelError.self) { try trimmed.bisect { _, _ in .bad } }
        #expect(fromEarliest?.description == "The state at #\(earliest), the earliest the log still rebuilds, is already bad: it went bad in steps retention removed, or the test fails on good states. Check the test on a good state.")
    }

    @Test("divergence finds a one-line change to reduce: the exact mutation when every state was recorded, else the range")
    func divergence() throws {
        let everyState = try openLog("every.reactorlog", policy: .everyMutation)
        _ = try recordLedger(everyState, deposits: 30)
        let same = try TimeMachine(log: everyState, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        #expect(try same.divergence() == nil)
        try same.assertReplayMatchesRecording()
        let changed = try TimeMachine(log: everyState, stream: "ledger", replayer: ReactorReplayer { LedgerReactor(changedReduce: true) })
        let found = try #require(try changed.divergence())
        let firstSeven = try #require(try everyState.readEntries(EntryQuery(kinds: [.mutation])).first { try $0.codec.json($0.payload) == Data("{\"add\":{\"_0\":7}}".utf8) })
        #expect(found.mutation?.sequence == firstSeven.sequence)
        #expect(found.action?.caseName == "deposit")
        #expect(found.diff.changes.map(\.path.description) == ["balance"])
        let error = #expect(throws: TimeTravelError.self) { try changed.assertReplayMatchesRecording() }
        #expect(error?.description.contains("~ balance: 28 → 29") == true)

        let sparse = try openLog("sparse.reactorlog", policy: .every(mutations: 10))
        _ = try recordLedger(sparse, deposits: 30)
        let range = try #require(try TimeMachine(log: sparse, stream: "ledger", replayer: ReactorReplayer { LedgerReactor(changedReduce: true) }).divergence())
        #expect(range.mutation == nil)
        let seven = try #require(try sparse.readEntries(EntryQuery(kinds: [.mutation])).first { try $0.codec.json($0.payload) == Data("{\"add\":{\"_0\":7}}".utf8) })
        #expect(range.range.contains(seven.sequence))
    }

    @Test("divergenceReport goes round a damaged block and a damaged snapshot, names them unchecked, and finds a divergence after them")
    func divergencePastDamage() throws {
        let log = try openLog("diverge-damaged.reactorlog", policy: .every(mutations: 100))
        // The recording's reduce had a bug at deposit 2,500; the reduce replayed here does not.
        _ = try recordLedger(log, deposits: 3_000, bugAtDeposit: 2_500)
        let (path, steps) = (log.path, try mutationSteps(log, "ledger"))
        let snapshots = try log.snapshotSequences(stream: "ledger")
        try log.close()
        let entryKey = try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { $0[$0.count / 2] }
        let damagedEntry = entryKey.suffix(8).reduce(0) { $0 << 8 | UInt64($1) }
        // The last snapshot before the bug: replay goes on through it, and the divergence's range spans it.
        let damagedSnapshot = try #require(snapshots.last { $0 < steps[2_499] })
        let before = try #require(snapshots.last { $0 < damagedSnapshot })
        _ = try LogDamage.flipByte(of: path, database: "snapshots", mask: 0x40) { keys in
            keys.first { $0.suffix(8).elementsEqual(withUnsafeBytes(of: damagedSnapshot.bigEndian, Array.init)) } ?? []
        }
        try #require(damagedEntry < before)
        let read = try EventLog.openReadOnly(at: path)
        let machine = try TimeMachine(log: read, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        // divergence() throws at the damage, as it did.
        #expect(throws: TimeTravelError.self) { try machine.divergence() }
        let report = try machine.divergenceReport()
        let found = try #require(report.divergence)
        let after = try #require(snapshots.first { $0 >= steps[2_499] })
        #expect(found.range == before + 1...after, "\(found.range)")
        // Only the bug's million: no mutation replayed twice across the damaged snapshot.
        #expect(found.diff.changes.map(\.path.description) == ["balance"])
        let balance = try #require(found.diff.changes.first)
        guard case .number(let recorded)? = balance.old, case .number(let replayed)? = balance.new else {
            Issue.record("\(balance)")
            return
        }
        #expect(replayed.doubleValue - recorded.doubleValue == 1_000_000)
        #expect(report.unchecked.count == 2)
        #expect(report.unchecked.first?.steps.contains(damagedEntry) == true)
        guard case .corruptEntry? = report.unchecked.first?.damage, case .corruptSnapshot("ledger", damagedSnapshot, _)? = report.unchecked.last?.damage else {
            Issue.record("\(report.unchecked)")
            return
        }
        #expect(report.unchecked.last?.steps == damagedSnapshot...damagedSnapshot)
        // The recording's own reduce reproduces every state that can be checked: no divergence, the same stretches.
        let same = try TimeMachine(log: read, stream: "ledger", replayer: ReactorReplayer { LedgerReactor(bugAtDeposit: 2_500) }).divergenceReport()
        #expect(same.divergence == nil && same.unchecked == report.unchecked)
    }

    /// Before 2026-12-07 `divergenceReport()` refused the whole stream when a snapshot's key was damaged past placing
    /// (`The log's metadata is corrupt: among stream 1's snapshot keys, …`, now `The snapshot keys of stream id 1 are
    /// damaged: …`), though every other recorded state reads.
    @Test("divergenceReport compares every snapshot that can be found when one's key is wiped, and names where the hidden one may lie", arguments: [2, 7])
    func divergencePastWipedSnapshotKey(wiped index: Int) throws {
        let log = try openLog("diverge-wiped-\(index).reactorlog", policy: .every(mutations: 4))
        // Deposit k is action #2k and mutation #2k+1: snapshots at #9, #17, #25, …; the recording's bug at deposit 30 (#61).
        _ = try recordLedger(log, deposits: 40, bugAtDeposit: 30)
        let path = log.path
        let snapshots = try log.snapshotSequences(stream: "ledger")
        try #require(snapshots.prefix(9) == [9, 17, 25, 33, 41, 49, 57, 65, 73])
        try log.close()
        try LogDamage.zeroNodeInFile(of: path, database: "snapshots") { $0[index] }
        let read = try EventLog.openReadOnly(at: path)
        let machine = try TimeMachine(log: read, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        #expect(throws: EventLogError.self) { try machine.divergence() }
        let report = try machine.divergenceReport()
        let found = try #require(report.divergence)
        let wiped = snapshots[index]
        // The hidden key lies between the snapshots that read on either side of it: those steps are unchecked.
        let hidden = snapshots[index - 1] + 1...snapshots[index + 1] - 1
        if wiped < 61 {
            #expect(found.step == 65 && found.range == 58...65, "\(found.range)")
            #expect(report.unchecked.map(\.steps) == [hidden])
        } else {
            // The recorded state that would have shown the bug is the one hidden: the next shows it, the range spans both.
            #expect(found.step == 73 && found.range == 58...73, "\(found.range)")
            #expect(report.unchecked.map(\.steps) == [58...72])
        }
        guard case .corruptKeys(1, "snapshot", _)? = report.unchecked.first?.damage else {
            Issue.record("\(report.unchecked)")
            return
        }
        // The recording's own reduce: no divergence, the same stretch unchecked. Printed, each report reads as the
        // inspector's answer.
        let same = try TimeMachine(log: read, stream: "ledger", replayer: ReactorReplayer { LedgerReactor(bugAtDeposit: 30) }).divergenceReport()
        #expect(same.divergence == nil && same.unchecked.map(\.steps) == [hidden])
        #expect(same.description == "Replay reproduces every recorded state it could check; #\(hidden.lowerBound)…#\(hidden.upperBound) could not be checked.")
        let lines = report.description.split(separator: "\n")
        #expect(lines.first?.hasPrefix("Replay diverges from the recording between #58 and #\(found.step) ") == true, "\(report)")
        #expect(lines.last == "#\(report.unchecked[0].steps.lowerBound)…#\(report.unchecked[0].steps.upperBound) could not be checked.")
    }

    @Test("what if: skipping the bad mutation gives the state without the bug, and the log is unchanged")
    func whatIf() throws {
        let log = try openLog()
        _ = try recordLedger(log, deposits: 100, bugAtDeposit: 40)
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let bad = try mutationSteps(log, "ledger")[39]
        let before = try log.highestSequence()
        let outcome = try machine.whatIf(skipping: [bad])
        #expect(outcome.state.deposits == 99)
        #expect(outcome.diff.changes.map(\.path.description).contains("deposits"))
        #expect(try log.highestSequence() == before)
    }

    @Test("the causal tree of an action lists what its effects produced, in order, with delays")
    func causalTree() async throws {
        let log = try openLog()
        let search = GitHubSearchReactor(service: FakeGitHubSearchService(latency: .milliseconds(2)))
        try search.attach(to: log, stream: "search")
        search.send(.updateQuery("swift"))
        _ = await search.state { $0.repos.count == 10 }
        try await log.flush()
        let action = try #require(try log.readEntries(EntryQuery(kinds: [.action])).first)
        let tree = try TimeMachine(log: log, stream: "search", replayer: RecordedStates()).causalTree(of: action.sequence)
        #expect(tree.caused.map(\.entry.caseName) == ["setQuery", "setRepos"])
        #expect(tree.caused[1].delay >= tree.caused[0].delay)
        #expect(tree.caused[1].delay >= .milliseconds(2))
        let mutation = tree.caused[0].entry.sequence
        #expect(throws: TimeTravelError.notAnAction(step: mutation, stream: "search")) {
            try TimeMachine(log: log, stream: "search", replayer: RecordedStates()).causalTree(of: mutation)
        }
    }

    /// Before 2026-12-06 a state asked for at a damaged snapshot's step read "was not recorded", and offered that very
    /// snapshot among the recorded states nearby.
    @Test("without a reducer, a state whose snapshot cannot be read is named as recorded but unreadable, only snapshots that read are offered, and blame and bisect pass over it")
    func unreadableSnapshotWithoutReducer() throws {
        let path = scratch.file("damaged-snapshot.reactorlog")
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = .every(mutations: 5)
        let log = try EventLog.open(at: path, configuration: configuration)
        let published = try recordLedger(log, deposits: 20)
        let steps = try mutationSteps(log, "ledger")
        try log.close()
        let damaged = steps[9]
        let key = try LogDamage.flipByte(of: path, database: "snapshots", mask: 0x20) { keys in
            keys.first { $0.suffix(8).elementsEqual(withUnsafeBytes(of: damaged.bigEndian, Array.init)) } ?? []
        }
        #expect(key.count == 12)
        let read = try EventLog.openReadOnly(at: path)
        let generic = try TimeMachine(log: read, stream: "ledger", replayer: RecordedStates())
        let error = #expect(throws: TimeTravelError.self) { try generic.json(at: damaged) }
        guard case .snapshotUnreadable(damaged, "ledger", .corruptSnapshot("ledger", damaged, _), let nearest)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(nearest == [steps[4], steps[14]])
        #expect(error?.problem.hasPrefix("The state of 'ledger' at #\(damaged) was recorded in a snapshot that cannot be read, and rebuilding it needs the reducer. The snapshot of stream 'ledger' at #\(damaged) is corrupt: ") == true)
        #expect(error?.problem.hasSuffix("Recorded states nearby that read: #\(steps[4]), #\(steps[14]).") == true)
        // A step between offers the snapshots around it that read, not the damaged one.
        #expect(throws: TimeTravelError.needsReducer(step: steps[11], stream: "ledger", nearest: [steps[4], steps[14]])) {
            try generic.json(at: steps[11])
        }
        // Blame compares the states that read: the change across the damaged snapshot lies between its neighbours.
        let changes = try generic.blame(try StatePath(parsing: "deposits"), from: steps[5], through: steps[14])
        #expect(changes.map(\.range) == [steps[5]...steps[14]])
        // The report names the state it passed over, with the damage, also walking back for the latest change.
        for latest in [nil, 1] {
            let report = try generic.blameReport(try StatePath(parsing: "deposits"), from: steps[5], through: steps[14], latest: latest)
            #expect(report.changes == changes)
            #expect(report.unreadableStates.map(\.step) == [damaged])
            guard case .corruptSnapshot("ledger", damaged, _)? = report.unreadableStates.first?.damage else {
                Issue.record("\(report.unreadableStates)")
                return
            }
        }
        // A range that compares no state across it names none.
        #expect(try generic.blameReport(try StatePath(parsing: "deposits"), from: steps[15], through: steps[19]).unreadableStates.isEmpty)
        // Bisect skips it, as a judge skips a state it cannot evaluate: the bug lies between the states around it.
        let bad = Set((8...20).map { JSONValue?.some(.number(JSONNumber(integerLiteral: $0))) })
        let bisected = try generic.bisect { state, _ in bad.contains(state["deposits"]) ? .bad : .good }
        #expect(bisected.firstBad == nil && bisected.candidates == Array(steps[5...14]))
        #expect(bisected.probes.contains(BisectProbe(step: damaged, verdict: .skip)))
        guard case .corruptSnapshot("ledger", damaged, _)? = bisected.unreadable else {
            Issue.record("\(String(describing: bisected.unreadable))")
            return
        }
        // With the reducer the state is rebuilt from the snapshot before it.
        let reducing = try TimeMachine(log: read, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        #expect(try reducing.state(at: damaged) == published[10])
    }

    @Test("without a reducer, states exist where recorded; elsewhere the error names the nearest recorded steps, or recordedState says nil")
    func recordedStatesOnly() throws {
        let every = try openLog("every.reactorlog", policy: .everyMutation)
        let published = try recordLedger(every, deposits: 20)
        let generic = try TimeMachine(log: every, stream: "ledger", replayer: RecordedStates())
        let steps = try mutationSteps(every, "ledger")
        #expect(try generic.json(at: steps[9]) == (try JSONValue(encoding: published[10])))
        #expect(try generic.blame(try StatePath(parsing: "last.count")).count == 3)

        let sparse = try openLog("sparse.reactorlog", policy: .every(mutations: 5))
        _ = try recordLedger(sparse, deposits: 20)
        let partial = try TimeMachine(log: sparse, stream: "ledger", replayer: RecordedStates())
        let sparseSteps = try mutationSteps(sparse, "ledger")
        #expect(try partial.json(at: sparseSteps[4])["deposits"] == .number(5))
        let error = #expect(throws: TimeTravelError.self) { try partial.json(at: sparseSteps[6]) }
        #expect(error == .needsReducer(step: sparseSteps[6], stream: "ledger", nearest: [sparseSteps[4], sparseSteps[9]]))
        // Before the first snapshot, the state recorded before it is the initial state, offered as #0.
        let early = #expect(throws: TimeTravelError.self) { try partial.json(at: sparseSteps[2]) }
        #expect(early == .needsReducer(step: sparseSteps[2], stream: "ledger", nearest: [0, sparseSteps[4]]))
        #expect(early?.problem.hasSuffix("Recorded states nearby: #0 (the initial state), #\(sparseSteps[4]).") == true)
        // Asked without throwing: the recorded state, or nil; the initial state is recorded at 0. A reducer does not
        // make a state recorded.
        #expect(try partial.recordedState(at: sparseSteps[4]) == (try partial.json(at: sparseSteps[4])))
        #expect(try partial.recordedState(at: sparseSteps[6]) == nil)
        #expect(try partial.recordedState(at: 0) == (try partial.json(at: 0)))
        let reducing = try TimeMachine(log: sparse, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        #expect(try reducing.recordedState(at: sparseSteps[6]) == nil)
        #expect(try reducing.recordedState(at: sparseSteps[9]) == (try reducing.state(at: sparseSteps[9])))
    }

    @Test("a state rebuilt through a damaged block is refused naming the steps that can be rebuilt: before it, and from the first snapshot after it; bisect skips it")
    func rebuiltThroughDamage() throws {
        let (log, damaged) = try damagedLedger("damaged.reactorlog")
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        var entries = log.entries(EntryQuery(from: damaged))
        let stretch = try #require(try entries.skip(past: .corruptEntry(sequence: damaged, reason: "")))
        let snapshots = try log.snapshotSequences(stream: "ledger")
        // The states are rebuilt again from the first snapshot at or after the stream's last mutation in the stretch.
        let mutations = try log.sequences(stream: "ledger", kinds: [.mutation], from: damaged, through: stretch.upperBound)
        let snapshot = try #require(snapshots.first { $0 >= (mutations.last ?? stretch.upperBound) })
        // The first mutation in the stretch whose state was not recorded is rebuilt through the damage.
        let step = try #require(mutations.first { !snapshots.contains($0) })
        let error = #expect(throws: TimeTravelError.self) { try machine.state(at: step) }
        // It names the states verify names unknown, the last span ending at that snapshot.
        guard case .stepUnreadable(step, "ledger", .corruptEntry(damaged, _), let unknown)? = error,
              let first = unknown.first, unknown.last?.upperBound == snapshot,
              unknown == log.unreadablePart(of: "ledger", in: stretch)?.statesUnknown
        else {
            Issue.record("\(String(describing: error))")
            return
        }
        let held = zip(unknown, unknown.dropFirst()).flatMap { Array($0.upperBound..<$1.lowerBound) }
        let hint = try #require(error?.hint)
        #expect(hint.hasPrefix("Pick a step before #\(first.lowerBound), or from #\(snapshot) on, rebuilt from a snapshot after the damage. "), "\(hint)")
        #expect(hint.contains("Snapshots inside the damage hold the states at #") == !held.isEmpty, "\(hint)")
        // The steps it names are rebuilt: before the first span, those snapshots inside the damage hold, and from the
        // snapshot after it. Blame through the damage names the damaged entry.
        for known in [first.lowerBound - 1, snapshot, snapshot + 1] + held {
            #expect(try machine.state(at: known).deposits > 0)
        }
        let blamed = #expect(throws: TimeTravelError.self) { try machine.blame(try StatePath(parsing: "balance")) }
        if case .stepUnreadable(let at, _, _, let spans)? = blamed { #expect(at == first.lowerBound && spans == unknown) } else { Issue.record("\(String(describing: blamed))") }
        // A bisect skips the states it cannot rebuild: a bug that came in the damaged stretch is narrowed to it, or
        // found at its first mutation when a snapshot there holds that state (block boundaries vary from run to run).
        let good = try machine.state(at: damaged - 1).deposits
        let result = try machine.bisect { state, _ in state.deposits > good ? .bad : .good }
        if let firstBad = result.firstBad {
            #expect(firstBad == mutations.first && snapshots.contains(firstBad) && result.mutation == nil, "\(firstBad)")
        } else {
            #expect(!result.candidates.isEmpty && result.candidates.allSatisfy { $0 >= damaged && $0 <= snapshot }, "\(result.candidates)")
            if case .corruptEntry(damaged, _)? = result.unreadable {} else { Issue.record("\(String(describing: result.unreadable))") }
            #expect(result.probes.contains { $0.verdict == .skip })
        }
    }

    @Test("verify names exactly the steps whose states damage leaves unknown")
    func verifyNamesUnknownStates() throws {
        let (log, damaged) = try damagedLedger("verified.reactorlog") { healthy in
            let report = try healthy.verify()
            #expect(report.isHealthy && report.unreadable.isEmpty)
        }
        let report = try log.verify()
        var entries = log.entries(EntryQuery(from: damaged))
        let stretch = try #require(try entries.skip(past: .corruptEntry(sequence: damaged, reason: "")))
        #expect(report.unreadable.map(\.entries) == [stretch])
        let part = try #require(report.unreadable.first?.streams.first)
        #expect(part.stream == "ledger" && report.unreadable.first?.streams.count == 1)
        #expect(part.entries == (try log.sequences(stream: "ledger", kinds: Set(EntryKind.allCases), from: stretch.lowerBound, through: stretch.upperBound).count))
        // Every step around the damage: its state cannot be rebuilt exactly when verify says so.
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let last = try #require(part.statesUnknown.last?.upperBound)
        #expect(!part.statesUnknown.isEmpty && last < .max)
        for step in stretch.lowerBound - 20...last + 20 {
            let unknown = part.statesUnknown.contains { $0.contains(step) }
            do {
                _ = try machine.state(at: step)
                #expect(!unknown, "#\(step) was rebuilt")
            } catch TimeTravelError.stepUnreadable(_, _, _, let spans) {
                // The error names the spans verify names, which its hint words.
                #expect(unknown && spans == part.statesUnknown, "#\(step) could not be rebuilt; unknown \(spans)")
            }
        }
    }

    @Test("bisect on a damaged block skips only the states verify names, and judges one a snapshot inside it holds")
    func bisectInsideDamage() throws {
        let (log, damaged) = try damagedLedger("bisected.reactorlog")
        let spans = try #require(try log.verify().unreadable.first?.streams.first?.statesUnknown)
        // Snapshots every 16 mutations: the damaged block holds one, whose state is known between two spans.
        #expect(spans.count >= 2, "\(spans)")
        let held = spans[0].upperBound, end = try #require(spans.last?.upperBound)
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        // The state turns bad at the snapshot inside the block: bisect narrows it to the mutations the first span
        // leaves unknown and the snapshot's, judging that state rather than skipping it with the span's.
        let result = try machine.bisect(from: damaged - 1, through: end) { _, step in step >= held ? .bad : .good }
        #expect(result.probes.contains { $0.step == held && $0.verdict == .bad }, "\(result.probes)")
        #expect(result.candidates.last == held && result.candidates.allSatisfy { $0 == held || spans[0].contains($0) })
        #expect(result.probes.allSatisfy { probe in probe.verdict == .skip || !spans.contains { $0.contains(probe.step) } })
        #expect(result.unreadable != nil && result.firstBad == nil)
    }

    @Test("the final state a closed stream's snapshot holds is known past a damaged last block, and bisect ends there")
    func finalStatePastDamage() throws {
        let (machine, published, damaged, mutations) = try ledgerWithLastBlockDamaged("closed.reactorlog", crashed: false)
        let last = try #require(mutations.last)
        // The closed entry's snapshot comes after the last mutation with none between: the state at it is known, and
        // verify's span of unknown states ends before it (it ran to the closed entry).
        let span = try #require(try machine.log.verify().unreadable.first?.streams.first?.statesUnknown.last)
        #expect(span.lowerBound >= damaged && span.upperBound == last, "\(span)")
        #expect(try machine.state(at: last) == published.last)
        let before = #expect(throws: TimeTravelError.self) { try machine.state(at: last - 1) }
        #expect(before?.description.contains("or from #\(last) on") == true, "\(String(describing: before))")
        // A bisect with the default end judges that state; the states the damage leaves unknown are skipped.
        let bad = try #require(mutations.first { $0 > 100 })
        let result = try machine.bisect { _, step in step >= bad ? .bad : .good }
        #expect(result.firstBad == bad && result.probes.contains { $0.step == last && $0.verdict == .bad })
    }

    @Test("without a closed entry, bisect's default end moves to the last state before the damage, the one after skipped")
    func bisectEndBeforeDamage() throws {
        let (machine, published, damaged, mutations) = try ledgerWithLastBlockDamaged("crashed.reactorlog", crashed: true)
        let last = try #require(mutations.last)
        #expect(throws: TimeTravelError.self) { try machine.state(at: last) }
        let span = try #require(try machine.log.verify().unreadable.first?.streams.first?.statesUnknown.last)
        #expect(span.lowerBound >= damaged && span.upperBound == .max, "\(span)")
        let end = try #require(mutations.last { $0 < span.lowerBound })
        #expect(try machine.state(at: end) == published[try #require(mutations.firstIndex(of: end)) + 1])
        // The bug came before the damage: bisect finds it, judging the last state before the damage as its end.
        let bad = try #require(mutations.first { $0 > 100 })
        let result = try machine.bisect { _, step in step >= bad ? .bad : .good }
        #expect(result.firstBad == bad && result.unreadable != nil, "\(result.probes)")
        #expect(result.probes.contains { $0.step == last && $0.verdict == .skip } && result.probes.contains { $0.step == end && $0.verdict == .bad })
        // A state that is good up to the damage: the bug, if any, is in the mutations whose states cannot be rebuilt.
        let good = #expect(throws: TimeTravelError.self) { try machine.bisect { _, step in step > end ? .bad : .good } }
        #expect(good?.description.hasPrefix("The state at #\(end), the last that can be rebuilt before the damage, is good: if it went bad, a mutation in #\(span.lowerBound)…#\(last) did it") == true, "\(String(describing: good))")
        // An end given is judged as it is: its state cannot be rebuilt.
        #expect(throws: TimeTravelError.self) { try machine.bisect(through: last) { _, step in step >= bad ? .bad : .good } }
    }

    @Test("where the stream index names no state a damage leaves unknown, the states are known again at the first snapshot that can be read")
    func unknownStatesEndAtAReadableSnapshot() throws {
        let log = try openLog("unknown-to-readable.reactorlog")
        _ = try recordLedger(log, deposits: 400)
        let actions = try log.readEntries(EntryQuery(stream: "ledger", kinds: [.action])).map(\.sequence)
        let snapshots = try log.snapshotSequences(stream: "ledger")
        let path = log.path
        try log.close()
        // An action's entry said to be damaged: the index lists no mutation there, so the span runs from it to a
        // snapshot, and the first one after it is damaged too.
        let action = try #require(actions.first { $0 > 300 })
        let (damaged, readable) = try #require(zip(snapshots, snapshots.dropFirst()).first { $0.0 >= action })
        try LogDamage.flipByte(of: path, database: "snapshots", mask: 0x40) { keys in
            try! #require(keys.first { $0.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } == damaged })
        }
        let machine = try TimeMachine(log: try EventLog.openReadOnly(at: path), stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let spans = try machine.statesUnknown(for: .corruptEntry(sequence: action, reason: "a test's"))
        // Before, the span ended at the damaged snapshot, whose state cannot be read.
        #expect(spans == [action..<readable], "snapshots \(damaged) (damaged), \(readable)")
    }

    @Test("a blame report goes round a damaged block: the changes on either side as blame finds them, the value across each span of it that snapshots bound")
    func blameReportPastDamage() throws {
        var sound: TimeMachine<ReactorReplayer<LedgerReactor>>?
        let (log, damaged) = try damagedLedger("blame-report.reactorlog") { log in
            let copy = scratch.file("blame-report-sound.reactorlog")
            try FileManager.default.copyItem(atPath: log.path, toPath: copy)
            sound = try TimeMachine(log: try EventLog.openReadOnly(at: copy), stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        }
        let truth = try #require(sound)
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let balance = try StatePath(parsing: "balance")
        #expect(throws: TimeTravelError.self) { try machine.blame(balance) }
        let report = try machine.blameReport(balance)
        let stretches = report.unknownStretches
        let first = try #require(stretches.first), last = try #require(stretches.last)
        guard case .corruptEntry(let sequence, _)? = first.damage else {
            Issue.record("the stretch's damage is \(String(describing: first.damage))")
            return
        }
        // The first stretch starts at the block's first mutation of the stream: the actions before it change nothing.
        let firstMutation = try truth.log.sequences(stream: "ledger", kinds: [.mutation], from: damaged, through: .max).first
        #expect(sequence == damaged && first.steps.lowerBound == firstMutation)
        // One stretch for each span of states the damage leaves unknown (a snapshot inside the block ends one), as
        // verify names them, each with the value at the known states around it.
        let spans = try machine.statesUnknown(for: .corruptEntry(sequence: damaged, reason: "a test's"))
        #expect(stretches.map(\.steps.upperBound) == spans.map(\.upperBound))
        #expect(stretches.dropFirst().map(\.steps.lowerBound) == spans.dropFirst().map(\.lowerBound))
        for stretch in stretches {
            #expect(stretch.old == .known(try truth.json(at: stretch.steps.lowerBound - 1)[balance]), "\(stretch.steps)")
            #expect(stretch.new == .known(try truth.json(at: stretch.steps.upperBound)[balance]), "\(stretch.steps)")
        }
        // Every change before the damage and after it, as blame finds them on either side; none inside it.
        let before = try machine.blame(balance, from: 1, through: damaged - 1)
        let after = try machine.blame(balance, from: last.steps.upperBound + 1, through: .max)
        #expect(report.changes == before + after && !before.isEmpty && !after.isEmpty)
        let across = stretches.map(BlameReport.Row.unknown)
        #expect(report.rows == before.map(BlameReport.Row.change) + across + after.map(BlameReport.Row.change))
        // The latest changes come from after the damage when there are enough there; else the stretches and before.
        #expect(try machine.blameReport(balance, latest: 2).rows == after.suffix(2).map(BlameReport.Row.change))
        let reaching = try machine.blameReport(balance, latest: after.count + 1)
        #expect(reaching.rows == [.change(try #require(before.last))] + across + after.map(BlameReport.Row.change))
    }

    @Test("a change whose action lies in a damaged block is found without its action: blame, the report, bisect")
    func changeOfADamagedAction() throws {
        let log = try openLog("far-cause.reactorlog", policy: .never)
        let stream = try handWrittenLedger(in: log)
        // An action whose mutation comes 600 entries later, as an effect's answer may, and deposits of 1 between.
        let early = try stream.append(.action, LedgerReactor.Action.deposit(5), caseName: "deposit")
        let reactor = LedgerReactor()
        var state = reactor.initialState
        for _ in 0..<300 {
            let action = try stream.append(.action, LedgerReactor.Action.deposit(1), caseName: "deposit")
            try stream.append(.mutation, LedgerReactor.Mutation.add(1), caseName: "add", cause: action)
            state = reactor.reduce(state: state, mutation: .add(1))
        }
        // A snapshot far past the early action's block: the states after it are known however the blocks fall.
        try stream.writeSnapshot(state, at: stream.lastSequence)
        let late = try stream.append(.mutation, LedgerReactor.Mutation.add(5), caseName: "add", cause: early)
        try stream.close()
        let path = log.path
        try log.close()
        try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { keys in
            keys.last { $0.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } <= early } ?? keys[0]
        }
        let machine = try TimeMachine(log: try EventLog.openReadOnly(at: path), stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let balance = try StatePath(parsing: "balance")
        // Before, looking its action up threw the damage, and the change was not listed.
        let changes = try machine.blame(balance, from: late)
        #expect(changes.map(\.mutation.sequence) == [late] && changes[0].action == nil && changes[0].mutation.cause == early)
        #expect(changes[0].old == .number(300) && changes[0].new == .number(305))
        let report = try machine.blameReport(balance)
        #expect(report.unknownStretches.count == 1 && report.changes.map(\.mutation.sequence).last == late)
        #expect(report.changes.last?.action == nil)
        let bisect = try machine.bisect { state, _ in state.balance > 300 ? .bad : .good }
        #expect(bisect.firstBad == late && bisect.action == nil && bisect.mutation?.cause == early)
    }

    @Test(
        "where the index over a damaged block is whole again after a snapshot inside it, verify and time travel agree on every state after the snapshot",
        arguments: [(fillers: 300, snapshotAtAction: false), (fillers: 24, snapshotAtAction: true)])
    func snapshotInsideDamageThenIndexWhole(fillers: Int, snapshotAtAction: Bool) throws {
        let log = try openLog("index-whole-again.reactorlog", policy: .never)
        let ledger = try handWrittenLedger(in: log)
        let filler = try log.openStream(named: "filler", reactorType: "Filler", schemaFingerprint: "v1", initialState: 0)
        // Rounds of 16 deposits, a snapshot at the last (or at an action after it, as a recorder's may land), then
        // entries of another stream: 300 of them, so that a block of entries whose ledger entries end at a snapshot
        // holds no ledger mutation after it; or 24, so that it holds the next round's first ones.
        let reactor = LedgerReactor()
        var state = reactor.initialState
        var states: [UInt64: LedgerReactor.State] = [:], snapshots: [UInt64] = []
        for _ in 0..<40 {
            for _ in 0..<16 {
                let action = try ledger.append(.action, LedgerReactor.Action.deposit(1), caseName: "deposit")
                let mutation = try ledger.append(.mutation, LedgerReactor.Mutation.add(1), caseName: "add", cause: action)
                state = reactor.reduce(state: state, mutation: .add(1))
                states[mutation] = state
            }
            if snapshotAtAction { states[try ledger.append(.action, LedgerReactor.Action.deposit(0), caseName: "deposit")] = state }
            try ledger.writeSnapshot(state, at: ledger.lastSequence)
            snapshots.append(ledger.lastSequence)
            for _ in 0..<fillers { try filler.append(.action, 1, caseName: "tick") }
        }
        let path = log.path
        try log.close()
        // A block of entries that holds an index block's first ledger entry and the snapshot of that round (and, with
        // 300 fillers, ends before the next round; with 24, after its first mutations), damaged with the index block
        // before it (over the block's start): the ledger's index is whole again from that entry.
        let blocks = try LogDamage.firstNumbers(of: path, database: "entries")
        let indexStarts = try LogDamage.firstNumbers(of: path, database: "stream-index").dropFirst()
        // Not the log's first block, which holds the stream's opening: a fresh-clone CI run under load (2026-12-04) cut
        // the first round's index there, and verify then named the states after the snapshot unknown, as time travel
        // refused them (they agreed; the index read after the snapshot failed, not yet understood).
        let (block, snapshot) = try #require(indexStarts.lazy.compactMap { start -> (UInt64, UInt64)? in
            guard let block = blocks.last(where: { $0 <= start }), block != blocks.first,
                  let snapshot = snapshots.first(where: { $0 > start }) else { return nil }
            let next = blocks.first { $0 > block } ?? .max
            let roundEnds = snapshotAtAction ? next > snapshot + UInt64(fillers) + 2 : next <= snapshot + UInt64(fillers)
            return block < start && snapshot < next && roundEnds ? (block, snapshot) : nil
        }.first)
        try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { keys in
            try! #require(keys.first { $0.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } == block })
        }
        try LogDamage.damageIndexBlocks(over: block, in: path)
        let damaged = try EventLog.openReadOnly(at: path)
        let spans = try #require(try damaged.verify().unreadable.first?.streams.first { $0.stream == "ledger" }?.statesUnknown)
        // Before, verify named every state from the snapshot to the next one unknown, which time travel rebuilt.
        if !snapshotAtAction { #expect(spans.allSatisfy { $0.upperBound <= snapshot }, "\(spans), snapshot #\(snapshot)") }
        let machine = try TimeMachine(log: damaged, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let next = try #require(snapshots.first { $0 > snapshot })
        for step in states.keys.sorted() where step >= block && step <= next + 40 {
            let unknown = spans.contains { $0.contains(step) }
            do {
                let rebuilt = try machine.state(at: step)
                #expect(!unknown && rebuilt == states[step], "#\(step): \(spans)")
            } catch is TimeTravelError {
                #expect(unknown, "#\(step) refused: \(spans)")
            }
        }
    }

    @Test("past damage to a block of entries and to the index block over it, no state is taken from a snapshot ahead")
    func noStateAheadWithoutTheIndex() throws {
        let log = try openLog("both.reactorlog")
        let published = try recordLedger(log, deposits: 3_000)
        let mutations = try mutationSteps(log, "ledger")
        let path = log.path
        try log.close()
        let key = try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { $0[$0.count / 2] }
        let damaged = key.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        // The index block whose entries run into the damaged block: the stream index cannot say what it held.
        try LogDamage.flipByte(of: path, database: "stream-index", mask: 0x40) { keys in
            try! #require(keys.last { $0.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } <= damaged })
        }
        let reader = try EventLog.openReadOnly(at: path)
        let machine = try TimeMachine(log: reader, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        // Each step from the damage to the next snapshot is refused, or its state is the one published: before, a
        // failed look for mutations between a step and the next snapshot read as none, and that snapshot's state
        // was given for the steps before it.
        let snapshot = try #require(try reader.snapshotSequences(stream: "ledger").first { $0 > damaged + 100 })
        var refused = 0
        for (index, step) in mutations.enumerated() where step >= damaged && step < snapshot {
            do {
                #expect(try machine.state(at: step) == published[index + 1], "#\(step)")
            } catch is TimeTravelError {
                refused += 1
            }
        }
        #expect(refused > 0)
        // Bisect lists the stream's mutations around the damage from what can be read, the stretch that cannot a
        // step always skipped (before, the listing ended the bisect): a bug before the damage or after the snapshot is
        // found; one inside leaves the stretch among the candidates.
        let inside = try #require(mutations.first { $0 > damaged })
        let after = try #require(mutations.first { $0 > snapshot })
        let before = try #require(mutations.last { $0 < damaged - 40 })
        for bug in [before, after] {
            let found = try machine.bisect { _, step in step >= bug ? .bad : .good }
            #expect(found.firstBad == bug, "bug at #\(bug): \(found.probes)")
        }
        let unsure = try machine.bisect { _, step in step >= inside ? .bad : .good }
        #expect(unsure.firstBad == nil && unsure.candidates.contains(inside) && unsure.unreadable != nil, "\(unsure.candidates)")
        // Ended at a snapshot inside the damaged stretch, bisect judges it and names the steps before it as candidates:
        // before, the stretch's first step was taken for the bad end and its state, which cannot be rebuilt, asked for.
        let spans = try machine.statesUnknown(for: .corruptEntry(sequence: damaged, reason: "a test's"))
        let held = try #require(spans.count > 1 ? spans[0].upperBound : nil, "\(spans)")
        let ended = try machine.bisect(through: held) { _, step in step >= inside ? .bad : .good }
        #expect(ended.firstBad == nil && ended.candidates.contains(inside) && ended.candidates.last == held, "\(ended.candidates)")
    }

    @Test("after a crash, with the last block and the index block over it damaged, bisect's end moves before the damage and its extent is not guessed")
    func bisectEndBeforeUnlistedDamage() throws {
        let (first, _, damaged, mutations) = try ledgerWithLastBlockDamaged("crashed-unlisted.reactorlog", crashed: true)
        let path = first.log.path
        try first.log.close()
        try LogDamage.damageIndexBlocks(over: damaged, in: path)
        let machine = try TimeMachine(log: try EventLog.openReadOnly(at: path), stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let end = try #require(mutations.last { $0 < damaged })
        let bug = try #require(mutations.first { $0 > 100 })
        #expect(try machine.bisect { _, step in step >= bug ? .bad : .good }.firstBad == bug)
        // A bug in the damaged block: how far the stream's mutations ran past the damage cannot be listed, and is not
        // named (the log's highest number known is the damaged block's first). Block boundaries follow the recording's
        // clock: when a snapshot holds the state at that first number, bisect judges it and names it instead.
        do {
            let result = try machine.bisect { _, step in step > end ? .bad : .good }
            #expect(result.firstBad == damaged && mutations.contains(damaged) && result.mutation == nil, "\(result.probes)")
            #expect(try machine.log.snapshotSequences(stream: "ledger").contains(damaged))
        } catch let error as TimeTravelError {
            #expect(error.description.hasPrefix("The state at #\(end), the last that can be rebuilt before the damage, is good: if it went bad, a mutation from #\(damaged) on did it"), "\(error)")
        }
    }

    @Test("on a closed log whose last block starts at a snapshot, that block and the index over it damaged, a good state there is named the last that can be rebuilt before the damage")
    func bisectEndAtSnapshotBeforeUnlistedDamage() throws {
        // Mutations alone, each with a snapshot, then the stream closed with its final state: whatever entry the last
        // block of entries starts at, a snapshot holds its state (the layout a recorder's timing makes only now and
        // then, seen once by the random sweep).
        let log = try openLog("end-snapshot.reactorlog", policy: .never)
        let ledger = try handWrittenLedger(in: log)
        let reactor = LedgerReactor()
        var state = reactor.initialState
        var mutations: [UInt64] = []
        for _ in 0..<400 {
            mutations.append(try ledger.append(.mutation, LedgerReactor.Mutation.add(1), caseName: "add"))
            state = reactor.reduce(state: state, mutation: .add(1))
            try ledger.writeSnapshot(state, at: mutations[mutations.count - 1])
        }
        try ledger.close(finalState: try log.encode(state))
        let path = log.path
        try log.close()
        let blocks = try LogDamage.firstNumbers(of: path, database: "entries")
        let damaged = try #require(blocks.last)
        let bug = try #require(mutations.first { $0 > damaged }, "the last block holds no mutation after its first: \(blocks.suffix(3))")
        try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { $0[$0.count - 1] }
        #expect(try LogDamage.damageIndexBlocks(over: damaged, in: path) == 1)
        let machine = try TimeMachine(log: try EventLog.openReadOnly(at: path), stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        // The log's highest number known is the damaged block's first; its state, held by a snapshot, is good, and the
        // bug lies after it in entries that cannot be read. Before, bisect said there was no bad state to find.
        #expect {
            try machine.bisect { _, step in step >= bug ? .bad : .good }
        } throws: { error in
            "\(error)".hasPrefix("The state at #\(damaged), the last that can be rebuilt before the damage, is good: if it went bad, a mutation after it did it")
        }
        // A bug at or before it is found, the damage no obstacle.
        let early = try #require(mutations.last { $0 < damaged - 10 })
        #expect(try machine.bisect { _, step in step >= early ? .bad : .good }.firstBad == early)
        #expect(try machine.bisect { _, step in step >= damaged ? .bad : .good }.firstBad == damaged)
    }

    /// A ledger of 3,000 deposits in log `name`, its reactor released (its stream closed) or, `crashed`, a copy of the
    /// log as an app that crashed leaves it (no closed entry, no last snapshot); then the block holding its last mutation
    /// damaged under its checksum. The stream's machine on the log opened read-only, the published states, the damaged
    /// block's first number and the stream's mutations.
    private func ledgerWithLastBlockDamaged(
        _ name: String, crashed: Bool
    ) throws -> (TimeMachine<ReactorReplayer<LedgerReactor>>, [LedgerReactor.State], UInt64, [UInt64]) {
        let log = try openLog(name)
        let published: [LedgerReactor.State]
        // After a crash the block holding the last mutation is damaged: the log's last block, and no snapshot holds a
        // state after it. A closed stream's `closed` entry holds its final state, so there the block holding the
        // mutation before the last is damaged, and with it the last one when they share a block: block boundaries
        // follow the entries' sizes, which follow the recording's clock, and now and then the last mutation starts a
        // block of its own, whose damage alone would leave no state unknown (and, after a crash, a readable last block
        // behind the damaged one would leave the last state unknown but the log's end known).
        let path = crashed ? scratch.file("killed-" + name) : log.path
        published = try recordLedger(log, deposits: 3_000, crashedCopy: crashed ? path : nil)
        try log.close()
        let damagedMutation = try {
            let recorded = try EventLog.openReadOnly(at: path)
            let last = try recorded.lastSequence(stream: "ledger", kinds: [.mutation], atOrBefore: .max) ?? 1
            return crashed ? last : try recorded.lastSequence(stream: "ledger", kinds: [.mutation], atOrBefore: last - 1) ?? 0
        }()
        let key = try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { keys in
            keys.last { $0.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } <= damagedMutation } ?? keys[keys.count - 1]
        }
        let damaged = try EventLog.openReadOnly(at: path)
        let machine = try TimeMachine(log: damaged, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let mutations = try damaged.sequences(stream: "ledger", kinds: [.mutation], from: 1, through: .max)
        return (machine, published, key.suffix(8).reduce(0) { $0 << 8 | UInt64($1) }, mutations)
    }

    /// A ledger of 3,000 deposits in log `name`, `healthy` run on it, then the block of entries in the middle of the
    /// file damaged under its checksum; the log opened read-only, and the damaged block's first number.
    private func damagedLedger(_ name: String, healthy: (EventLog) throws -> Void = { _ in }) throws -> (EventLog, UInt64) {
        let path: String
        do {
            let log = try openLog(name)
            _ = try recordLedger(log, deposits: 3_000)
            try healthy(log)
            path = log.path
            try log.close()
        }
        let key = try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { $0[$0.count / 2] }
        return (try EventLog.openReadOnly(at: path), key.suffix(8).reduce(0) { $0 << 8 | UInt64($1) })
    }

    @Test("a step past the end, or trimmed away, is refused with a sentence")
    func badSteps() throws {
        let log = try openLog()
        _ = try recordLedger(log, deposits: 40)
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let last = try log.highestSequence()
        #expect(throws: TimeTravelError.stepOutOfRange(step: last + 1, stream: "ledger", highest: last)) { try machine.state(at: last + 1) }
        try log.trim(before: 60)
        let trimmed = #expect(throws: TimeTravelError.self) { try machine.state(at: 3) }
        #expect(trimmed?.description.contains("trimmed") == true)
        #expect(try machine.state(at: last).deposits == 40)
        #expect(throws: EventLogError.unknownStream(name: "nope")) { try TimeMachine(log: log, stream: "nope", replayer: RecordedStates()) }
    }

    @Test("after a trim, divergence, bisect and the replay assertion start at the earliest replayable step")
    func trimAware() throws {
        let log = try openLog()
        _ = try recordLedger(log, deposits: 40, bugAtDeposit: 33)
        try log.trim(before: 60)
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor(bugAtDeposit: 33) })
        let earliest = try machine.earliestReplayableStep()
        #expect(earliest > 0)
        #expect(earliest == (try log.snapshotSequences(stream: "ledger").first))
        #expect(try machine.divergence() == nil)
        try machine.assertReplayMatchesRecording()
        try machine.assertReplayMatchesRecording(from: earliest, through: try machine.lastStep() - 5)
        let bug = try machine.bisect { state, _ in state.balance < 0 ? .bad : .good }
        let culprit = try #require(bug.firstBad)
        #expect(try machine.state(at: culprit).deposits == 33)
        #expect(try machine.bisect(replaying: bug.probes).firstBad == culprit)
    }

    @Test("the schema check says safe, risky or impossible, naming the entry, case and field")
    func schemaCheck() throws {
        let log = try openLog()
        _ = try recordLedger(log, deposits: 5)
        let machine = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        #expect(machine.stream.schemaFingerprint == LedgerReactor.defaultSchemaFingerprint)
        #expect(try machine.checkSchema(currentFingerprint: LedgerReactor.defaultSchemaFingerprint).verdict == .safe)
        #expect(try machine.checkSchema(currentFingerprint: "v2").verdict == .risky)

        final class RenamedLedger: Reactor {
            enum Action: Codable, Sendable { case deposit(Int) }
            enum Mutation: Codable, Sendable { case credit(Int) }
            struct State: Codable, Sendable { var balance = 0, deposits = 0, last: [Int] = [] }
            let initialState = State()
            let runtime = Runtime()
        }
        let renamed = try TimeMachine(log: log, stream: "ledger", replayer: ReactorReplayer { RenamedLedger() })
        let report = try renamed.checkSchema(currentFingerprint: "v3")
        #expect(report.verdict == .impossible)
        #expect(report.problem?.what == "mutation add")
        #expect(report.description.contains("mutation add"))
    }
}

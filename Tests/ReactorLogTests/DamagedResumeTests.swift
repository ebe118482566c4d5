import EventLogKit
import Foundation
import LMDB
import ReactorLog
import ReactorLogPersistence
import TestSupport
import Testing

/// An app that records in the field starts even when its stream cannot be resumed because of damage.
@Suite("Resuming a damaged stream", .timeLimit(.minutes(3)))
struct DamagedResumeTests {
    let scratch = ScratchDirectory()

    /// Adds numbers: one mutation per action, synchronously.
    final class TallyReactor: Reactor {
        enum Action: Codable, Sendable { case add(Int) }
        enum Mutation: Codable, Sendable { case added(Int) }
        struct State: Codable, Sendable, Equatable { var total = 0 }
        let initialState = State()
        let runtime = Runtime()

        func mutate(action: Action) -> Effect {
            switch action {
            case let .add(number): .just(.added(number))
            }
        }

        func reduce(state: State, mutation: Mutation) -> State {
            var state = state
            switch mutation {
            case let .added(number): state.total += number
            }
            return state
        }
    }

    /// A log whose stream `tally` holds 300 additions (601 entries, a snapshot at the 256th mutation) and no clean
    /// close, as when the app is killed; returns its path and highest sequence number.
    func recordedLog(_ name: String) async throws -> (path: String, highest: UInt64) {
        let log = try EventLog.open(at: scratch.file("recording-" + name))
        let reactor = TallyReactor()
        try reactor.attach(to: log, stream: "tally")
        for number in 1...300 { reactor.send(.add(number)) }
        try await log.flush()
        let highest = try log.highestSequence()
        let path = scratch.file(name)
        try ScratchDirectory.copyLog(at: log.path, to: path)   // what a killed app leaves
        try withExtendedLifetime(reactor) { try log.close() }
        return (path, highest)
    }

    /// Flips `bit` in the byte at `offset` from the end of the last record of database `name` of the log at `path`.
    func flipLastRecord(of name: String, in path: String, offset: (Int) -> Int, bit: UInt8) throws {
        let environment = try Environment(path: path)
        let database = try environment.openDatabase(name)
        try environment.write { txn in
            let last = try #require(try txn.withCursor(database) { try $0.last() })
            var record = Array(last.value)
            record[offset(record.count)] ^= bit
            try txn.put(database, key: Array(last.key), value: record)
        }
    }

    /// ``recordedLog(_:)`` with one flipped bit in its last block of entries, past the snapshot.
    func damagedLog() async throws -> (path: String, highest: UInt64) {
        let (path, highest) = try await recordedLog("tally.reactorlog")
        try flipLastRecord(of: "entries", in: path, offset: { $0 - 2 }, bit: 0x40)
        return (path, highest)
    }

    @Test("by default the damaged stream is kept, untouched, under NAME@1, and the reactor records a new generation")
    func newGeneration() async throws {
        let (path, highest) = try await damagedLog()
        let log = try EventLog.open(at: path)
        let reactor = TallyReactor()
        let change = try #require(try reactor.attach(to: log, stream: "tally"))
        #expect(change.retiredAs == "tally@1")
        #expect(change.problem?.contains("is corrupt") == true, "\(change)")
        #expect(change.description.hasPrefix("Stream 'tally' could not be resumed: Entry #"), "\(change)")
        #expect(change.description.hasSuffix("Its entries are kept as stream 'tally@1'; 'tally' starts a new generation from the initial state."))
        #expect(reactor.currentState == TallyReactor.State())
        reactor.send(.add(5))
        try await log.flush()
        let fresh = try log.readEntries(EntryQuery(stream: "tally"))
        #expect(fresh.map(\.kind) == [.streamOpened, .action, .mutation])
        #expect(fresh.first?.sequence == highest + 1, "nothing was appended to the damaged stream first")
        #expect(reactor.currentState.total == 5)
        // The old generation still reads up to its damage, and verify still finds the damage.
        let kept = try log.readEntries(EntryQuery(through: 501, stream: "tally@1", kinds: [.mutation]))
        #expect(kept.count == 250, "mutations #3, #5, … #501")
        #expect(try !log.verify().isHealthy)
    }

    @Test("a damaged stream index does not stop a resume: the stream's entries are read from the whole log, and the state is whole")
    func damagedIndex() async throws {
        let (path, _) = try await recordedLog("tally-index.reactorlog")
        // A bit flipped in the stream's last index block, which lists the mutations after the snapshot.
        try flipLastRecord(of: "stream-index", in: path, offset: { $0 / 2 }, bit: 0x08)
        // Two launches, each killed: the second resumes past the damage again.
        var launched = path
        for round in 1...2 {
            let reopened = try EventLog.open(at: launched)
            let resumed = TallyReactor()
            #expect(try resumed.attach(to: reopened, stream: "tally") == nil, "resumed, not a new generation")
            #expect(resumed.currentState.total == 45_150 + (round - 1) * 5)
            guard case .corruptIndex = try #require(reopened.bypassedIndexDamage.first) else {
                Issue.record("\(reopened.bypassedIndexDamage)")
                return
            }
            resumed.send(.add(5))
            try await reopened.flush()
            #expect(try reopened.streams().map(\.name) == ["tally"])
            launched = scratch.file("tally-index-killed-\(round).reactorlog")
            try ScratchDirectory.copyLog(at: reopened.path, to: launched)
            try withExtendedLifetime(resumed) { try reopened.close() }
        }
    }

    @Test("a block key damaged upwards in the file, so that it sorts last, does not stop the app writing", arguments: [true, false])
    func keyDamagedUpwards(lastBlock: Bool) async throws {
        let (path, highest) = try await recordedLog("tally-key.reactorlog")
        // LMDB does not check keys: an append after the tree's last key, now the damaged one, failed with
        // MDB_KEYEXIST, and the log took no more appends however often the app was started.
        let key = try LogDamage.moveKeyInFile(of: path) { $0[lastBlock ? $0.count - 1 : $0.count / 2] }
        let first = key.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        for round in 1...2 {
            let log = try EventLog.open(at: path)
            let reactor = TallyReactor()
            let change = try reactor.attach(to: log, stream: "tally")
            // A damaged last block holds the mutations after the snapshot: a new generation. A middle one is before
            // the snapshot: the stream resumes with its whole state.
            #expect((change?.retiredAs == "tally@1") == (lastBlock && round == 1), "\(String(describing: change))")
            if !lastBlock { #expect(reactor.currentState.total == 45_150 + (round - 1) * 400) }
            for _ in 1...100 { reactor.send(.add(4)) }
            try await log.flush()
            try withExtendedLifetime(reactor) { try log.close() }
        }
        // Every entry but the damaged block's reads, in order, the block named by its own numbers; verify agrees.
        let log = try EventLog.openReadOnly(at: path)
        let stretch = try #require(try log.verify().unreadable.first?.entries)
        #expect(stretch.lowerBound == first && stretch.upperBound < (lastBlock ? highest + 1 : 500), "\(stretch)")
        var iterator = log.entries()
        var read: [UInt64] = [], skipped: [ClosedRange<UInt64>] = []
        while let entry = try iterator.nextReadable(skipped: { range, _ in skipped.append(range) }) { read.append(entry.sequence) }
        let last = try log.highestSequence()
        #expect(skipped == [stretch] && read == (1...last).filter { !stretch.contains($0) }, "\(skipped)")
        // The two rounds' mutations, in the stream the app records to, after the damaged block in its own order.
        var mutations: [UInt64] = []
        var stream = log.entries(EntryQuery(stream: "tally", kinds: [.mutation]))
        while let entry = try stream.nextReadable(skipped: { _, _ in }) { mutations.append(entry.sequence) }
        let before = lastBlock ? [] : (3...highest).filter { $0 % 2 == 1 && !stretch.contains($0) }
        #expect(mutations.prefix(before.count) == before[...] && mutations.count == before.count + 200)
        #expect(mutations.suffix(200).allSatisfy { $0 > highest })
    }

    @Test("with onSchemaChange: .fail, attach throws the damage and writes nothing")
    func failing() async throws {
        let (path, highest) = try await damagedLog()
        let log = try EventLog.open(at: path)
        #expect {
            try TallyReactor().attach(to: log, stream: "tally", onSchemaChange: .fail)
        } throws: { error in
            guard case .corruptEntry = error as? EventLogError else { return false }
            return true
        }
        try await log.flush()
        #expect(try log.highestSequence() == highest)
        #expect(try log.stream(named: "tally") != nil)
    }
}

import EventLogKit
import Foundation
import TestSupport
import Testing
import TimeTravel

/// Retention on real logs: a long recording against a small budget keeps the file within it, keeps pinned windows,
/// never reuses a number, and every remaining step replays the state the reactor had.
@Suite("Retention", .serialized, .timeLimit(.minutes(3)))
struct RetentionTests {
    let scratch = ScratchDirectory()

    /// The size of the log's data file.
    func fileSize(_ path: String) throws -> Int {
        try #require((try FileManager.default.attributesOfItem(atPath: path + "/data.mdb"))[.size] as? Int)
    }

    /// Deposit `k` (from 1) is action #2k and mutation #2k+1: #1 is the stream's opening marker.
    func mutationStep(ofDeposit k: Int) -> UInt64 { UInt64(2 * k + 1) }

    @Test("a long run against a 1 MiB budget: the file stays within 1.1× of it, the pinned window survives, every remaining step replays")
    func budget() async throws {
        let budget = 1 << 20
        let path = scratch.file("budget.reactorlog")
        // An incident early in the run: the 2,000 entries around deposit 5,000.
        let incident = mutationStep(ofDeposit: 5_000)
        let deposits = 60_000
        // Recording blocks for seconds: on a thread of its own; the expectations below run in the test's task.
        let published = try await onOwnThread {
            var configuration = EventLogConfiguration(durability: .noSync)
            configuration.snapshotPolicy = .every(mutations: 64)
            configuration.retention = RetentionPolicy(maxBytes: budget)
            let log = try EventLog.open(at: path, configuration: configuration)
            try log.pin(around: incident, before: 1_000, after: 1_000, reason: "support ticket 4411")
            let published = try recordLedger(log, deposits: deposits)
            try log.close()
            return published
        }
        let size = try fileSize(path)
        #expect(size <= budget + budget / 10, "the data file is \(size) bytes for a budget of \(budget)")

        let reader = try EventLog.openReadOnly(at: path)
        let report = try reader.verify()
        #expect(report.isHealthy, "\(report.problems.prefix(3))")
        #expect(try reader.highestSequence() >= mutationStep(ofDeposit: deposits), "numbers are never reused")
        let kept = try reader.sequences(stream: "ledger", kinds: [.mutation])
        #expect(kept.count < deposits / 4, "retention removed most of the run: \(kept.count) mutations kept")
        let window = (incident - 1_000)...(incident + 1_000)
        let pinnedMutations = kept.filter { window.contains($0) }
        #expect(pinnedMutations.count == 1_001, "every mutation of the pinned window is kept")
        #expect(try reader.gaps(stream: "ledger").contains { $0.removed.lowerBound > window.upperBound }, "retention removed entries after the pin")

        let machine = try TimeMachine(log: reader, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        let earliest = try machine.earliestReplayableStep()
        var iterator = try machine.states(from: earliest + 1)
        var checked = 0
        while let (entry, state) = try iterator.next() {
            guard entry.kind == .mutation else { continue }
            #expect(state == published[Int(entry.sequence - 1) / 2], "#\(entry.sequence)")
            checked += 1
        }
        #expect(checked == kept.filter { $0 > earliest }.count)
        for step in [window.lowerBound + 1, incident, window.upperBound - 1] {
            let state = try machine.state(at: step)
            #expect(state == published[Int(step - 1) / 2], "state at #\(step), inside the pinned window")
        }
    }

    @Test("a gap: states inside it are refused by name, states around it replay, and blame and divergence step over it")
    func gap() throws {
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = .every(mutations: 10)
        let path = scratch.file("gap.reactorlog")
        let log = try EventLog.open(at: path, configuration: configuration)
        let published = try recordLedger(log, deposits: 100)
        // Snapshots after deposits 10, 20, ...: removing #50..<#100 keeps the snapshot of deposit 40 (#81).
        let report = try log.removeEntries(50..<100)
        #expect(report.streams.first?.replaysFrom == mutationStep(ofDeposit: 40))
        try log.close()

        let reader = try EventLog.openReadOnly(at: path)
        #expect(try reader.metadata().formatVersion == EventLog.formatVersion)
        #expect(try reader.gaps(stream: "ledger") == [StreamGap(stream: "ledger", removed: 50...81)])
        let verified = try reader.verify()
        #expect(verified.isHealthy, "\(verified.problems)")
        let machine = try TimeMachine(log: reader, stream: "ledger", replayer: ReactorReplayer { LedgerReactor() })
        for step: UInt64 in [49, 81, 83, 120] {
            #expect(try machine.state(at: step) == published[Int(step - 1) / 2], "#\(step)")
        }
        #expect(throws: TimeTravelError.self) { try machine.state(at: 60) }
        do {
            _ = try machine.state(at: 60)
        } catch {
            #expect("\(error)".contains("#50 to #81"), "\(error)")
        }
        // Blame across the gap does not pin the jump on the first mutation after it.
        let changes = try machine.blame(try StatePath(parsing: "deposits"))
        #expect(!changes.contains { $0.mutation.sequence == 83 && $0.old == .number(24) })
        #expect(changes.count == 100 - 16, "one per kept mutation")
        #expect(try machine.divergence() == nil, "replay across the gap restarts from its snapshot")
        #expect(throws: TimeTravelError.self) { try machine.whatIf(skipping: [41]) }
    }

    @Test("by entry count and by age; pins around effect errors keep an incident")
    func countAgeAndErrorPins() async throws {
        let path = scratch.file("count.reactorlog")
        let error: UInt64 = try await onOwnThread {
            var configuration = EventLogConfiguration(durability: .noSync)
            configuration.snapshotPolicy = .every(mutations: 16)
            configuration.retention = RetentionPolicy(maxEntries: 2_000, pinAroundErrors: 50)
            let log = try EventLog.open(at: path, configuration: configuration)
            let stream = try log.openStream(named: "counter", reactorType: "Counter", schemaFingerprint: "v1", initialState: Data("0".utf8))
            var error: UInt64 = 0
            for index in 1...20_000 {
                let action = try stream.append(EntryDraft(kind: .action, caseName: "add", payload: Data("{}".utf8)))
                let mutation = try stream.append(EntryDraft(kind: .mutation, caseName: "add", payload: Data("{\"add\":{\"_0\":\(index)}}".utf8), cause: action))
                if index == 1_000 {
                    error = try stream.append(EntryDraft(kind: .effectError, caseName: "timeout", payload: Data("{}".utf8), cause: action))
                }
                if stream.isSnapshotDue { try stream.writeSnapshot(index, at: mutation) }
            }
            try log.close()
            return error
        }
        let reader = try EventLog.openReadOnly(at: path)
        let count = try reader.readEntries().count
        #expect(count <= 2_000 + 101 + 64, "\(count) entries kept")
        #expect(try reader.entry(at: error)?.kind == .effectError, "the error survives")
        #expect(try reader.pins().contains { $0.range == (error - 50)...(error + 50) && $0.reason.contains("effect error #\(error)") })
        #expect(try reader.verify().isHealthy)

        var aged = EventLogConfiguration()
        aged.retention = RetentionPolicy(maxAge: .seconds(3600))
        let agedPath = scratch.file("aged.reactorlog")
        let old = try EventLog.open(at: agedPath, configuration: aged)
        let now = Int64(Date().timeIntervalSince1970 * 1e9)
        let ticks = try old.openStream(
            named: "ticks", reactorType: "Ticks", schemaFingerprint: "v1", initialState: Data("0".utf8), timestamp: now - 49 * 3_600_000_000_000)
        for hour in (0..<48).reversed() {
            let mutation = try ticks.append(EntryDraft(kind: .mutation, caseName: "tick", payload: Data("{}".utf8), timestamp: now - Int64(hour) * 3_600_000_000_000 - 1_000_000_000))
            try ticks.writeSnapshot(hour, at: mutation)
        }
        try await old.flush()
        try old.close()
        let remaining = try EventLog.openReadOnly(at: agedPath).readEntries()
        #expect(remaining.allSatisfy { $0.timestamp >= now - 2 * 3_600_000_000_000 }, "nothing older than the hour before the last kept snapshot")
        #expect(remaining.count <= 3)
    }

    /// Keeps at most 500 entries, a snapshot every 16 mutations.
    static let smallBudget = {
        var configuration = EventLogConfiguration(durability: .noSync)
        configuration.snapshotPolicy = .every(mutations: 16)
        configuration.retention = RetentionPolicy(maxEntries: 500)
        return configuration
    }()

    /// Appends `count` deposits (an action and its mutation each) to stream "counter" of the log at `path`, with its
    /// snapshots, under ``smallBudget``.
    func record(_ count: Int, from first: Int, at path: String) throws {
        let log = try EventLog.open(at: path, configuration: Self.smallBudget)
        let stream = try log.openStream(named: "counter", reactorType: "Counter", schemaFingerprint: "v1", initialState: Data("0".utf8))
        for index in first..<(first + count) {
            let action = try stream.append(EntryDraft(kind: .action, caseName: "add", payload: Data("{}".utf8)))
            let mutation = try stream.append(EntryDraft(kind: .mutation, caseName: "add", payload: Data("{\"add\":{\"_0\":\(index)}}".utf8), cause: action))
            if stream.isSnapshotDue { try stream.writeSnapshot(index, at: mutation) }
        }
        try log.close()
    }

    /// The window ``pinWindow(at:)`` pins.
    static let window: ClosedRange<UInt64> = 100...200

    /// Makes a log at `path` under ``smallBudget`` with ``window`` pinned, reason `ticket 12`, before any entry.
    func pinWindow(at path: String) throws {
        let log = try EventLog.open(at: path, configuration: Self.smallBudget)
        try log.pin(Self.window, reason: "ticket 12")
        try log.close()
    }

    @Test("an unpinned window is kept no longer: retention removes it like any other stretch, and pins are read back as written")
    func unpinnedWindowRemoved() throws {
        let path = scratch.file("unpin.reactorlog"), window = Self.window
        try pinWindow(at: path)
        try record(2_000, from: 1, at: path)
        do {
            // A read-only log of the path is let go at the end of this scope, so that it can be opened for writing.
            let pinned = try EventLog.openReadOnly(at: path)
            #expect(try pinned.pins().map(\.range) == [window])
            #expect(try pinned.pins().first?.reason == "ticket 12")
            #expect(Set(try pinned.sequences(stream: "counter", kinds: [.action, .mutation])).isSuperset(of: window), "the pinned window survives retention")
        }

        do {
            let log = try EventLog.open(at: path, configuration: Self.smallBudget)
            let pin = try #require(try log.pins().first)
            try log.unpin(pin)
            #expect(try log.pins().isEmpty)
            try log.close()
        }
        try record(2_000, from: 2_001, at: path)
        let reader = try EventLog.openReadOnly(at: path)
        let kept = try reader.sequences(stream: "counter", kinds: [.action, .mutation])
        #expect(!kept.contains { window.contains($0) }, "retention removed the window once unpinned: \(kept.prefix(3))")
        #expect(kept.count <= 500 + 64, "\(kept.count) entries kept")
        #expect(try reader.verify().isHealthy)
        #expect(throws: EventLogError.self, "a reader cannot remove a pin") {
            try reader.unpin(LogPin(range: window, reason: "ticket 12", createdAt: 0))
        }
    }

    @Test("a pin whose record is damaged keeps the window its key names through retention, which goes on removing around it")
    func damagedPinKeepsItsWindow() throws {
        let path = scratch.file("damaged-pin.reactorlog"), window = Self.window
        try pinWindow(at: path)
        // The middle of the record: its last sequence number, under its checksum.
        try LogDamage.flipByte(of: path, database: "pins", mask: 0x40) { $0[0] }
        try record(2_000, from: 1, at: path)
        let reader = try EventLog.openReadOnly(at: path)
        let pins = try reader.pins()
        #expect(pins.map(\.range) == [window] && pins.allSatisfy(\.isDamaged), "\(pins)")
        let kept = try reader.sequences(stream: "counter", kinds: [.action, .mutation])
        #expect(Set(kept).isSuperset(of: window), "the damaged pin's window survives retention")
        #expect(kept.count <= 500 + window.count + 64, "retention went on around it: \(kept.count) entries kept")
        #expect(try reader.gaps(stream: "counter").contains { $0.removed.lowerBound > window.upperBound }, "retention removed entries after the window")
    }
}

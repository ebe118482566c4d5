import EventLogKit
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite("Snapshots")
struct SnapshotTests {
    let scratch = ScratchDirectory()

    @Test("the latest snapshot at or before a step, and none before the first")
    func latestAtOrBefore() throws {
        let log = try scratch.openLog()
        let stream = try log.counterStream()
        var sequences: [UInt64] = []
        for i in 1...9 { sequences.append(try stream.append(.mutation("m", i))) }
        try stream.writeSnapshot(3, at: sequences[2])
        try stream.writeSnapshot(6, at: sequences[5])
        try log.flush()
        #expect(try log.latestSnapshot(stream: "counter", atOrBefore: sequences[1]) == nil)
        #expect(try log.latestSnapshot(stream: "counter", atOrBefore: sequences[2])?.sequence == sequences[2])
        #expect(try log.latestSnapshot(stream: "counter", atOrBefore: sequences[4])?.sequence == sequences[2])
        let latest = try #require(try log.latestSnapshot(stream: "counter", atOrBefore: .max))
        #expect(latest.sequence == sequences[5])
        #expect(try log.decode(Int.self, from: latest.state, codec: latest.codec) == 6)
        #expect(try log.snapshotSequences(stream: "counter") == [sequences[2], sequences[5]])
    }

    @Test("verify names a sound snapshot under a damaged key where its record says it belongs")
    func keyChangedInPlace() throws {
        let path = scratch.file("snapshot-key.reactorlog")
        let log = try EventLog.open(at: path)
        let stream = try log.counterStream()
        var sequences: [UInt64] = []
        for i in 1...9 { sequences.append(try stream.append(.mutation("m", i))) }
        try stream.writeSnapshot(6, at: sequences[5])
        try log.close()
        let changed = sequences[5] ^ 1 << 22
        #expect(try changeKeyInPlace(path, "snapshots", stream: 1, sequence: sequences[5], to: changed) >= 1)
        let reader = try EventLog.openReadOnly(at: path)
        let errors = try reader.verify().problems.filter { $0.severity == .error }
        #expect(errors.map(\.sequence) == [sequences[5]], "\(errors)")
        #expect(errors.first?.message == "the snapshot of stream 'counter' is corrupt: it is stored under a damaged key, #\(changed), where readers do not look for it")
    }

    @Test("a snapshot at the same step replaces the earlier one")
    func overwrite() throws {
        let log = try scratch.openLog()
        let stream = try log.counterStream()
        let sequence = try stream.append(.mutation("m"))
        try stream.writeSnapshot(1, at: sequence)
        try stream.writeSnapshot(2, at: sequence)
        try log.flush()
        let snapshot = try #require(try log.latestSnapshot(stream: "counter", atOrBefore: sequence))
        #expect(try log.decode(Int.self, from: snapshot.state, codec: snapshot.codec) == 2)
        #expect(try log.snapshotSequences(stream: "counter").count == 1)
    }

    @Test("another stream's snapshots are never returned")
    func perStream() throws {
        let log = try scratch.openLog()
        let a = try log.counterStream("a"), b = try log.counterStream("b")
        let inA = try a.append(.mutation("m"))
        try a.writeSnapshot(1, at: inA)
        let inB = try b.append(.mutation("m"))
        try log.flush()
        #expect(try log.latestSnapshot(stream: "b", atOrBefore: inB) == nil)
    }

    @Test("a state of several megabytes is stored and read back whole")
    func largeState() throws {
        let log = try scratch.openLog()
        let stream = try log.counterStream()
        let sequence = try stream.append(.mutation("m"))
        let state = (0..<300_000).map { "item-\($0)" }
        try stream.writeSnapshot(state, at: sequence)
        try log.flush()
        let snapshot = try #require(try log.latestSnapshot(stream: "counter", atOrBefore: sequence))
        #expect(snapshot.state.count > 3_000_000)
        #expect(try log.decode([String].self, from: snapshot.state, codec: snapshot.codec) == state)
    }

    @Test("a snapshot of an entry not yet appended is refused")
    func futureSnapshot() throws {
        let log = try scratch.openLog()
        let stream = try log.counterStream()
        #expect(throws: EventLogError.self) { try stream.writeSnapshot(1, at: 99) }
    }

    @Test("the policy says when a snapshot is due, and keeps counting across a reopen")
    func policy() throws {
        let path = scratch.file("policy.reactorlog")
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = .every(mutations: 3)
        do {
            let log = try EventLog.open(at: path, configuration: configuration)
            let stream = try log.counterStream()
            try stream.append(.action("a"))
            try stream.append(.mutation("m"))
            try stream.append(.mutation("m"))
            #expect(!stream.isSnapshotDue)
            let third = try stream.append(.mutation("m"))
            #expect(stream.isSnapshotDue)
            try stream.writeSnapshot(3, at: third)
            #expect(!stream.isSnapshotDue)
            try stream.append(.mutation("m"))
            try stream.append(.mutation("m"))
            try log.close()
        }
        let log = try EventLog.open(at: path, configuration: configuration)
        let stream = try log.counterStream()
        #expect(!stream.isSnapshotDue)
        try stream.append(.mutation("m"))
        #expect(stream.isSnapshotDue)
    }

    @Test("policies: every mutation, adaptive by bytes, never", arguments: [
        (SnapshotPolicy.everyMutation, [true, true, true]),
        (SnapshotPolicy.adaptive(bytes: 40), [false, true, true]),
        (SnapshotPolicy.never, [false, false, false]),
    ])
    func policies(policy: SnapshotPolicy, due: [Bool]) throws {
        let log = try scratch.openLog { $0.snapshotPolicy = policy }
        let stream = try log.counterStream()
        var seen: [Bool] = []
        for _ in 0..<3 {
            try stream.append(EntryDraft(kind: .mutation, caseName: "m", payload: Data(repeating: 0x31, count: 25)))
            seen.append(stream.isSnapshotDue)
        }
        #expect(seen == due)
        #expect(SnapshotPolicy(policy.description) == policy)
    }

    @Test("the adaptive policy counts the payloads the writer thread encodes, and a snapshot starts the count again")
    func adaptiveCountsDeferredPayloads() throws {
        let log = try scratch.openLog { $0.snapshotPolicy = .adaptive(bytes: 40) }
        let stream = try log.counterStream()
        let payload = Data(repeating: 0x31, count: 25)
        var seen: [Bool] = []
        var last: UInt64 = 0
        for _ in 0..<3 {
            last = try stream.append(.mutation) { ("m", payload) }
            try log.flush()  // the payload's size is known once the writer has encoded it
            seen.append(stream.isSnapshotDue)
        }
        #expect(seen == [false, true, true])
        try stream.writeSnapshot(3, at: last)
        #expect(!stream.isSnapshotDue)
        // An action's payload does not count; a mutation's does.
        try stream.append(.action) { ("a", payload) }
        try stream.append(.mutation) { ("m", payload) }
        try log.flush()
        #expect(!stream.isSnapshotDue)
        try stream.append(.mutation) { ("m", payload) }
        try log.flush()
        #expect(stream.isSnapshotDue)
    }

    @Test("the writer adds a run's payload bytes to the tally of the stream they belong to, streams interleaved")
    func adaptiveCountsEachStreamsRun() throws {
        let log = try scratch.openLog { $0.snapshotPolicy = .adaptive(bytes: 40) }
        let (first, second, third) = (try log.counterStream("first"), try log.counterStream("second"), try log.counterStream("third"))
        let payload = Data(repeating: 0x31, count: 25)
        // Queued back to back, so that the writer mostly encodes them in one batch: runs of one stream's entries
        // between entries of the others, the last one the batch's.
        for stream in [first, second, first, second, third] {
            try stream.append(.mutation) { ("m", payload) }
        }
        try log.flush()
        #expect(first.isSnapshotDue)
        #expect(second.isSnapshotDue)
        #expect(!third.isSnapshotDue)
        try third.append(.mutation) { ("m", payload) }
        try log.flush()
        #expect(third.isSnapshotDue)
    }

    @Test("a clean close writes a closed marker with a snapshot; recovery starts there")
    func cleanClose() throws {
        let path = scratch.file("close.reactorlog")
        do {
            let log = try EventLog.open(at: path)
            let stream = try log.counterStream()
            try stream.append(.mutation("m"))
            try stream.close(finalState: try log.encode(42))
            try log.close()
        }
        let log = try EventLog.open(at: path)
        let stream = try log.counterStream()
        try log.flush()
        let point = try stream.recoveryPoint()
        #expect(point.sequence == 3)
        #expect(try log.decode(Int.self, from: point.state, codec: point.codec) == 42)
        var after = stream.entries(after: point.sequence)
        #expect(try after.next()?.kind == .streamResumed)
        #expect(try log.readEntries().map(\.kind) == [.streamOpened, .mutation, .streamClosed, .streamResumed])
    }

    @Test("a stream resumed right after it was closed, without a flush, recovers every queued entry")
    func resumeSeesQueuedEntries() throws {
        let log = try scratch.openLog()
        do {
            let stream = try log.counterStream()
            for i in 1...100 { try stream.append(.mutation("add", i)) }
            try stream.close(finalState: try log.encode(5050))
        }
        let stream = try log.counterStream()
        let point = try stream.recoveryPoint()
        #expect(try log.decode(Int.self, from: point.state, codec: point.codec) == 5050)
        #expect(point.sequence == 102)
    }

    @Test("recovery without a snapshot starts from the initial state and replays every mutation")
    func recoveryFromInitialState() throws {
        let log = try scratch.openLog()
        let stream = try log.counterStream(initial: 10)
        for i in 1...5 { try stream.append(.mutation("add", i)) }
        try log.flush()
        let point = try log.recoveryPoint(stream: "counter", atOrBefore: .max)
        #expect(point.isInitialState)
        var state = try log.decode(Int.self, from: point.state, codec: point.codec)
        var iterator = stream.entries(after: point.sequence)
        while let entry = try iterator.next() {
            guard entry.kind == .mutation else { continue }
            let decoded = try log.decode([String: [String: Int]].self, from: entry)
            state += try #require(decoded["add"]?["_0"])
        }
        #expect(state == 25)
    }

    @Test("a stream's owner is asked for its state at a checkpoint and when the log closes first; a stream closed before is left alone")
    func logRequests() throws {
        let path = scratch.file("log-requests.reactorlog")
        let log = try EventLog.open(at: path)
        let open = try log.counterStream("open"), early = try log.counterStream("early")
        let mutation = try open.append(.mutation("m", 7))
        let asked = Mutex<[String]>([])
        open.onLogRequest { [weak open] request in
            asked.withLock { $0.append("open \(request)") }
            switch request {
            case .checkpoint: _ = try? open?.writeCheckpoint { Data("7".utf8) }
            case .close: try? open?.close(finalState: try? log.encode(7))
            }
        }
        early.onLogRequest { request in asked.withLock { $0.append("early \(request)") } }
        try early.close()
        // A checkpoint records the state after the latest append, committed when it returns; the next has nothing new.
        try log.checkpoint()
        #expect(try EventLog.openReadOnly(at: path).snapshotSequences(stream: "open") == [mutation])
        try log.checkpoint()
        try log.close()
        #expect(asked.withLock { $0 } == ["open checkpoint", "open checkpoint", "open close"])
        #expect(throws: EventLogError.self) { try log.checkpoint() }

        let reader = try EventLog.openReadOnly(at: path)
        let last = try #require(try reader.readEntries(EntryQuery(stream: "open")).last)
        #expect(last.kind == .streamClosed)
        let snapshot = try #require(try reader.snapshot(stream: "open", at: last.sequence))
        #expect(try reader.decode(Int.self, from: snapshot.state, codec: snapshot.codec) == 7)
        #expect(try reader.snapshotSequences(stream: "open") == [mutation, last.sequence])
    }

    @Test("a close begun while another asks the streams' owners returns at once, and the first goes on taking their appends")
    func closeWithinClose() throws {
        let path = scratch.file("close-within-close.reactorlog")
        let log = try EventLog.open(at: path)
        let stream = try log.counterStream()
        _ = try stream.append(.mutation("m", 1))
        stream.onLogRequest { [weak stream] request in
            guard request == .close else { return }
            // As user code might, where a reactor that hands dispatch back runs what was sent meanwhile.
            try? log.close()
            try? stream?.close(finalState: try? log.encode(1))
        }
        try log.close()
        let reader = try EventLog.openReadOnly(at: path)
        let last = try #require(try reader.readEntries(EntryQuery(stream: "counter")).last)
        #expect(last.kind == .streamClosed)
        #expect(try reader.snapshot(stream: "counter", at: last.sequence) != nil)
    }

    @Test("no checkpoint is written after a mutation the log refused: the state has run ahead of the latest append")
    func noCheckpointAfterRefusal() throws {
        var configuration = EventLogConfiguration()
        configuration.initialMapSize = 64 << 10
        configuration.maxMapSize = 256 << 10
        let log = try EventLog.open(at: scratch.file("refused.reactorlog"), configuration: configuration)
        let stream = try log.counterStream()
        let big = EntryDraft(kind: .mutation, caseName: "big", payload: Data(("\"" + String(repeating: "b", count: 4094) + "\"").utf8))
        #expect(throws: EventLogError.self) {
            for _ in 0..<1000 { try stream.append(big) }
            try log.flush()
        }
        #expect(throws: EventLogError.self) { try stream.append(big) }
        #expect(try stream.writeCheckpoint { Data("0".utf8) } == false)
        #expect(throws: EventLogError.self) { try log.close() }
    }
}

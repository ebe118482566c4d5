@testable import EventLogKit
import Foundation
import LMDB
import TestSupport
import Synchronization
import Testing

@Suite("Streams")
struct StreamTests {
    let scratch = ScratchDirectory()

    @Test("a stream records its name, reactor type, schema fingerprint and initial state")
    func descriptor() throws {
        let log = try scratch.openLog()
        _ = try log.openStream(named: "todo#2", reactorType: "TodoReactor", schemaFingerprint: "abc123", initialState: ["milk"])
        let info = try #require(try log.stream(named: "todo#2"))
        #expect(info.id == 1)
        #expect(info.reactorType == "TodoReactor")
        #expect(info.schemaFingerprint == "abc123")
        #expect(try log.decode([String].self, from: info.initialState, codec: info.initialStateCodec) == ["milk"])
        #expect(try log.streams().map(\.name) == ["todo#2"])
    }

    @Test("restoring a stream under a name the log has, committed or not yet, is refused, and the log keeps its one stream")
    func restoreTakenName() throws {
        let log = try scratch.openLog()
        let existing = try log.counterStream("search")
        let copy = existing.info
        for round in ["pending", "committed"] {
            #expect(throws: EventLogError.invalidArgument(
                "Stream 'search' cannot be restored: the log already has a stream of that name."), "\(round)") {
                try log.restoreStream(copy)
            }
            try log.flush()
        }
        #expect(try log.streams().map(\.name) == ["search"])
    }

    @Test("one stream's entries interleaved with another's are read apart, in order")
    func interleaved() throws {
        let log = try scratch.openLog()
        let search = try log.counterStream("search"), todo = try log.counterStream("todo")
        for i in 0..<100 {
            try search.append(.mutation("s", i))
            try todo.append(.mutation("t", i))
        }
        try log.flush()
        let searchEntries = try log.readEntries(EntryQuery(stream: "search", kinds: [.mutation]))
        #expect(searchEntries.map(\.caseName) == Array(repeating: "s", count: 100))
        #expect(searchEntries.map(\.sequence) == searchEntries.map(\.sequence).sorted())
        #expect(try log.highestSequence(stream: "todo") == 202)
        #expect(try log.highestSequence(stream: "search") == 201)
    }

    @Test("reading one stream does not touch blocks of the others' entries alone (a damaged one is not read)")
    func streamReadsSkipOthers() throws {
        let path = scratch.file("two.reactorlog")
        do {
            let log = try EventLog.open(at: path)
            let a = try log.counterStream("a"), b = try log.counterStream("b")
            try a.append(.mutation("a1"))
            // Larger than a block: a block of its own, between a1's and a2's.
            let big = Data("MARKER-TO-DAMAGE".utf8) + Data(repeating: 0x20, count: EntryBlock.capacity)
            try b.append(EntryDraft(kind: .mutation, caseName: "b1", payload: big))
            try a.append(.mutation("a2"))
            try log.close()
        }
        try CorruptFile.flipByte(in: path + "/data.mdb", after: Array("MARKER-TO-DAMAGE".utf8))
        let log = try EventLog.openReadOnly(at: path)
        #expect(try log.readEntries(EntryQuery(stream: "a", kinds: [.mutation])).map(\.caseName) == ["a1", "a2"])
        #expect(throws: EventLogError.self) { try log.readEntries(EntryQuery(stream: "b")) }
        #expect(throws: EventLogError.self) { try log.readEntries() }
    }

    /// A log of stream `a`: `before` mutations, an entry too large for a block (a block of its own, whose bytes hold
    /// a marker damaged after the log is closed; of stream `other` when given), then `after` mutations.
    func logWithDamagedBlock(before: Int, after: Int, inStream other: String? = nil) throws -> (path: String, damagedAt: UInt64) {
        let path = scratch.file("damaged-block.reactorlog")
        let log = try EventLog.open(at: path)
        let a = try log.counterStream("a")
        for index in 0..<before { try a.append(.mutation("m\(index)")) }
        let big = Data("MARKER-TO-DAMAGE".utf8) + Data(repeating: 0x20, count: EntryBlock.capacity)
        let damagedAt = try (other.map { try log.counterStream($0) } ?? a).append(EntryDraft(kind: .mutation, caseName: "big", payload: big))
        for index in 0..<after { try a.append(.mutation("n\(index)")) }
        try log.close()
        try CorruptFile.flipByte(in: path + "/data.mdb", after: Array("MARKER-TO-DAMAGE".utf8))
        return (path, damagedAt)
    }

    /// Every entry `query` selects, passing over damage with ``EntryIterator/skip(past:)``; the stretches passed over.
    func readOn(_ log: EventLog, _ query: EntryQuery) throws -> (entries: [LogEntry], skipped: [ClosedRange<UInt64>]) {
        var iterator = log.entries(query)
        var (entries, skipped): ([LogEntry], [ClosedRange<UInt64>]) = ([], [])
        while true {
            do {
                guard let entry = try iterator.next() else { break }
                entries.append(entry)
            } catch {
                skipped.append(try #require(try iterator.skip(past: error)))
            }
        }
        return (entries, skipped)
    }

    @Test("entries before a damaged block are returned before its error, and skip(past:) reads on after it", arguments: [nil, "a"])
    func readingPastDamage(stream: String?) throws {
        let (path, damagedAt) = try logWithDamagedBlock(before: 300, after: 200)
        let log = try EventLog.openReadOnly(at: path)
        // The chunk that meets the damage still hands over what it read before it.
        var iterator = log.entries(EntryQuery(stream: stream))
        var before = 0
        #expect(throws: EventLogError.self) { while try iterator.next() != nil { before += 1 } }
        #expect(before == Int(damagedAt) - 1)
        // Passed over: the damaged block alone, then every entry after it.
        let (entries, skipped) = try readOn(log, EntryQuery(stream: stream))
        #expect(skipped == [damagedAt...damagedAt])
        #expect(entries.map(\.sequence) == Array(1..<damagedAt) + Array((damagedAt + 1)...(damagedAt + 200)))
        // An error that is not an unreadable entry, or damage already passed, moves nothing.
        var other = log.entries(EntryQuery(stream: stream))
        #expect(try other.skip(past: .unknownStream(name: "b")) == nil)
        #expect(try other.next()?.sequence == 1)
        #expect(try other.skip(past: .corruptEntry(sequence: 0, reason: "before it")) == nil)
        // The stream's numbers come from its index alone: the damaged entry does not stop them.
        #expect(try log.statistics(stream: "a").entries == 502)
    }

    @Test("a damaged last block is passed over to the end; another stream's walks over its index do not stop at it")
    func damagedLastBlock() throws {
        let (path, damagedAt) = try logWithDamagedBlock(before: 40, after: 0, inStream: "b")
        let log = try EventLog.openReadOnly(at: path)
        let (entries, skipped) = try readOn(log, EntryQuery())
        #expect(skipped == [damagedAt...UInt64.max])
        // a's opened marker and 40 mutations, then b's opened marker.
        #expect(entries.count == 42)
        // a's index leaves out everything after #41, where the checks for a moved key read the entries: the damaged
        // one cannot be read, so it cannot be checked, and is not a's to report.
        #expect(try log.statistics(stream: "a").entries == 41)
        #expect(try log.callSites(stream: "a", from: 1, through: .max).isEmpty)
        #expect(try log.readEntries(EntryQuery(stream: "a")).count == 41)
    }

    @Test("a stream created by another writer after a reader opened is found by that reader")
    func streamsCreatedLater() throws {
        let path = scratch.file("late.reactorlog")
        let writer = try EventLog.open(at: path)
        _ = try writer.counterStream("first")
        try writer.flush()
        let reader = try EventLog.openReadOnly(at: path)
        #expect(try reader.streams().count == 1)
        let second = try writer.counterStream("second")
        try second.append(.action("x"))
        try writer.flush()
        #expect(try reader.readEntries(EntryQuery(stream: "second")).count == 2)
        #expect(try reader.readEntries().last?.stream == "second")
    }

    @Test("while a process writes a log it alone names streams; handed to another process and back, the log's streams are read again")
    func writerHandover() throws {
        let path = scratch.file("handover.reactorlog")
        let first = try EventLog.open(at: path)
        _ = try first.counterStream("mine")
        // A reader in the same process shares the writer's storage, and keeps it open after the writer closes.
        let reader = try EventLog.openReadOnly(at: path)
        try first.close()
        let one = try CrashWriterProcess(log: path, durability: .grouped, run: 1, stream: "theirs-1")
        _ = try one.waitForAcks(1)
        one.kill()
        // Writing again, this process reads the descriptors afresh: the other process's stream is resumed, not made
        // a second time under the same name.
        let second = try EventLog.open(at: path)
        let resumed = try second.openStream(named: "theirs-1", reactorType: "CrashWriter", schemaFingerprint: "v1", initialState: 0)
        #expect(resumed.wasResumed)
        #expect(resumed.info.id == 2)
        try second.close()
        // No longer writing, a lookup that misses reads them again.
        let two = try CrashWriterProcess(log: path, durability: .grouped, run: 2, stream: "theirs-2")
        _ = try two.waitForAcks(1)
        two.kill()
        #expect(try reader.stream(named: "theirs-2")?.id == 3)
        #expect(try reader.streams().map(\.name) == ["mine", "theirs-1", "theirs-2"])
    }

    @Test("a reader finds the streams other processes make after it opened, as their entries arrive")
    func streamsMadeElsewhere() throws {
        let path = scratch.file("elsewhere.reactorlog")
        do {
            let writer = try EventLog.open(at: path)
            _ = try writer.counterStream("mine")
            try writer.close()
        }
        let reader = try EventLog.openReadOnly(at: path)
        #expect(try reader.readEntries().map(\.stream) == ["mine"])
        for run in 1...3 {
            let child = try CrashWriterProcess(log: path, durability: .grouped, run: run, stream: "theirs-\(run)")
            _ = try child.waitForAcks(1)
            child.kill()
        }
        // Each new stream's entries name it: the reader reads the descriptors made since its own were read.
        let entries = try reader.readEntries()
        #expect(Set(entries.map(\.stream)) == ["mine", "theirs-1", "theirs-2", "theirs-3"])
        #expect(entries.filter { $0.kind == .streamOpened }.map(\.stream) == ["mine", "theirs-1", "theirs-2", "theirs-3"])
    }

    @Test("making a stream waits for no transaction: its descriptor is committed with its first entries")
    func streamWaitsForNoCommit() throws {
        let log = try scratch.openLog()
        _ = try log.counterStream("first")
        try log.flush()
        // Another write transaction holds up every commit, as a long one of the writer's would.
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        let heldTooLong = Mutex(false)
        Thread {
            try? log.storage.write { _ in
                held.signal()
                if release.wait(timeout: .now() + 20) == .timedOut { heldTooLong.withLock { $0 = true } }
            }
            done.signal()
        }.start()
        held.wait()
        let second = try log.counterStream("second")
        try second.append(.mutation("s", 1))
        #expect(log.storage.isPending(second.info.id), "made while no transaction could commit")
        #expect(try log.streams().map(\.name) == ["first", "second"])
        try second.close()
        // Retiring it while its descriptor waits commits the descriptor first, then renames it.
        let retired = Mutex<String?>(nil), retiredDone = DispatchSemaphore(value: 0)
        Thread {
            retired.withLock { $0 = try? log.retireStream(named: "second") }
            retiredDone.signal()
        }.start()
        release.signal()
        done.wait()
        retiredDone.wait()
        #expect(!heldTooLong.withLock { $0 }, "the stream was made only once the held transaction ended")
        #expect(retired.withLock { $0 } == "second@1")
        try log.flush()
        try log.close()
        let reopened = try EventLog.openReadOnly(at: log.storage.path)
        #expect(try reopened.streams().map(\.name) == ["first", "second@1"])
        #expect(try reopened.readEntries().filter { $0.stream == "second@1" }.map(\.caseName) == ["opened", "s", "closed"])
    }

    @Test("streams made on many threads at once get the ids 1 to N, each once, and every one is on disk after a close")
    func streamsFromManyThreads() throws {
        let path = scratch.file("threads.reactorlog")
        let log = try EventLog.open(at: path, configuration: EventLogConfiguration(durability: .noSync))
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<100 {
                let stream = try? log.counterStream("t\(thread)-\(index)")
                _ = try? stream?.append(.mutation("m", index))
            }
        }
        try log.close()
        let reader = try EventLog.openReadOnly(at: path)
        let streams = try reader.streams()
        #expect(streams.map(\.id) == Array(1...400))
        #expect(Set(streams.map(\.name)).count == 400)
        #expect(try reader.readEntries().filter { $0.kind == .mutation }.count == 400)
    }

    @Test("threads opening one new stream at once: one of them has it, the others are told it is in use")
    func oneNewStreamFromManyThreads() throws {
        let log = try scratch.openLog()
        for round in 0..<20 {
            // The handles are kept until every thread has tried: a handle let go closes the stream.
            let outcomes = Mutex<[String]>([]), handles = Mutex<[LogStream]>([])
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                do {
                    let stream = try log.counterStream("same-\(round)")
                    handles.withLock { $0.append(stream) }
                    outcomes.withLock { $0.append("open") }
                } catch {
                    outcomes.withLock { $0.append((error as? EventLogError) == .streamInUse(name: "same-\(round)") ? "in use" : "\(error)") }
                }
            }
            #expect(outcomes.withLock { $0.sorted() } == ["in use", "in use", "in use", "open"], "round \(round)")
        }
        #expect(try log.streams().map(\.name) == (0..<20).map { "same-\($0)" })
    }

    @Test("a writer finds each of 2,000 streams by name; a retired stream's old name is free and its new name finds it")
    func manyStreamsByName() throws {
        let log = try EventLog.open(at: scratch.file("many.reactorlog"), configuration: EventLogConfiguration(durability: .noSync))
        let ids = try (0..<2_000).map { try log.counterStream("session-\($0)").info.id }
        #expect(ids == Array(1...2_000))
        for index in [0, 999, 1_999] { #expect(try log.stream(named: "session-\(index)")?.id == UInt32(index + 1)) }
        #expect(try log.stream(named: "session-2000") == nil)
        let retired = try log.retireStream(named: "session-7")
        #expect(retired == "session-7@1")
        #expect(try log.stream(named: retired)?.id == 8)
        #expect(try log.stream(named: "session-7") == nil)
        let again = try log.counterStream("session-7").info.id
        #expect(again == 2_001)
        #expect(try log.stream(named: retired)?.id == 8)
        // A reader finds what is committed: the descriptors are, with the streams' first entries.
        try log.flush()
        let reopened = try EventLog.openReadOnly(at: log.path)
        #expect(try reopened.stream(named: "session-1234")?.id == 1_235)
    }
}

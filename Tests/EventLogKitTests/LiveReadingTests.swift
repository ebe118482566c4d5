import EventLogKit
import Foundation
import LMDB
import TestSupport
import Testing

@Suite("Reading while writing")
struct LiveReadingTests {
    let scratch = ScratchDirectory()

    @Test("readers running while a writer appends always see a gapless prefix of the log")
    func concurrentReaders() async throws {
        let log = try scratch.openLog()
        let stream = try log.counterStream()
        let writer = Task.detached {
            for i in 0..<20_000 { try stream.append(.mutation("m", i)) }
            try await log.flush()
        }
        let reader = try EventLog.openReadOnly(at: log.path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    for _ in 0..<20 {
                        let sequences = try reader.allSequences()
                        #expect(sequences == Array(1..<UInt64(sequences.count + 1)))
                        await Task.yield()
                    }
                }
            }
            try await group.waitForAll()
        }
        try await writer.value
        #expect(try reader.highestSequence() == 20_001)
    }

    @Test("a follower sees every entry exactly once, in order, as it is committed")
    func followerSeesEverything() async throws {
        let log = try scratch.openLog()
        let stream = try log.counterStream()
        let followed = Task {
            var sequences: [UInt64] = []
            for try await entry in log.follow(EntryQuery(limit: 5001)) { sequences.append(entry.sequence) }
            return sequences
        }
        for i in 0..<5000 {
            try stream.append(.mutation("m", i))
            if i % 1000 == 0 { try await log.flush() }
        }
        try await log.flush()
        #expect(try await followed.value == Array(1...5001))
    }

    @Test("a follower with a filter and an upper bound ends at the bound")
    func followerEndsAtBound() async throws {
        let log = try scratch.openLog()
        let stream = try log.counterStream()
        for i in 0..<10 { try stream.append(i.isMultiple(of: 2) ? .action("a") : .mutation("m", i)) }
        try await log.flush()
        var seen: [UInt64] = []
        for try await entry in log.follow(EntryQuery(through: 8, kinds: [.action])) { seen.append(entry.sequence) }
        #expect(seen == [2, 4, 6, 8])
    }

    @Test("a reader of a stream the log does not have yet finds it once it begins, so a follow can start before its reactor")
    func streamBegunLater() async throws {
        let log = try scratch.openLog()
        let early = try log.counterStream("early")
        try early.append(.action("a"))
        try await log.flush()
        var late = log.entries(EntryQuery(stream: "late"))
        #expect(try late.next() == nil)
        let stream = try log.counterStream("late")
        try stream.append(.action("a"))
        try early.append(.action("a"))
        try stream.append(.mutation("m", 1))
        try await log.flush()
        late = late.resumed()
        var found: [String] = []
        while let entry = try late.next() { found.append("\(entry.stream) \(entry.kind)") }
        #expect(found == ["late opened", "late action", "late mutation"])
        // `follow`, which the inspector's `tail --follow --stream` is built on, polls with this iterator.
        var followed: [UInt64] = []
        for try await entry in log.follow(EntryQuery(limit: 3, stream: "late")) { followed.append(entry.sequence) }
        #expect(followed == [3, 4, 6])
    }

    @Test(
        "an opener of a log not begun yet waits, saying so once, and opens it once a writer begins it; cancelled, it stops",
        .timeLimit(.minutes(3)))
    func openerWaitsForLog() async throws {
        let path = scratch.file("later.reactorlog")
        let (waits, waiting) = AsyncStream.makeStream(of: Void.self)
        let opener = Task {
            try await EventLog.openReadOnlyOnceBegun(at: path, pollInterval: .milliseconds(5)) { waiting.yield() }
        }
        var calls = waits.makeAsyncIterator()
        #expect(await calls.next() != nil)
        let writer = try scratch.openLog("later.reactorlog")
        try writer.counterStream().append(.action("a"))
        try await writer.flush()
        let reader = try await opener.value
        waiting.finish()
        #expect(await calls.next() == nil, "the waiting closure is called once, before the first wait")
        #expect(try reader.highestSequence() == 2)

        // An empty directory is a log about to begin (a writer makes it, then its files): waited for, until cancelled.
        let empty = scratch.file("empty.reactorlog")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        let (emptyWaits, emptyWaiting) = AsyncStream.makeStream(of: Void.self)
        let cancelled = Task {
            try await EventLog.openReadOnlyOnceBegun(at: empty, pollInterval: .milliseconds(5)) { emptyWaiting.yield() }
        }
        var emptyCalls = emptyWaits.makeAsyncIterator()
        #expect(await emptyCalls.next() != nil)
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
    }

    @Test("an opener waiting for a log refuses at once what is not one, a path whose directory is missing, and an empty path", .timeLimit(.minutes(3)))
    func openerRefusesWhatIsNotALog() async throws {
        let file = scratch.file("log.txt")
        _ = FileManager.default.createFile(atPath: file, contents: Data("hello".utf8))
        let foreign = scratch.file("photos")
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: foreign + "/cat.jpg", contents: Data([1, 2, 3]))
        let missing = scratch.file("no/such/x.reactorlog")
        for path in [file, foreign, missing, ""] {
            let error = await #expect(throws: EventLogError.self) {
                try await EventLog.openReadOnlyOnceBegun(at: path) { Issue.record("waited for \(path)") }
            }
            let direct = #expect(throws: EventLogError.self) { try EventLog.openReadOnly(at: path) }
            #expect(error != nil && error == direct, "\(path)")
        }
    }

    @Test("a follower in another process's log sees entries written by that process")
    func followAcrossProcesses() async throws {
        let path = scratch.file("shared.reactorlog")
        let child = try CrashWriterProcess(log: path, durability: .grouped, run: 1)
        let firstAck = try child.waitForAcks(1)
        let reader = try EventLog.openReadOnly(at: path)
        var count = 0
        for try await entry in reader.follow(EntryQuery(limit: Int(firstAck) + 200)) {
            count += 1
            #expect(entry.sequence == UInt64(count))
        }
        child.kill()
        #expect(count == Int(firstAck) + 200)
    }

    @Test("a reader that opened a log before another process grew its map opens its databases and reads")
    func mapGrownByAnotherProcess() throws {
        let path = scratch.file("growing.reactorlog")
        // The helper starts with a 64 KiB map and doubles it as it writes.
        let first = try CrashWriterProcess(log: path, durability: .grouped, run: 1)
        _ = try first.waitForAcks(1)
        first.kill()
        var options = EnvironmentOptions()
        options.readOnly = true
        let reader = try Environment(path: path, options: options)
        let mapped = reader.mapSize
        let second = try CrashWriterProcess(log: path, durability: .grouped, run: 2)
        var size = 0
        while size <= 4 * mapped {
            _ = try second.waitForAcks(1)
            size = (try? FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.size] as? Int) ?? 0
        }
        second.kill()
        // Its map is now smaller than the file's: opening a database begins a transaction, which LMDB refuses
        // until the reader adopts the new size.
        let entries = try reader.openDatabase("entries")
        let count = try reader.read { txn in try txn.withCursor(entries) { cursor in
            var count = 0
            var item = try cursor.first()
            while item != nil {
                count += 1
                item = try cursor.next()
            }
            return count
        } }
        #expect(count > 0)
        #expect(reader.mapSize > mapped)
    }
}

import EventLogKit
import Foundation
import TestSupport
import Testing

/// `EventLogConfiguration.commitInterval`: appends gather between commits, and nothing that waits for a commit waits
/// for the interval. The time limit is what fails a test whose commit waits for an hour-long interval.
@Suite("The commit interval", .timeLimit(.minutes(3)))
struct CommitIntervalTests {
    let scratch = ScratchDirectory()

    @Test("appends wait for the interval since the last commit began before they are committed; a flush does not")
    func appendsGather() async throws {
        let log = try scratch.openLog { $0.commitInterval = .seconds(2) }
        let stream = try log.counterStream()
        try stream.append(.action("first"))
        // The flush's commit begins after `start` (or a moment before, for the first append): the next may not begin
        // for two seconds. Taken after the flush, `start` would lag by however long this task waits to resume, which
        // under the whole suite's load was over a second once.
        let start = ContinuousClock.now
        try await log.flush()
        let second = try stream.append(.action("second"))
        var committed = log.follow(EntryQuery(from: second)).makeAsyncIterator()
        #expect(try await committed.next()?.sequence == second)
        #expect(ContinuousClock.now - start >= .seconds(1), "committed before the interval had passed")
        try log.close()
    }

    @Test("a queue half full, a flush, an asynchronous flush, closing and sync durability commit without waiting for the interval")
    func waitersDoNotWait() async throws {
        let path = scratch.file("gathering.reactorlog")
        var configuration = EventLogConfiguration()
        configuration.commitInterval = .seconds(3_600)
        configuration.queueCapacity = 64
        let log = try EventLog.open(at: path, configuration: configuration)
        let stream = try log.counterStream()
        try await log.flush()
        // Half of the queue's 64: the writer commits them although the hour has not passed.
        var last: UInt64 = 0
        for i in 1...32 { last = try stream.append(.mutation("add", i)) }
        var committed = log.follow(EntryQuery(from: last)).makeAsyncIterator()
        #expect(try await committed.next()?.sequence == last)
        let flushed = try stream.append(.action("flushed"))
        try Self.flushBlocking(log)
        #expect(try log.entry(at: flushed)?.caseName == "flushed")
        let awaited = try stream.append(.action("awaited"))
        try await log.flush()
        #expect(try log.entry(at: awaited)?.caseName == "awaited")
        let closing = try stream.append(.action("closing"))
        try log.close()
        let reopened = try EventLog.openReadOnly(at: path)
        #expect(try reopened.highestSequence() == closing)
        #expect(try reopened.verify().isHealthy)

        let synced = try scratch.openLog("synced.reactorlog") {
            $0.durability = .sync
            $0.commitInterval = .seconds(3_600)
        }
        let appended = try synced.counterStream().append(.action("now"))
        #expect(try synced.entry(at: appended)?.caseName == "now")
        try synced.close()
    }

    /// The blocking `flush()`, which an asynchronous caller would not choose over the suspending one.
    static func flushBlocking(_ log: EventLog) throws { try log.flush() }
}

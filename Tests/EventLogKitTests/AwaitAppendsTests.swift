import EventLogKit
import Foundation
import Synchronization
import TestSupport
import Testing

/// `EventLog.awaitAppends()`, which a time machine made on the log an app writes calls so that it sees what was sent
/// before it: a read begun after it sees every append made before it, and it never waits where waiting could not end.
/// The time limit is what fails a test whose wait does not end: three minutes, as the other suites', since on a busy
/// two-core host the suite's long synchronous tests hold the test pool's threads and delay these by over a minute (all
/// three failed at a one-minute limit, 168 s into a run beside two compilers, and passed in the next run).
@Suite("Waiting for appends to be committed before a read", .timeLimit(.minutes(3)))
struct AwaitAppendsTests {
    let scratch = ScratchDirectory()

    @Test("appends the writer holds back for an hour's commit interval are committed once awaited, with no flush")
    func awaitedAppendsAreRead() throws {
        let log = try scratch.openLog { $0.commitInterval = .seconds(3_600) }
        let stream = try log.counterStream()
        try log.flush()
        // The last commit just began, so the writer gathers what follows for an hour unless something waits.
        try stream.append(.action("first"))
        let last = try stream.append(.mutation("add", 1))
        #expect(try log.entry(at: last) == nil, "committed without waiting: the test's premise does not hold")
        log.awaitAppends()
        #expect(try log.entry(at: last)?.caseName == "add")
        #expect(try log.highestSequence() == last)
        log.awaitAppends()   // nothing left to wait for: returns at once
        try log.close()
    }

    @Test("on the writer thread, inside an entry's encoding, it returns at once instead of waiting for its own commit")
    func writerThreadDoesNotWait() async throws {
        let log = try scratch.openLog()
        let stream = try log.counterStream()
        let ran = Ran()
        let sequence = try stream.append(.mutation, cause: nil) {
            log.awaitAppends()
            ran.flag.store(true, ordering: .relaxed)
            return ("encoded", Data("1".utf8))
        }
        // A follow, which the time limit cancels, and the log held until the entry is seen: were the writer stuck
        // waiting for its own commit, the test would fail there, not hang in a flush, a close or the log's release.
        let held = Unmanaged.passRetained(log)
        var committed = log.follow(EntryQuery(from: sequence)).makeAsyncIterator()
        let entry = try #require(try await committed.next())
        held.release()
        #expect(entry.caseName == "encoded")
        let encoded = ran.flag.load(ordering: .relaxed)
        #expect(encoded)
        try log.close()
    }

    @Test("while a write failure stops the log it returns at once, and a read then sees what was committed")
    func failedLogDoesNotWait() async throws {
        let log = try scratch.openLog("full.reactorlog") {
            $0.initialMapSize = 64 << 10
            $0.maxMapSize = 256 << 10
            $0.writeRetryInterval = nil
        }
        let stream = try log.counterStream()
        try await log.flush()
        let committed = try log.highestSequence()
        let big = EntryDraft(kind: .mutation, caseName: "big", payload: Data(("\"" + String(repeating: "b", count: 4094) + "\"").utf8))
        #expect(throws: EventLogError.self) {
            for _ in 0..<1000 { try stream.append(big) }
            try log.flush()
        }
        #expect(log.writeFailure != nil)
        // Waited for on a thread of its own, which the test awaits where the time limit can end it, the log held until
        // then: were the wait stuck on entries the failure keeps from being committed, the test would fail, not hang.
        let held = Unmanaged.passRetained(log)
        let (returned, signal) = AsyncStream<Bool>.makeStream()
        Thread {
            log.awaitAppends()
            signal.yield(true)
        }.start()
        var waits = returned.makeAsyncIterator()
        let waited = await waits.next()
        try #require(waited == true)
        held.release()
        #expect(try log.highestSequence() >= committed)
        _ = try? log.close()
    }
}

/// Whether an encoding closure ran, as the writer thread sets it.
private final class Ran: Sendable {
    let flag = Atomic<Bool>(false)
}

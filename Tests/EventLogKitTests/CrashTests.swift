import EventLogKit
import Foundation
import TestSupport
import Testing

/// A writer process is killed with SIGKILL at random moments, again and again on the same log.
@Suite("Crash safety")
struct CrashTests {
    struct Marker: Codable {
        let run: Int
        let batch: Int
        let index: Int
        let count: Int
    }

    @Test("after SIGKILL every acknowledged entry is there, numbers are gapless, no batch is partial, verify passes",
          arguments: [Durability.sync, .grouped, .noSync])
    func killedWriter(durability: Durability) throws {
        try killRepeatedly(runs: 12, durability: durability, acks: 1...40)
    }

    @Test("killed while it makes a stream for each batch: every entry's stream is described, and verify passes")
    func killedMakingStreams() throws {
        try killRepeatedly(runs: 8, durability: .grouped, acks: 1...10, stream: "+") { log, run in
            // A stream is on disk with its first entries: each one's opened marker is there.
            let opened = Set(try log.readEntries(EntryQuery(kinds: [.streamOpened])).map(\.stream))
            #expect(Set(try log.streams().map(\.name)) == opened, "run \(run)")
        }
    }

    @Test("a writer whose disk fills stops with one error naming what is committed, which is intact; reopened, it appends on")
    func diskFills() throws {
        let scratch = ScratchDirectory()
        let path = scratch.file("full.reactorlog")
        // 2 MiB: a real write failure from the file system (EFBIG, as ENOSPC on a full disk), not LMDB's map limit.
        let filling = try CrashWriterProcess(log: path, durability: .grouped, run: 1, fileSizeLimit: 2048)
        let (exit, errors) = filling.waitForEnd()
        #expect(!exit.signalled && exit.status == 1, "\(exit)")
        // The limit cut a page's write short, which LMDB reports as an I/O error: the sentence adds the room left.
        #expect(errors.contains("failed:") && errors.contains("free on its file system") && errors.contains("are committed and intact"), "\(errors)")
        #expect(errors.split(separator: "\n").count == 1, "\(errors)")
        #expect(filling.lastAck > 0)
        try check(path: path, acknowledged: filling.lastAck, run: 1)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.size] as? Int)
        #expect(size <= 2048 << 10)

        let resumed = try CrashWriterProcess(log: path, durability: .grouped, run: 2)
        _ = try resumed.waitForAcks(5)
        resumed.kill()
        #expect(resumed.lastAck > filling.lastAck)
        try check(path: path, acknowledged: resumed.lastAck, run: 2)
    }

    /// Starts a crash writer on one log `runs` times, kills it after a random number of `acks` and a moment, and checks
    /// the log after each kill, then with `alsoCheck`.
    private func killRepeatedly(
        runs: Int, durability: Durability, acks: ClosedRange<Int>, stream: String = "crash",
        alsoCheck: (EventLog, Int) throws -> Void = { _, _ in }
    ) throws {
        let scratch = ScratchDirectory()
        let path = scratch.file("crash.reactorlog")
        var acknowledged: UInt64 = 0
        for run in 1...runs {
            let child = try CrashWriterProcess(log: path, durability: durability, run: run, stream: stream)
            _ = try child.waitForAcks(Int.random(in: acks))
            usleep(UInt32.random(in: 0...3000))
            let exit = child.kill()
            #expect(exit.signalled && exit.status == SIGKILL, "\(exit)")
            acknowledged = max(acknowledged, child.lastAck)
            try check(path: path, acknowledged: acknowledged, run: run)
            try alsoCheck(try EventLog.openReadOnly(at: path), run)
        }
    }

    private func check(path: String, acknowledged: UInt64, run: Int) throws {
        let log = try EventLog.openReadOnly(at: path)
        let report = try log.verify()
        #expect(report.isHealthy, "run \(run): \(report.problems)")
        let highest = try log.highestSequence()
        #expect(highest >= acknowledged, "run \(run): acknowledged #\(acknowledged) but the log ends at #\(highest)")
        var iterator = log.entries()
        var expected: UInt64 = 1
        var batches: [String: (count: Int, indices: Set<Int>)] = [:]
        while let entry = try iterator.next() {
            #expect(entry.sequence == expected, "run \(run): a gap before #\(entry.sequence)")
            expected = entry.sequence + 1
            guard entry.kind == .mutation else { continue }
            let marker = try log.decode(Marker.self, from: entry)
            batches["\(marker.run)/\(marker.batch)", default: (marker.count, [])].indices.insert(marker.index)
        }
        for (batch, content) in batches where content.indices != Set(0..<content.count) {
            Issue.record("run \(run): batch \(batch) is partial: \(content.indices.count) of \(content.count) entries")
        }
    }
}

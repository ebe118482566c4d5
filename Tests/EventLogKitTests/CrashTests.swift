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

    @Test(
        "a log whose disk filled resumes once it has room, by itself or when asked: what was queued is written, the appends refused meanwhile are one unwritten entry, and a snapshot follows",
        arguments: ["now", "retry"])
    func resumesAfterDiskFills(resume: String) throws {
        let scratch = ScratchDirectory()
        let path = scratch.file("refilled.reactorlog")
        // A soft 2 MiB limit, lifted by the child once appends are refused, as a disk that gets room again.
        let child = try CrashWriterProcess(log: path, durability: .grouped, run: 1, fileSizeLimit: 2048, resume: resume)
        let (exit, errors) = child.waitForEnd()
        #expect(!exit.signalled && exit.status == 0 && errors.isEmpty, "\(exit): \(errors)")
        #expect(child.notes.count == 3 && child.notes.last == "resumed", "\(child.notes)")
        let stopped = try #require(child.notes.first?.firstMatch(of: /stopped (\d+) committed (\d+)/))
        let (taken, committed) = (try #require(UInt64(stopped.1)), try #require(UInt64(stopped.2)))
        // The log told its owner what the unwritten entry stands for: the three appends it refused, each a mutation.
        try expectRefused(child.notes, unwritten: taken + 1, in: path)
        // Entries were taken that the failed commit had not written: the writer kept them and wrote them on resuming.
        #expect(committed < taken)
        try check(path: path, acknowledged: max(child.lastAck, taken), run: 1)
        let log = try EventLog.openReadOnly(at: path)
        let entries = try log.readEntries(EntryQuery(stream: "crash", kinds: [.mutation]))
        // The three refused appends are not in the log; one entry right after what was taken stands for them.
        let unwritten = entries.filter(\.lacksValue)
        #expect(unwritten.map(\.sequence) == [taken + 1], "\(unwritten.map(\.sequence))")
        #expect(unwritten.allSatisfy { $0.caseName == "unwritten" && $0.missingValue == .unwritten })
        #expect(try entries.filter { !$0.lacksValue }.allSatisfy { try log.decode(Marker.self, from: $0).run == 1 })
        #expect(entries.filter { $0.sequence > taken + 1 }.count >= 60)
        // The stream was asked for a snapshot at its first mutation after it, though its policy is `.never`.
        #expect(try log.snapshotSequences(stream: "crash").count == 1)
        let snapshot = try #require(try log.snapshotSequences(stream: "crash").first)
        #expect(snapshot > taken + 1 && snapshot <= taken + 21, "#\(snapshot) after #\(taken + 1)")
        // The warning quotes the entry's pin, which counts what it stands for.
        let pin = try #require(try log.pins().first?.reason)
        #expect(try log.verify().problems.contains {
            $0.severity == .warning && $0.sequence == taken + 1
                && $0.message == "stream 'crash' has a stretch the log could not record (a write failure stopped it, and this entry stands for what the stream appended until it wrote again; its pin: \(pin)), so the stream's states from here to its next snapshot cannot be rebuilt"
        })
    }

    /// Checks the crash writer's note of what the log reported as it resumed (``EventLogConfiguration/onWriteResumed``):
    /// every entry of the appends that threw in the writer (the three after the failure, and the batch the failure
    /// stopped when an append met it rather than a flush), all mutations, and the `unwritten` entry standing for them.
    /// The log keeps the counts as the reason of a pin of that entry.
    func expectRefused(_ notes: [String], unwritten: UInt64, in path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let note = try #require(notes.dropFirst().first?.wholeMatch(of: /refused crash (\d+) (\d+) (\d+) after writeFailed, in order; (\d+) refused here/), "\(notes)", sourceLocation: sourceLocation)
        let (entries, mutations, entry, here) = (Int(note.1), Int(note.2), UInt64(note.3), Int(note.4))
        #expect(entries == here && mutations == here && (here ?? 0) >= 3, "\(notes)", sourceLocation: sourceLocation)
        #expect(entry == unwritten, "\(notes)", sourceLocation: sourceLocation)
        let pins = try EventLog.openReadOnly(at: path).pins()
        #expect(pins.map(\.range) == [unwritten...unwritten], sourceLocation: sourceLocation)
        let reason = try #require(pins.first?.reason, sourceLocation: sourceLocation)
        #expect(reason.hasPrefix("write failure: 'crash' lost \(here ?? 0) entries (\(here ?? 0) mutations) over "), "\(reason)", sourceLocation: sourceLocation)
    }

    /// On btrfs every overwrite needs new room. A log whose files kept copy-on-write died of `SIGBUS` in LMDB's lock
    /// file, which LMDB writes through a map, when the disk filled, or stopped for good (`MDB_PANIC`) when its meta
    /// page could not be written; a reader opening it on the full disk died the same way.
    @Test(
        "a log on a full copy-on-write file system (btrfs) stops with an error, reopens to read while the disk is full, and resumes once it has room",
        .enabled(if: LoopVolume.canMount, "needs root, loop devices, mkfs.btrfs (Tools/scripts/setup.sh --tests) and mkfs.ext4"))
    func copyOnWriteDiskFills() throws {
        let scratch = ScratchDirectory()
        let volume = try LoopVolume(.btrfs, in: scratch)
        let path = volume.path + "/full.reactorlog"
        let filler = try volume.fill(leaving: 3 << 20, name: "filler")
        let child = try CrashWriterProcess(log: path, durability: .grouped, run: 1, resume: "now", freeing: filler)
        let (exit, errors) = child.waitForEnd()
        #expect(!exit.signalled && exit.status == 0 && errors.isEmpty, "\(exit): \(errors)")
        #expect(child.notes.count == 3 && child.notes.last == "resumed", "\(child.notes)")
        let taken = try #require(child.notes.first?.firstMatch(of: /stopped (\d+) committed \d+/).flatMap { UInt64($0.1) })
        try expectRefused(child.notes, unwritten: taken + 1, in: path)
        try check(path: path, acknowledged: max(child.lastAck, taken), run: 1)
        for file in ["data.mdb", "lock.mdb"] { #expect(!copiesOnWrite(path + "/" + file), "\(file)") }
        // Full again: a reader process, the first to open the log, writes LMDB's table of readers into the lock file.
        let refill = try volume.fill(leaving: 0, name: "filler-2")
        let inspector = CrashWriterProcess.executable.deletingLastPathComponent().appendingPathComponent("reactorlog").path
        let reader = try ChildProcess(inspector, ["log", path, "--limit", "1"]).waitForExit()
        #expect(!reader.signalled && reader.status == 0, "\(reader)")
        // A copy's data file has copy-on-write off too: how a log made before gets such files.
        unlink(refill)
        sync()
        try EventLog.openReadOnly(at: path).copy(to: volume.path + "/copy.reactorlog")
        #expect(!copiesOnWrite(volume.path + "/copy.reactorlog/data.mdb"))
    }

    /// LMDB makes a new log's lock file with holes and writes its first page through its map: on a full disk the
    /// process died of `SIGBUS` (btrfs and tmpfs alike), so an app first launched on a full disk crashed. On a full
    /// ext4 volume the log's directory itself could not be made, which the open called "No log at" the parent.
    @Test(
        "a new log on a full disk: the open fails with one line naming the room, leaving nothing behind, and once there is room the log is made",
        .enabled(if: LoopVolume.canMount, "needs root, loop devices, mkfs.btrfs (Tools/scripts/setup.sh --tests) and mkfs.ext4"),
        arguments: [LoopVolume.FileSystem.btrfs, .ext4])
    func newLogOnFullDisk(fileSystem: LoopVolume.FileSystem) throws {
        let scratch = ScratchDirectory()
        let volume = try LoopVolume(fileSystem, in: scratch)
        let filler = try volume.fill(leaving: 0, name: "filler")
        let path = volume.path + "/new.reactorlog"
        let inspector = CrashWriterProcess.executable.deletingLastPathComponent().appendingPathComponent("reactorlog").path
        let errors = Pipe()
        let refused = try ChildProcess(inspector, ["demo", "--out", path], error: .pipe(errors))
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let exit = refused.waitForExit()
        #expect(!exit.signalled && exit.status != 0, "\(exit): \(message)")
        // btrfs makes the directory, and the lock file has no room; ext4 cannot make the directory.
        let room = fileSystem == .btrfs ? "write(lock.mdb) failed: No space left on device" : "the file system holding \(volume.path) has no room left"
        #expect(message.hasPrefix("reactorlog: ") && message.contains(room) && message.split(separator: "\n").count == 1, "\(message)")
        // btrfs made the directory and the lock files: the failed open removed them (before 2026-12-03 they stayed, a
        // log never begun to every reader). No data file was left to read as a damaged log.
        #expect(!FileManager.default.fileExists(atPath: path), "\(String(describing: try? FileManager.default.contentsOfDirectory(atPath: path)))")
        unlink(filler)
        sync()
        let made = try ChildProcess(inspector, ["demo", "--out", path, "--force"]).waitForExit()
        #expect(!made.signalled && made.status == 0, "\(made)")
        #expect(try EventLog.openReadOnly(at: path).verify().isHealthy)
        // A log without its lock file (as one copied from a bug report) on a full disk is read without one.
        unlink(path + "/lock.mdb")
        _ = try volume.fill(leaving: 0, name: "filler-2")
        let output = Pipe()
        let info = try ChildProcess(inspector, ["info", path], output: .pipe(output))
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let shown = info.waitForExit()
        #expect(!shown.signalled && shown.status == 0, "\(shown)")
        #expect(text.contains("read without LMDB's lock file, which this user may not write or the disk has no room for"), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: path + "/lock.mdb"))
    }

    /// Whether the file at `path` copies on write: btrfs' `FS_NOCOW_FL` is not set (FS_IOC_GETFLAGS of <linux/fs.h>).
    private func copiesOnWrite(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        defer { close(descriptor) }
        var flags: Int32 = 0
        return ioctl(descriptor, 0x8008_6601, &flags) != 0 || flags & 0x0080_0000 == 0
    }

    @Test("a recorded reactor whose disk filled records on once it has room: its refused sends are one unwritten entry, a snapshot follows at its next mutation, and the last state is its own")
    func reactorResumesAfterDiskFills() throws {
        let scratch = ScratchDirectory()
        let path = scratch.file("tally.reactorlog")
        let child = try CrashWriterProcess(log: path, durability: .grouped, run: 1, stream: "tally", fileSizeLimit: 2048, resume: "now")
        let (exit, errors) = child.waitForEnd()
        #expect(!exit.signalled && exit.status == 0 && errors.isEmpty, "\(exit): \(errors)")
        let resumed = try #require(child.notes.last?.firstMatch(of: /resumed (\d+)/), "\(child.notes)")
        let count = try #require(Int(resumed.1))
        let log = try EventLog.openReadOnly(at: path)
        #expect(try log.verify().isHealthy)
        let mutations = try log.readEntries(EntryQuery(stream: "tally", kinds: [.mutation]))
        // The sends refused while the log was stopped are one entry; the ten after it are all there.
        let unwritten = mutations.filter(\.lacksValue)
        #expect(unwritten.count == 1 && unwritten.first?.caseName == "unwritten")
        let marker = try #require(unwritten.first?.sequence)
        let after = mutations.filter { $0.sequence > marker }
        #expect(after.count == 10)
        // Its pin counts them: the 100 sends made while stopped (an action and a mutation each), and the parts of the
        // send that met the failure.
        let pin = try #require(try log.pins().first { $0.range == marker...marker })
        let counts = try #require(pin.reason.wholeMatch(of: /write failure: 'tally' lost (\d+) entries \((\d+) mutations\) over \d+\.\d{3} s/), "\(pin.reason)")
        #expect((200...202).contains(Int(counts.1) ?? 0) && (100...101).contains(Int(counts.2) ?? 0), "\(pin.reason)")
        // Its policy takes no snapshot: the log asked for one at the first mutation after the stretch, which holds the
        // count then; the closed entry's snapshot holds the reactor's own last count.
        let first = try #require(after.first?.sequence)
        #expect(try log.snapshotSequences(stream: "tally").filter { $0 > marker }.first == first)
        let snapshot = try #require(try log.latestSnapshot(stream: "tally", atOrBefore: first))
        #expect(try log.decode(Tally.self, from: snapshot.state, codec: snapshot.codec).count == count - 9)
        let last = try #require(try log.latestSnapshot(stream: "tally", atOrBefore: .max))
        let lastCount = try log.decode(Tally.self, from: last.state, codec: last.codec).count
        #expect(last.sequence > first && lastCount == count)
    }

    /// The crash writer's reactor's state (Tools/CrashWriter).
    private struct Tally: Decodable {
        let count: Int
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
            // A mutation without its value stands for appends refused while writing was stopped.
            guard entry.kind == .mutation, !entry.lacksValue else { continue }
            let marker = try log.decode(Marker.self, from: entry)
            batches["\(marker.run)/\(marker.batch)", default: (marker.count, [])].indices.insert(marker.index)
        }
        for (batch, content) in batches where content.indices != Set(0..<content.count) {
            Issue.record("run \(run): batch \(batch) is partial: \(content.indices.count) of \(content.count) entries")
        }
    }
}

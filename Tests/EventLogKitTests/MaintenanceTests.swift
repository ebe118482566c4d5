@testable import EventLogKit
import Foundation
import LMDB
import TestSupport
import Testing

@Suite("Verify, trim and copy")
struct MaintenanceTests {
    let scratch = ScratchDirectory()

    /// A log with two streams: `counter` with a snapshot every 10 mutations, `plain` with none.
    func makeLog(_ name: String = "m.reactorlog") throws -> EventLog {
        let log = try scratch.twoStreamLog(name, mutations: 95)
        try log.flush()
        return log
    }

    @Test("a healthy log verifies with counts and no problems")
    func healthy() throws {
        let log = try makeLog()
        let report = try log.verify()
        #expect(report.isHealthy)
        #expect(report.problems.isEmpty)
        #expect(report.entries == 192)
        #expect(report.snapshots == 9)
        #expect(report.streams == 2)
    }

    @Test("verify names every entry that breaks a rule of the format, under a valid checksum")
    func ruleBreakers() throws {
        let log = try scratch.openLog { _ in }
        let shop = try log.openStream(named: "shop", reactorType: "Shop", schemaFingerprint: "v1", initialState: 0)
        let other = try log.openStream(named: "other", reactorType: "Other", schemaFingerprint: "v1", initialState: 0)
        let buy = try shop.append(.action, "buy", caseName: "buy")
        let foreign = try other.append(.action, "x", caseName: "x")
        let mutation = try shop.append(.mutation, 1, caseName: "add", cause: buy)
        let breakers: [(EntryDraft, String)] = [
            (EntryDraft(kind: .action, caseName: "buy", payload: Data("1".utf8), cause: buy), "is an action with a cause"),
            (EntryDraft(kind: .mutation, caseName: "add", payload: Data("1".utf8), cause: mutation), "is a mutation, not an action"),
            (EntryDraft(kind: .mutation, caseName: "add", payload: Data("1".utf8), cause: foreign), "an action of another stream"),
            (EntryDraft(kind: .streamClosed, caseName: "bogus", payload: Data(), codec: .none), "marker named 'bogus'"),
            (EntryDraft(kind: .mutation, caseName: "add", payload: Data([1, 2]), codec: .none), "codec is none but it holds a 2-byte payload"),
            (EntryDraft(kind: .mutation, caseName: "add", payload: Data("{nope".utf8)), "not valid JSON"),
            (EntryDraft(kind: .mutation, caseName: "add", payload: Data("NaN".utf8)), "not valid JSON"),
            // Foundation's parser takes these two; the log's readers of JSON text do not, so neither does verify.
            (EntryDraft(kind: .mutation, caseName: "add", payload: Data("[1,]".utf8)), "not valid JSON"),
            (EntryDraft(kind: .mutation, caseName: "add", payload: Data("\u{FEFF}1".utf8)), "not valid JSON"),
        ]
        var sequences: [UInt64] = []
        for (draft, _) in breakers { sequences.append(try shop.append(draft)) }
        try log.flush()
        let report = try log.verify()
        #expect(!report.isHealthy)
        for ((_, message), sequence) in zip(breakers, sequences) {
            #expect(report.problems.contains { $0.sequence == sequence && $0.message.contains(message) }, "#\(sequence): \(message) in \(report.problems)")
        }
        #expect(report.problems.allSatisfy { sequences.contains($0.sequence ?? 0) }, "\(report.problems)")
    }

    @Test("missing snapshots are a warning, not an error")
    func snapshotGap() throws {
        let log = try scratch.openLog { $0.snapshotPolicy = .every(mutations: 2) }
        let stream = try log.counterStream()
        for i in 0..<5 { try stream.append(.mutation("m", i)) }
        try log.flush()
        let report = try log.verify()
        #expect(report.isHealthy)
        #expect(report.problems.count == 1)
        #expect(report.problems.first?.severity == .warning)
        #expect(report.problems.first?.sequence == 4)
    }

    @Test("an index that disagrees with the entries is an error")
    func damagedIndex() throws {
        let path = scratch.file("m.reactorlog")
        try makeLog().close()
        do {
            let env = try Environment(path: path)
            let index = StreamIndex(database: try env.openDatabase("stream-index"), layout: .blocks)
            try env.write { txn in
                var first: UInt64 = 0
                try index.forEach(txn, stream: 1) { first = $0.sequence; return false }
                #expect(try index.remove(txn, stream: 1, from: first, through: first) { _ in } == 1)
            }
        }
        let report = try EventLog.openReadOnly(at: path).verify()
        #expect(!report.isHealthy)
        #expect(report.firstError?.message.contains("index lists") == true)
    }

    @Test("trimming keeps the latest snapshot before the point and every entry after it")
    func trimKeepsReplayable() throws {
        let log = try makeLog()
        let highest = try log.highestSequence()
        let snapshots = try log.snapshotSequences(stream: "counter")
        let base = try #require(snapshots.last { $0 < 100 })
        let report = try log.trim(before: 100)
        #expect(report.streams.first { $0.stream == "counter" }?.replaysFrom == base)
        #expect(report.streams.first { $0.stream == "plain" }?.replaysFrom == nil)
        let remaining = try log.readEntries(EntryQuery(stream: "counter"))
        #expect(!remaining.isEmpty)
        #expect(remaining.allSatisfy { $0.sequence > base })
        #expect(try log.snapshotSequences(stream: "counter").first == base)
        #expect(try log.readEntries(EntryQuery(stream: "plain")).count == 96)

        // The state rebuilt from what remains equals the sum of every mutation ever made.
        let point = try log.recoveryPoint(stream: "counter", atOrBefore: .max)
        var total = try log.decode(Int.self, from: point.state, codec: point.codec)
        var iterator = log.entries(EntryQuery(from: point.sequence + 1, stream: "counter", kinds: [.mutation]))
        while let entry = try iterator.next() {
            total += try #require(try log.decode([String: [String: Int]].self, from: entry)["add"]?["_0"])
        }
        #expect(total == (1...95).reduce(0, +))
        #expect(try log.highestSequence() == highest)
        #expect(try log.verify().isHealthy)
    }

    @Test("trimmed entries are not replayed, and sequence numbers are never reused")
    func highestSurvivesTrim() throws {
        let path = scratch.file("t.reactorlog")
        do {
            let log = try EventLog.open(at: path)
            let stream = try log.counterStream()
            let last = try stream.append(.mutation("m"))
            try stream.writeSnapshot(1, at: last)
            try log.flush()
            let report = try log.trim(before: last + 1)
            #expect(report.removedEntries == 2)
            #expect(try log.readEntries().isEmpty)
            #expect(try log.highestSequence() == last)
            #expect(try log.highestSequence(stream: "counter") == last)
            try log.close()
        }
        let log = try EventLog.open(at: path)
        let stream = try log.counterStream()
        try log.flush()
        #expect(try log.readEntries().first?.sequence == 3)
        #expect(try log.highestSequence(stream: "counter") == 3)
        _ = stream
    }

    @Test("trimming needs a writable log")
    func trimReadOnly() throws {
        let path = scratch.file("m.reactorlog")
        try makeLog().close()
        #expect(throws: EventLogError.readOnly(path: path)) { try EventLog.openReadOnly(at: path).trim(before: 10) }
    }

    @Test("a compacting copy is a complete log, smaller after a trim")
    func compactCopy() throws {
        let log = try makeLog()
        try log.trim(before: 150)
        let destination = scratch.file("copy.reactorlog")
        try log.copy(to: destination)
        let copy = try EventLog.openReadOnly(at: destination)
        #expect(try copy.readEntries() == (try log.readEntries()))
        #expect(try copy.snapshotSequences(stream: "counter") == (try log.snapshotSequences(stream: "counter")))
        #expect(try copy.verify().isHealthy)
        let mode = try FileManager.default.attributesOfItem(atPath: destination + "/data.mdb")[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let error = #expect(throws: EventLogError.self) { try log.copy(to: destination) }
        #expect(error?.description.contains("already exists") == true)
    }

    @Test("an unfinished copy is removed: its data file, and its directory only when the copy made it; a finished one is kept")
    func unfinishedCopy() throws {
        let made = scratch.file("made.reactorlog"), given = scratch.file("given.reactorlog")
        for directory in [made, given] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            _ = FileManager.default.createFile(atPath: directory + "/data.mdb.unfinished", contents: Data(repeating: 7, count: 4096))
        }
        #expect(!EventLog.removeUnfinishedCopy(at: made, madeDirectory: true))
        #expect(!EventLog.removeUnfinishedCopy(at: given, madeDirectory: false))
        #expect(!FileManager.default.fileExists(atPath: made))
        #expect(try FileManager.default.contentsOfDirectory(atPath: given).isEmpty)
        // The empty directory left is one a copy may write into again; once written, the copy is not removed.
        let log = try makeLog()
        try log.copy(to: given)
        #expect(try FileManager.default.contentsOfDirectory(atPath: given) == ["data.mdb"])
        #expect(EventLog.removeUnfinishedCopy(at: given, madeDirectory: true))
        #expect(try EventLog.openReadOnly(at: given).verify().isHealthy)
    }

    @Test("a copy stopped before it finished leaves data.mdb.unfinished, which no one takes for a log and the next copy there replaces")
    func leftoverCopy() throws {
        let log = try makeLog()
        let destination = scratch.file("stopped.reactorlog")
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: false)
        // What a copy killed midway leaves: the first pages of a data file, under the name it is written as.
        let whole = try Data(contentsOf: URL(fileURLWithPath: log.path + "/data.mdb"))
        _ = FileManager.default.createFile(atPath: destination + "/data.mdb.unfinished", contents: whole.prefix(whole.count / 2))
        for readOnly in [true, false] {
            let error = #expect(throws: EventLogError.self) {
                _ = readOnly ? try EventLog.openReadOnly(at: destination) : try EventLog.open(at: destination)
            }
            #expect(error?.problem == "\(destination) is not a ReactorLog log: it has no data.mdb, only data.mdb.unfinished, of a copy that has not finished: it was stopped, or is still being written.")
        }
        var made: Bool?
        try log.copy(to: destination) { made = $0 }
        #expect(made == false, "the directory was there before the copy")
        #expect(try FileManager.default.contentsOfDirectory(atPath: destination) == ["data.mdb"])
        let copy = try EventLog.openReadOnly(at: destination)
        #expect(try copy.verify().isHealthy)
        #expect(try copy.readEntries() == (try log.readEntries()))
    }

    @Test("a copy still writing data.mdb.unfinished holds its lock, and a second copy to that path is refused, leaving the file as it was")
    func copyStillRunning() throws {
        let log = try makeLog()
        let destination = scratch.file("running.reactorlog")
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: false)
        let unfinished = destination + "/data.mdb.unfinished"
        _ = FileManager.default.createFile(atPath: unfinished, contents: Data(repeating: 7, count: 4096))
        // The lock a running copy holds: flock's locks belong to an open file, so this one stands for another copy's.
        let running = open(unfinished, O_RDONLY)
        try #require(running >= 0 && flock(running, LOCK_EX) == 0)
        defer { close(running) }
        var claimed = false
        let error = #expect(throws: EventLogError.self) { try log.copy(to: destination) { _ in claimed = true } }
        #expect(error?.problem == "Cannot copy the log to \(destination): another copy is writing it now (it holds data.mdb.unfinished's lock). Wait for that copy to finish, or choose a new path.")
        #expect(!claimed)
        #expect(try Data(contentsOf: URL(fileURLWithPath: unfinished)) == Data(repeating: 7, count: 4096))
        #expect(try FileManager.default.contentsOfDirectory(atPath: destination) == ["data.mdb.unfinished"])
    }
}

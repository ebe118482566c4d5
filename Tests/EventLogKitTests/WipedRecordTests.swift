@testable import EventLogKit
import Foundation
import TestSupport
import Testing

/// A record of `entries` that tells no number: a node a zeroed sector wiped, its key and sizes 0. Such a key compares
/// below every other wherever it lies, so LMDB's search within its page lands on it from anywhere after it.
@Suite("A record that tells no number")
struct WipedRecordTests {
    let scratch = ScratchDirectory()

    /// A closed log of stream `a`'s 400 mutations, in several blocks, whose block `index` (the middle one unless given)
    /// is wiped; its path, every number, and the numbers the wiped block held.
    func logWithWipedBlock(index: ((Int) -> Int)? = nil) throws -> (path: String, all: [UInt64], lost: ClosedRange<UInt64>) {
        let path = scratch.file("wiped.reactorlog")
        do {
            let log = try EventLog.open(at: path)
            let a = try log.counterStream("a")
            for i in 1...400 { try a.append(.mutation("m\(i)", i)) }
            try log.close()
        }
        let firsts = try LogDamage.firstNumbers(of: path, database: "entries")
        let wiped = index?(firsts.count) ?? firsts.count / 2
        let highest = try EventLog.openReadOnly(at: path).highestSequence()
        let all = Array(1...highest)
        try LogDamage.zeroNodeInFile(of: path) { $0[wiped] }
        let end = wiped + 1 < firsts.count ? firsts[wiped + 1] - 1 : all.last!
        return (path, all, firsts[wiped]...end)
    }

    @Test("a lookup reads every entry around a wiped block in the middle and names each inside it by its own number")
    func lookups() throws {
        let (path, all, lost) = try logWithWipedBlock()
        #expect(lost.lowerBound > 1 && lost.upperBound < all.last!)
        let log = try EventLog.openReadOnly(at: path)
        // Before 2026-12-06 a search landing on it from after it threw `Entry #0` for entries of the block before.
        for sequence in [1, lost.lowerBound - 1, lost.upperBound + 1, all.last!] {
            #expect(try log.entry(at: sequence)?.sequence == sequence)
        }
        for sequence in [lost.lowerBound, lost.lowerBound + 1, lost.upperBound] {
            #expect(throws: EventLogError.corruptEntry(sequence: sequence, reason: EntryKey.numberlessReason(0))) { try log.entry(at: sequence) }
        }
        // A batch of lookups steps from one to the next over the records between, the wiped one among them.
        let outside = all.filter { !lost.contains($0) }
        #expect(try log.entries(at: outside).map { $0?.sequence } == outside)
    }

    @Test("a walk lists every other entry and names the wiped block's numbers by its first; verify names it there and checks on after it")
    func walkAndVerify() throws {
        let (path, all, lost) = try logWithWipedBlock()
        // Before 2026-12-06 verify's walk stopped at it: the entries after it went unchecked.
        try expectWalkAndVerify(path, all: all, lost: lost)
    }

    /// Expects a walk over the log at `path` to read every entry of `all` but `lost`, the numbers of its one wiped
    /// record, and to skip those as one stretch named by its first; and `verify` to name it there and check the rest.
    func expectWalkAndVerify(_ path: String, all: [UInt64], lost: ClosedRange<UInt64>, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let log = try EventLog.openReadOnly(at: path)
        var iterator = log.entries()
        var read: [UInt64] = [], skipped: [(ClosedRange<UInt64>, EventLogError)] = []
        while let entry = try iterator.nextReadable(skipped: { skipped.append(($0, $1)) }) { read.append(entry.sequence) }
        #expect(read == all.filter { !lost.contains($0) }, sourceLocation: sourceLocation)
        #expect(skipped.map(\.0) == [lost], sourceLocation: sourceLocation)
        #expect(skipped.first?.1 == .corruptEntry(sequence: lost.lowerBound, reason: EntryKey.numberlessReason(0)), sourceLocation: sourceLocation)
        let report = try log.verify()
        #expect(report.firstError?.sequence == lost.lowerBound && report.firstError?.message == EntryKey.numberlessReason(0), "\(report.problems)", sourceLocation: sourceLocation)
        #expect(report.entries == all.count - lost.count, sourceLocation: sourceLocation)
    }

    @Test("a wiped first block: verify names it by the first number, which a seek from the start passes")
    func firstBlock() throws {
        let (path, all, lost) = try logWithWipedBlock { _ in 0 }
        let log = try EventLog.openReadOnly(at: path)
        #expect(try log.highestSequence() == all.last!)
        let report = try log.verify()
        #expect(report.firstError?.sequence == 1 && report.firstError?.message == EntryKey.numberlessReason(0), "\(report.problems)")
        #expect(report.entries == all.count - lost.count)
        #expect(throws: EventLogError.corruptEntry(sequence: 1, reason: EntryKey.numberlessReason(0))) { try log.entry(at: 1) }
    }

    /// Before 2026-12-06 a walk from the start of a trimmed log named such a block `#1` (a listing left out `#1…`),
    /// and verify named it after the log's floor, the highest number when it was trimmed: past every entry it held.
    @Test("a wiped first block of a trimmed log: a walk, verify and a listing's stretch name it from the first number the stream index lists")
    func firstBlockOfTrimmedLog() throws {
        let (path, firsts, kept) = try trimmedLog("trimmed.reactorlog")
        try LogDamage.zeroNodeInFile(of: path) { $0[0] }
        try expectWalkAndVerify(path, all: kept, lost: firsts[0]...(firsts[1] - 1))
    }

    /// Before 2026-12-06 verify named it past the log's last number, after the log's floor.
    @Test("a wiped block after a damaged first block of a trimmed log: verify names it after the damaged block's key, among the log's numbers")
    func afterDamagedFirstBlock() throws {
        let (path, firsts, kept) = try trimmedLog("damaged-then-wiped.reactorlog")
        try LogDamage.flipByte(of: path, database: "entries", mask: 0x10) { $0[0] }
        try LogDamage.zeroNodeInFile(of: path) { $0[1] }
        let problems = try EventLog.openReadOnly(at: path).verify().problems.filter { $0.sequence != nil }
        #expect(problems.first?.sequence == firsts[0] && problems.first?.message.contains("checksum") == true, "\(problems)")
        let wiped = try #require(problems.first { $0.message == EntryKey.numberlessReason(0) })
        #expect(wiped.sequence.map { $0 > firsts[0] && $0 <= firsts[1] && $0 <= kept.last! } == true, "\(problems)")
    }

    /// A closed log of stream `a`'s 400 mutations, a snapshot every 16, trimmed before #150: its path, the first number
    /// of each of its records, and the numbers it keeps.
    func trimmedLog(_ name: String) throws -> (path: String, firsts: [UInt64], kept: [UInt64]) {
        let path = scratch.file(name)
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = .every(mutations: 16)
        do {
            let log = try EventLog.open(at: path, configuration: configuration)
            let a = try log.counterStream("a")
            for i in 1...400 {
                let sequence = try a.append(.mutation("m\(i)", i))
                if a.isSnapshotDue { try a.writeSnapshot(Data("\(i)".utf8), codec: .json, at: sequence) }
            }
            try log.trim(before: 150)
            try log.close()
        }
        let firsts = try LogDamage.firstNumbers(of: path, database: "entries")
        let log = try EventLog.openReadOnly(at: path)
        let kept = try log.readEntries().map(\.sequence)
        let floor = try log.metadata().sequenceFloor
        #expect(firsts[0] > 1 && firsts[0] < 150 && kept.first == firsts[0] && firsts.count > 2 && floor == 401)
        return (path, firsts, kept)
    }
}

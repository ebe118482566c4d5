@testable import EventLogKit
import Foundation
import LMDB
import TestSupport
import Testing

/// A stream's entries are read through its index and one cursor over the log, stepping to the next entry when it
/// is a few ahead and seeking when it is further: both must find exactly the stream's entries.
@Suite("Reading a stream through its index")
struct StreamReadTests {
    let scratch = ScratchDirectory()

    /// Three streams interleaved irregularly: `dense` appends in runs, `sparse` once in a while, `mixed` alternates
    /// actions and mutations. Gaps between one stream's entries range from 1 to beyond the cursor's step limit.
    func makeLog() throws -> (path: String, log: EventLog) {
        let path = scratch.file("streams.reactorlog")
        let log = try scratch.openLog("streams.reactorlog")
        let dense = try log.counterStream("dense"), sparse = try log.counterStream("sparse"), mixed = try log.counterStream("mixed")
        var random = Xorshift(state: 77)
        for round in 0..<400 {
            for _ in 0..<Int.random(in: 0...12, using: &random) { try dense.append(.mutation("add", round)) }
            if round % 7 == 0 { try sparse.append(.mutation("set", round)) }
            try mixed.append(round % 2 == 0 ? .action("tap") : .mutation("tapped", round))
        }
        try log.flush()
        return (path, log)
    }

    @Test("every stream, with and without a kind, reads exactly what a scan of the whole log finds")
    func agreesWithScan() throws {
        let (_, log) = try makeLog()
        let all = try log.readEntries()
        for stream in ["dense", "sparse", "mixed"] {
            for kinds: Set<EntryKind>? in [nil, [.mutation], [.action]] {
                let read = try log.readEntries(EntryQuery(stream: stream, kinds: kinds)).map(\.sequence)
                let scanned = all.filter { $0.stream == stream && (kinds?.contains($0.kind) ?? true) }.map(\.sequence)
                #expect(read == scanned, "\(stream) \(String(describing: kinds))")
                #expect(!scanned.isEmpty || kinds == [.action])
            }
        }
    }

    @Test("after the last block's key is damaged upwards, appends go before it, each commit continuing the last of them")
    func appendsBeforeDamagedLastKey() throws {
        let path = scratch.file("last-key.reactorlog")
        do {
            let log = try scratch.openLog("last-key.reactorlog")
            let runs = try log.counterStream("runs")
            for step in 0..<3_000 { try runs.append(.mutation("add", step)) }
            try log.flush()
            try log.close()
        }
        let key = try LogDamage.moveKeyInFile(of: path) { $0[$0.count - 1] }
        let first = key.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let highest: UInt64
        do {
            let damaged = try EventLog.openReadOnly(at: path)
            highest = try damaged.highestSequence()
            // Read in order, the block is where its numbers belong, and named once (a later seek landed on it again).
            #expect(try damaged.verify().unreadable.map(\.entries) == [first...highest])
            try damaged.close()
        }
        // Fifty commits of one entry each: an append after the damaged key failed (MDB_KEYEXIST) and the log took no
        // more; they now go before it, the first starting a block, the others continuing it.
        do {
            let log = try scratch.openLog("last-key.reactorlog")
            let other = try log.counterStream("other")
            for step in 0..<50 {
                try other.append(.mutation("add", step))
                try log.flush()
            }
            try log.close()
        }
        let log = try EventLog.openReadOnly(at: path)
        let keys = try log.storage.read { txn in try LogDamage.keys(of: log.storage.entries, in: txn) }
        let firsts = keys.map { $0.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        #expect(firsts.filter { $0 > highest && $0 != first | 1 << 22 } == [highest + 1], "\(firsts.suffix(4))")
        // Every entry reads but the damaged block's, named by the numbers it records, where verify names it: one
        // error, at its first number (the walk used to report its numbers as a gap too).
        let verified = try log.verify()
        let stretch = try #require(verified.unreadable.first?.entries)
        #expect(stretch == first...highest)
        #expect(verified.problems.filter { $0.severity == .error && $0.sequence != nil }.map(\.sequence) == [first], "\(verified.problems)")
        for stream: String? in [nil, "runs"] {
            var iterator = log.entries(EntryQuery(stream: stream))
            var read: [UInt64] = [], skipped: [ClosedRange<UInt64>] = []
            while let entry = try iterator.nextReadable(skipped: { range, _ in skipped.append(range) }) { read.append(entry.sequence) }
            let all = stream == nil ? Array(1...highest + 51) : Array(1...highest)
            #expect(skipped == [stretch] && read == all.filter { !stretch.contains($0) }, "\(stream ?? "every stream")")
        }
        // A lookup of one of its entries, which the tree's order puts elsewhere, meets its damage: it is not missing.
        #expect(throws: EventLogError.self) { try log.entry(at: first + 1) }
        // A read of a range that ends before the tree's end never meets the block, yet names it when the range holds
        // its numbers (it listed the entries around them as if nothing were missing), as far as the range goes; a range
        // after it does not.
        for (range, expected) in [(first - 2...first + 2, [first...first + 2]), (first - 2...highest + 5, [stretch]), (highest + 1...UInt64.max, [])] {
            var iterator = log.entries(EntryQuery(from: range.lowerBound, through: range.upperBound))
            var read: [UInt64] = [], named: [ClosedRange<UInt64>] = []
            while let entry = try iterator.nextReadable(skipped: { range, _ in named.append(range) }) { read.append(entry.sequence) }
            #expect(named == expected && read == range.clamped(to: 1...highest + 51).filter { !stretch.contains($0) }, "\(range)")
        }
        #expect(throws: EventLogError.self) { try log.readEntries(EntryQuery(from: first - 2, through: first + 2)) }
        // A query that selects nothing (its start above its end) looks for nothing: it ends, no range made of it.
        var none = log.entries(EntryQuery(from: first + 10, through: first))
        #expect(try none.nextReadable(skipped: { _, _ in }) == nil)
    }

    @Test("a block whose key is damaged out of the tree's order costs each stream only its own entries in the block")
    func keyOutOfPlace() throws {
        // `runs` appends 300 entries at a time, `rare` one between runs: most blocks hold none of `rare`'s, whose
        // consecutive entries a lookup reaches by stepping over the records between them.
        let path = scratch.file("moved.reactorlog")
        let all: [LogEntry]
        do {
            let log = try scratch.openLog("moved.reactorlog")
            let runs = try log.counterStream("runs"), rare = try log.counterStream("rare")
            for round in 0..<12 {
                for step in 0..<300 { try runs.append(.mutation("add", step)) }
                try rare.append(.mutation("set", round))
            }
            try log.flush()
            all = try log.readEntries()
            try log.close()
        }
        let rare = all.filter { $0.stream == "rare" }.map(\.sequence)
        // A block in the middle of a run, between two of `rare`'s entries.
        let key = try LogDamage.moveKeyInFile(of: path) { keys in
            let firsts = keys.map { $0.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
            let middle = (firsts.count / 2..<firsts.count - 1).first { index in
                !rare.contains { firsts[index] <= $0 && $0 < firsts[index + 1] }
            }
            return keys[middle ?? firsts.count / 2]
        }
        let log = try EventLog.openReadOnly(at: path)
        let stretch = try #require(try log.verify().unreadable.first?.entries)
        #expect(stretch.lowerBound == key.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        #expect(!rare.contains { stretch.contains($0) })
        for stream: String? in ["runs", "rare", nil] {
            var iterator = log.entries(EntryQuery(stream: stream))
            var read: [UInt64] = [], skipped: [ClosedRange<UInt64>] = []
            while let entry = try iterator.nextReadable(skipped: { range, _ in skipped.append(range) }) { read.append(entry.sequence) }
            let expected = all.filter { (stream == nil || $0.stream == stream) && !stretch.contains($0.sequence) }.map(\.sequence)
            #expect(read == expected, "\(stream ?? "every stream")")
            #expect(skipped == (stream == "rare" ? [] : [stretch]), "\(stream ?? "every stream")")
        }
        // Each entry looked up on its own: `rare`'s step over the damaged block's key.
        for sequence in rare { #expect(try log.entry(at: sequence)?.sequence == sequence) }
        // Every number in order through one cursor, as a stream's reader steps: each found, but the block's.
        let missed = try log.storage.read { txn in
            try txn.withCursor(log.storage.entries) { cursor in
                var entries = EntryCursor(cursor)
                return all.map(\.sequence).filter { sequence in
                    guard !stretch.contains(sequence) else { return false }
                    return (try? entries.entry(sequence))??.sequence != sequence
                }
            }
        }
        #expect(missed.isEmpty)
        // A read of the whole log from each number after the block starts there, wherever its first seek lands.
        let after = all.map(\.sequence).filter { $0 > stretch.upperBound }.prefix(600)
        let misplaced = try after.filter { try log.readEntries(EntryQuery(from: $0, limit: 1)).first?.sequence != $0 }
        #expect(misplaced.isEmpty, "\(misplaced.prefix(5))")
    }

    /// Three streams in blocks that skip numbers: `cut`'s entries (it has snapshots) removed from a stretch in which
    /// the others' stay.
    func makeGappedLog() throws -> EventLog {
        let log = try scratch.openLog("gaps.reactorlog")
        let cut = try log.counterStream("cut"), kept = try log.counterStream("kept"), rare = try log.counterStream("rare")
        var random = Xorshift(state: 5)
        for round in 0..<1_200 {
            var last: UInt64 = 0
            for _ in 0..<Int.random(in: 1...4, using: &random) { last = try cut.append(.mutation("add", round)) }
            if round % 50 == 49 { try cut.writeSnapshot(round, at: last) }
            try kept.append(round % 3 == 0 ? .action("tap") : .mutation("tapped", round))
            if round % 37 == 0 { try rare.append(.mutation("set", round)) }
        }
        try log.flush()
        // `cut` has snapshots, so its entries leave the stretch; the others' stay, in blocks now missing numbers.
        let report = try log.removeEntries(400..<3_000)
        #expect(try #require(report.streams.first { $0.stream == "cut" }).removedEntries > 1_000)
        return log
    }

    @Test("blocks that skip numbers (another stream's stretch removed): every stream still reads what a scan finds")
    func blocksWithGaps() throws {
        let log = try makeGappedLog()
        let all = try log.readEntries()
        #expect(zip(all, all.dropFirst()).contains { $1.sequence - $0.sequence > 1 && $0.sequence > 400 && $1.sequence < 3_000 })
        for stream in ["cut", "kept", "rare"] {
            for kinds: Set<EntryKind>? in [nil, [.mutation], [.action]] {
                let read = try log.readEntries(EntryQuery(stream: stream, kinds: kinds)).map(\.sequence)
                #expect(read == all.filter { $0.stream == stream && (kinds?.contains($0.kind) ?? true) }.map(\.sequence))
            }
        }
        #expect(try log.verify().isHealthy)
    }

    @Test("a seek to any number finds the first entry at or after it, in the block at or before it or in the next")
    func seekAtOrAfter() throws {
        let log = try makeGappedLog()
        let all = try log.readEntries().map(\.sequence)
        let storage = log.storage
        let found = try storage.read { txn in
            try txn.withCursor(storage.entries) { raw in
                var cursor = EntryCursor(raw)
                return try (0...all.last! + 1).map { try cursor.seek(atOrAfter: $0)?.sequence }
            }
        }
        #expect(found == (0...all.last! + 1).map { target in all.first { $0 >= target } })
    }

    @Test("what an action caused: its entries in order, however late and among other streams' entries, within its run")
    func causedBy() throws {
        let log = try scratch.openLog("caused.reactorlog")
        let stream = try log.counterStream("mixed"), other = try log.counterStream("other")
        let first = try stream.append(.action("tap"))
        let early = try stream.append(.mutation("tapped", 1, cause: first))
        let second = try stream.append(.action("tap"))
        try stream.append(.mutation("tapped", 2, cause: second))
        for index in 0..<3_000 { try other.append(.mutation("add", index, cause: first)) }
        let late = try stream.append(.mutation("tapped", 3, cause: first))
        try log.close()
        // A later run of the app resumes the stream: nothing after that can come from `first`'s effect, so an entry
        // naming it there (written here by hand) is not looked at.
        let reopened = try scratch.openLog("caused.reactorlog")
        let resumed = try reopened.counterStream("mixed")
        try resumed.append(.mutation("tapped", 4, cause: first))
        try reopened.flush()

        #expect(try reopened.entries(causedBy: first, stream: "mixed").map(\.sequence) == [early, late])
        #expect(try reopened.entries(causedBy: first, stream: "mixed", limit: 1).map(\.sequence) == [early])
        #expect(try reopened.entries(causedBy: second, stream: "mixed").map(\.caseName) == ["tapped"])
        #expect(try reopened.entries(causedBy: late, stream: "mixed").isEmpty)
    }

    @Test("an entry the index lists but the log lacks is an error, whether the cursor steps or seeks to it")
    func missingEntry() throws {
        let (path, log) = try makeLog()
        let dense = try log.readEntries(EntryQuery(stream: "dense")).map(\.sequence)
        // One right after another of its stream (a step), one far from the last (a seek).
        let stepped = try #require(zip(dense, dense.dropFirst()).first { $1 - $0 == 1 }?.1)
        let sparse = try log.readEntries(EntryQuery(stream: "sparse")).map(\.sequence)
        let sought = sparse[3]
        try log.close()
        do {
            let environment = try Environment(path: path)
            let entries = try environment.openDatabase("entries")
            try environment.write { txn in
                try LogStorage.removeEntries([stepped, sought].sorted(), from: entries, in: txn)
            }
        }
        let damaged = try EventLog.openReadOnly(at: path)
        for (stream, missing) in [("dense", stepped), ("sparse", sought)] {
            let error = #expect(throws: EventLogError.self) { try damaged.readEntries(EntryQuery(stream: stream)) }
            #expect("\(String(describing: error))".contains("#\(missing)"), "\(String(describing: error))")
            #expect("\(String(describing: error))".contains("lists it, but the entry is missing"))
        }
    }
}

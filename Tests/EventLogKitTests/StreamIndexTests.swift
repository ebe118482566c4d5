@testable import EventLogKit
import Foundation
import LMDB
import TestSupport
import Testing

/// Checks `lastSequence(stream:kinds:atOrBefore:after:)` against `truth` (a stream's sequence numbers by kind) at
/// each of `steps`, for actions, mutations and both, with no floor, a floor a few entries back and one far back.
func expectLastSequencesAgree(_ log: EventLog, stream: String, truth: [UInt64: EntryKind], at steps: [UInt64]) throws {
    for step in steps {
        for kinds: Set<EntryKind> in [[.action], [.mutation], [.action, .mutation]] {
            for floor in [0, step.subtractingReportingOverflow(5).partialValue, step / 2] where floor <= step {
                let expected = truth.filter { kinds.contains($0.value) && $0.key <= step && $0.key > floor }.keys.max()
                let found = try log.lastSequence(stream: stream, kinds: kinds, atOrBefore: step, after: floor)
                #expect(found == expected, "stream \(stream), \(kinds) in (\(floor), \(step)]")
            }
        }
    }
}

/// The stream index of format version 5 keeps each stream's entries in blocks: every reading through it must agree
/// with the entries themselves, across block boundaries, after removals, and a damaged block is an error.
@Suite("Stream index blocks")
struct StreamIndexTests {
    let scratch = ScratchDirectory()

    /// Two interleaved streams: `a` gets an action (with a call site on every third), then two mutations; `b` a
    /// mutation; `rounds` times. Returns the path, closed.
    func makeLog(rounds: Int, name: String = "i.reactorlog") throws -> String {
        let path = scratch.file(name)
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = .every(mutations: 100)
        let log = try EventLog.open(at: path, configuration: configuration)
        let a = try log.openStream(named: "a", reactorType: "A", schemaFingerprint: "v1", initialState: 0)
        let b = try log.openStream(named: "b", reactorType: "B", schemaFingerprint: "v1", initialState: 0)
        for round in 0..<rounds {
            let action = try a.append(EntryDraft(
                kind: .action, caseName: "tap", payload: Data("\(round)".utf8), codec: .json,
                callSite: round % 3 == 0 ? "App/View.swift:\(round % 7)" : nil))
            try a.append(.mutation, round, caseName: "add", cause: action)
            try a.append(.mutation, round, caseName: "add", cause: action)
            try b.append(.mutation, round, caseName: "set")
            if round % 50 == 49 { try a.writeSnapshot(round, at: action + 2) }
        }
        try log.close()
        return path
    }

    /// Each stream's blocks as (first sequence, record size), straight from LMDB.
    func blocks(_ path: String) throws -> [UInt32: [(first: UInt64, size: Int)]] {
        try rawRecords(path, "stream-index").reduce(into: [:]) { found, record in
            record.key.withUnsafeBytes { key in
                if let key = KeyCoding.decodeStreamSequence(key) { found[key.stream, default: []].append((key.sequence, record.value.count)) }
            }
        }
    }

    /// What a full scan of the entries says of stream `name`: its sequence numbers by kind.
    func scanned(_ log: EventLog, _ name: String) throws -> [UInt64: EntryKind] {
        try log.readEntries(EntryQuery()).filter { $0.stream == name }.reduce(into: [:]) { $0[$1.sequence] = $1.kind }
    }

    @Test("every reading through a many-block index agrees with the entries, at and between block boundaries")
    func readsAgree() throws {
        let path = try makeLog(rounds: 1_500)
        let log = try EventLog.openReadOnly(at: path)
        let blocks = try blocks(path)
        #expect(try log.metadata().formatVersion == EventLog.formatVersion)
        #expect(blocks[1, default: []].count > 5 && blocks[2, default: []].count > 2, "\(blocks.mapValues(\.count))")
        #expect(blocks.values.joined().allSatisfy { $0.size <= StreamIndex.checksumSize + StreamIndex.blockCapacity })

        for name in ["a", "b"] {
            let truth = try scanned(log, name)
            let all = try log.sequences(stream: name, kinds: Set(EntryKind.allCases))
            #expect(all == truth.keys.sorted())
            #expect(try log.sequences(stream: name, kinds: [.mutation]) == truth.filter { $0.value == .mutation }.keys.sorted())
            #expect(try log.readEntries(EntryQuery(stream: name)).map(\.sequence) == all)
            let statistics = try log.statistics(stream: name)
            #expect(statistics.entries == all.count && statistics.first == all.first && statistics.last == all.last)
            #expect(statistics.kinds == truth.values.reduce(into: [:]) { $0[$1, default: 0] += 1 })
        }
        // `lastSequence(atOrBefore:)` on each block's first entry, the number before it, and one past the end.
        let a = try log.sequences(stream: "a", kinds: Set(EntryKind.allCases))
        for block in blocks[1, default: []] {
            #expect(try log.lastSequence(stream: "a", atOrBefore: block.first) == block.first)
            #expect(try log.lastSequence(stream: "a", atOrBefore: block.first - 1) == a.last { $0 < block.first })
        }
        #expect(try log.lastSequence(stream: "a", atOrBefore: .max) == a.last)
        #expect(try log.lastSequence(stream: "a", atOrBefore: 0) == nil)
        // Of some kinds only, between a floor and a step: stepping back across blocks, never into another stream's.
        var probes = blocks.values.joined().flatMap { [$0.first, $0.first - 1, $0.first + 1] }
        probes += [0, 1, .max]
        for name in ["a", "b"] {
            try expectLastSequencesAgree(log, stream: name, truth: try scanned(log, name), at: probes)
        }
        // A tail of each stream starts where its latest entries do, across blocks and past the other stream's.
        for name in ["a", "b"] {
            let all = try log.sequences(stream: name, kinds: Set(EntryKind.allCases))
            for count in [1, 2, 3, 500, all.count, all.count + 7] {
                #expect(try log.firstOfLatest(count, stream: name) == all[max(0, all.count - count)], "\(name) \(count)")
            }
            #expect(try log.firstOfLatest(2, stream: name, atOrBefore: all[10]) == all[9])
            #expect(try log.firstOfLatest(0, stream: name) == nil)
        }
        #expect(try log.firstOfLatest(3, stream: "none") == nil)
        // Call sites come from the index too, from any block.
        let sites = try log.callSites(stream: "a")
        #expect(sites.count == 500)
        let actions = try log.sequences(stream: "a", kinds: [.action])
        #expect(try log.callSite(at: actions[1_497]) == "App/View.swift:\(1_497 % 7)")
        #expect(try log.callSite(at: actions[1_498]) == nil)
        #expect(try log.verify().isHealthy)
    }

    @Test("a kind mask holds exactly its kinds, for every byte an index may hold")
    func kindMask() {
        for kinds: Set<EntryKind> in [[], [.mutation], [.action, .mutation], Set(EntryKind.allCases)] {
            let mask = KindMask(kinds)
            for byte in UInt8.min...UInt8.max {
                #expect(mask.contains(byte) == kinds.contains { $0.rawValue == byte }, "\(kinds) \(byte)")
            }
        }
    }

    @Test("the example block of docs/FORMAT.md is the bytes the writer writes, and decodes back")
    func formatExample() throws {
        let items: [StreamIndex.Item] = [
            .init(sequence: 3, kind: EntryKind.action.rawValue, site: 1), .init(sequence: 4, kind: EntryKind.mutation.rawValue),
            .init(sequence: 5, kind: EntryKind.mutation.rawValue), .init(sequence: 7, kind: EntryKind.action.rawValue, site: 0),
        ]
        let block = StreamIndex.block(items, stream: 1)
        #expect(block.map { String(format: "%02x", $0) }.joined(separator: " ") == "43 f5 03 e2 00 01 01 01 02 01 02 02 01 00")
        var decoded: [StreamIndex.Item] = []
        let last = try block.withUnsafeBytes {
            try StreamIndex.decode($0, stream: 1, first: 3, seal: .keyAndItems) { decoded.append($0); return true }
        }
        #expect(decoded == items)
        #expect(last == items.last?.sequence)
        // Format version 7 sealed the items alone (`58 51 eb 36`): read as a log of version 7 or less is.
        let itemsOnly = resealed(block)
        #expect(itemsOnly.prefix(4) == [0x58, 0x51, 0xeb, 0x36])
        #expect(try itemsOnly.withUnsafeBytes { try StreamIndex.decode($0, stream: 1, first: 3, seal: .itemsOrKeyAndItems) { _ in true } } == 7)
        // Version 8 refuses it, and the block under any other key: another first number or another stream.
        for (record, stream, first) in [(itemsOnly, UInt32(1), UInt64(3)), (block, 1, 4), (block, 1, 2), (block, 2, 3)] {
            #expect(throws: EventLogError.corruptIndex(streamID: stream, block: first, reason: "its checksum does not match")) {
                try record.withUnsafeBytes { try StreamIndex.decode($0, stream: stream, first: first, seal: .keyAndItems) { _ in true } }
            }
        }
        // A distance of 0 after the first item, or a first item that is not the key's, is refused.
        for bad: [UInt8] in [[0, 2, 0, 2], [1, 2]] {
            let record = resealed([UInt8](repeating: 0, count: 4) + bad)
            #expect(throws: EventLogError.self) {
                try record.withUnsafeBytes { try StreamIndex.decode($0, stream: 1, first: 3, seal: .itemsOrKeyAndItems) { _ in true } }
            }
        }
    }

    @Test("the index costs about 2.5 bytes an entry: ten times less than a record per entry")
    func compact() throws {
        let path = try makeLog(rounds: 2_500)
        let bytes = try blocks(path).values.joined().reduce(0) { $0 + $1.size }
        // 10,000 entries; a version-4 record per entry took a 12-byte key, a 1- or 5-byte value and a node header.
        #expect(bytes < 30_000, "\(bytes) bytes of blocks for 10,000 entries")
        #expect(bytes >= 10_000 * 2)
    }

    @Test("removing a stretch cuts blocks where it starts and ends, and the index still agrees with the entries")
    func removals() throws {
        let path = try makeLog(rounds: 1_500)
        let log = try EventLog.open(at: path)
        let before = try log.sequences(stream: "a", kinds: Set(EntryKind.allCases))
        // A stretch from inside one block to inside a later one; the removal ends at a snapshot of `a`.
        let report = try log.removeEntries(1_001..<3_500)
        let base = try #require(report.streams.first { $0.stream == "a" }?.replaysFrom)
        let after = try log.sequences(stream: "a", kinds: Set(EntryKind.allCases))
        #expect(after == before.filter { $0 < 1_001 || $0 > base })
        #expect(try log.readEntries(EntryQuery(stream: "a")).map(\.sequence) == after)
        #expect(try scanned(log, "a").keys.sorted() == after)
        #expect(try log.lastSequence(stream: "a", atOrBefore: base) == after.last { $0 < 1_001 })

        // Then trim the front: whole blocks go, and the block holding the new front starts at it.
        let trimmed = try log.trim(before: 5_000)
        let front = try #require(trimmed.streams.first { $0.stream == "a" }?.replaysFrom)
        let remaining = try log.sequences(stream: "a", kinds: Set(EntryKind.allCases))
        #expect(remaining == after.filter { $0 > front })
        #expect(try log.verify().isHealthy)
        try log.close()
        #expect(try blocks(path)[1]?.first?.first == remaining.first)
    }

    @Test("appends after a removal that re-keyed the index's last block: the writer finds the new last key (no MDB_KEYEXIST)")
    func appendsAfterRemovingTheLastBlocksFront() throws {
        // One stream, one index block: removing its front rewrites the block under the key of its first kept entry,
        // past the key the writer last wrote. Before 2026-12-07 the writer kept that older key as the index's largest,
        // appended the continued block under the new one with MDB_APPEND, and LMDB refused it (MDB_KEYEXIST): the log
        // stopped writing. Retention does the same removal inside the writer's own commits, which made it intermittent.
        let path = scratch.file("rekeyed.reactorlog")
        let log = try scratch.openLog("rekeyed.reactorlog") { $0.snapshotPolicy = .every(mutations: 10) }
        let a = try log.openStream(named: "a", reactorType: "A", schemaFingerprint: "v1", initialState: 0)
        func add(_ rounds: Range<Int>) throws {
            for round in rounds {
                let action = try a.append(EntryDraft(kind: .action, caseName: "tap", payload: Data("\(round)".utf8), codec: .json))
                let mutation = try a.append(.mutation, round, caseName: "add", cause: action)
                if a.isSnapshotDue { try a.writeSnapshot(round, at: mutation) }
            }
            try log.flush()
        }
        try add(0..<25)
        let report = try log.removeEntries(1..<40)
        let base = try #require(report.streams.first?.replaysFrom)
        try add(25..<40)
        let kept = try log.sequences(stream: "a", kinds: [.action, .mutation])
        #expect(kept.first == base + 1 && kept.count == 2 * 40 + 1 - Int(base), "\(kept)")
        #expect(try log.verify().isHealthy)
        try log.close()
        #expect(try blocks(path)[1]?.first?.first == base + 1)
    }

    @Test("index damage where no block of the stream is known (keys out of order before its first) names no block #0")
    func damageBeforeAnyBlock() {
        // Before 2026-12-06 "a key where a search for #0 lands".
        let reason = "a key where a search from the stream's start lands is 0 bytes, not 12"
        #expect(EventLogError.corruptIndex(streamID: 2, block: nil, reason: reason).problem == "The index of stream id 2 is damaged: \(reason).")
        #expect(EventLogError.corruptIndex(streamID: 2, block: 9, reason: reason).problem
            == "The index of stream id 2 is damaged in its block from #9: \(reason).")
    }

    @Test("a damaged block is gone around: reads of the stream find its entries in the whole log, and keep the damage")
    func damagedBlock() throws {
        let path = try makeLog(rounds: 1_500)
        let streamBlocks: [(first: UInt64, size: Int)] = try #require(try blocks(path)[1])
        let starts = streamBlocks.map(\.first)
        let (second, third) = (starts[1], starts[2])
        try damageBlock(path, from: second)
        let log = try EventLog.openReadOnly(at: path)
        // The other stream's index is sound: nothing is gone around.
        #expect(try log.sequences(stream: "b", kinds: [.mutation]).count == 1_500)
        #expect(log.bypassedIndexDamage.isEmpty)
        let truth = try scanned(log, "a")
        try expectReadsAgree(log, truth: truth, around: [second, third])
        let damage = try #require(log.bypassedIndexDamage.first)
        guard case .corruptIndex(1, second, _) = damage else { Issue.record("\(damage)"); return }
        #expect(log.bypassedIndexDamage.count == 1)
        #expect(damage.description.contains("block from #\(second): its checksum does not match") && !damage.description.contains("\n"))
        // Call sites are kept in the index alone: their read still refuses the damage.
        #expect(throws: EventLogError.self) { try log.callSites(stream: "a") }

        // verify reports the damage; only the damaged block's entries go uncounted: the blocks after it were read.
        let stored = truth.keys
        let lost = stored.filter { $0 >= second && $0 < third }.count
        let report = try log.verify()
        #expect(!report.isHealthy)
        #expect(report.problems.contains { $0.message.contains("index block of stream 'a' from this entry is damaged") && $0.sequence == second })
        #expect(report.problems.contains { $0.message.contains("stream 'a' has \(stored.count) entries but its index lists \(stored.count - lost)") },
                "\(report.problems)")
        #expect(!report.problems.contains { $0.severity == .error && $0.message.contains("stream 'b'") }, "\(report.problems)")
    }

    @Test("a block key moved to another number in a log of format version 7, the keys still in order, is found by every read through it, which reads on from the entries",
          arguments: [(1, 1), (1, 2), (1, 4), (1, -4), (0, 1), (0, 2), (0, 4)])
    func movedBlockKey(block: Int, by shift: Int) throws {
        // `a` appends three entries a round and `b` one, so a key moved by 4 lands each item on an entry of `a` of
        // the same kind: as version 7 seals a block's items alone, only the blocks before and after the moved one can
        // tell. The first block has none before it.
        let path = try makeLog(rounds: 1_500)
        try sealedAsVersion7(path)
        let streamBlocks: [(first: UInt64, size: Int)] = try #require(try blocks(path)[1])
        let (moved, next) = (streamBlocks[block].first, streamBlocks[block + 1].first)
        try moveIndexBlock(path, stream: 1, from: moved, to: UInt64(Int(moved) + shift))
        let log = try EventLog.openReadOnly(at: path)
        // Read through the index, each of these would skip or repeat entries; each finds the damage and reads on.
        try expectReadsAgree(log, truth: try scanned(log, "a"), around: [max(moved, 60), next])
        #expect(log.bypassedIndexDamage.count == 1)
        // Call sites live in the index alone: an action's is its own, or the damage is thrown; never another's.
        for action in try log.readEntries(EntryQuery(from: moved, through: next + 20, stream: "a", kinds: [.action])) {
            let round = try #require(Int(String(decoding: action.payload, as: UTF8.self)))
            let site: String?
            do {
                site = try log.callSite(of: action)
            } catch {
                guard case .corruptIndex = error else { throw error }
                continue
            }
            #expect(site == (round % 3 == 0 ? "App/View.swift:\(round % 7)" : nil), "#\(action.sequence)")
        }
        #expect(try log.sequences(stream: "b", kinds: [.mutation]).count == 1_500)
        #expect(!(try log.verify().isHealthy))
    }

    /// A log where `a` appends an action a round and `b` 80 mutations, 800 rounds: `a`'s entries lie 81 apart, and
    /// a key moved by 81 lands every item of its block on an action of `a`. Returns the path, closed.
    func makeSparseLog() throws -> String {
        let path = scratch.file("sparse.reactorlog")
        let log = try EventLog.open(at: path)
        let a = try log.openStream(named: "a", reactorType: "A", schemaFingerprint: "v1", initialState: 0)
        let b = try log.openStream(named: "b", reactorType: "B", schemaFingerprint: "v1", initialState: 0)
        for round in 0..<800 {
            try a.append(EntryDraft(kind: .action, caseName: "tap", payload: Data("\(round)".utf8), codec: .json))
            for step in 0..<80 { try b.append(.mutation, step, caseName: "set") }
        }
        try log.close()
        return path
    }

    @Test("a block key moved by a whole round in a stream whose entries lie 81 apart is found in a log of format version 7: the stretches are checked at both ends", arguments: [81, -81])
    func movedKeyFarApart(by shift: Int) throws {
        // The entries a key moved by 81 hides lie at the far end of an 80-entry stretch.
        let path = try makeSparseLog()
        try sealedAsVersion7(path)
        let streamBlocks: [(first: UInt64, size: Int)] = try #require(try blocks(path)[1])
        let (moved, next) = (streamBlocks[1].first, streamBlocks[2].first)
        try moveIndexBlock(path, stream: 1, from: moved, to: UInt64(Int(moved) + shift))
        let reader = try EventLog.openReadOnly(at: path)
        try expectReadsAgree(reader, truth: try scanned(reader, "a"), around: [moved, moved + 81 * 20, next])
        #expect(reader.bypassedIndexDamage.count == 1)
    }

    @Test("since format version 8 a block's checksum covers its key: a key moved by any amount is found at its block, the last of a sparse stream's too",
          arguments: [(1, 81), (1, -81), (-1, 81), (-1, 81 * 3), (-1, -81), (0, 1)])
    func movedKeySealed(block: Int, by shift: Int) throws {
        // Version 7 could not see the last block of a stream whose entries lie more than 64 apart moved up by a
        // round or more: no block after it, and the stretch ends it checks hold other streams' entries.
        let path = try makeSparseLog()
        let streamBlocks: [(first: UInt64, size: Int)] = try #require(try blocks(path)[1])
        let moved = streamBlocks[block < 0 ? streamBlocks.count + block : block].first
        try moveIndexBlock(path, stream: 1, from: moved, to: UInt64(Int(moved) + shift))
        let reader = try EventLog.openReadOnly(at: path)
        #expect(try reader.metadata().formatVersion == 8)
        // Each read across the moved block, and each that ends before it, finds the damage: the block after a range
        // is checked too, since a key moved past the range's end hides entries in it.
        try expectReadsAgree(reader, truth: try scanned(reader, "a"), around: [max(moved, 60), moved + 81 * 3])
        #expect(reader.bypassedIndexDamage.count == 1)
        let stored = try #require(try rawRecords(path, LogLayout.streamIndexDatabase).first { $0.key == KeyCoding.streamSequence(1, UInt64(Int(moved) + shift)) })
        #expect(throws: EventLogError.corruptIndex(streamID: 1, block: UInt64(Int(moved) + shift), reason: "its checksum does not match")) {
            try stored.value.withUnsafeBytes { try StreamIndex.decode($0, stream: 1, first: UInt64(Int(moved) + shift), seal: .keyAndItems) { _ in true } }
        }
        #expect(try reader.verify().problems.contains { $0.severity == .error && $0.message.contains("index block of stream 'a' from this entry is damaged") })
    }

    @Test("verify names a block whose key a bad bit changed by the number it held and checks the blocks after it; a key changed further, without a number",
          arguments: ["one bit up", "one bit down", "two bits up"])
    func keyChangedInPlace(change: String) throws {
        let path = try makeSparseLog()
        let streamBlocks = try #require(try blocks(path)[1])
        try #require(streamBlocks.count >= 3)
        // A middle block's key: raised past the log's last entry, or lowered below the key before it.
        let block = change == "one bit down" ? 2 : 1
        let first = streamBlocks[block].first
        let changed = switch change {
        case "one bit up": first ^ 1 << 22
        case "one bit down": first ^ 1 << (63 - first.leadingZeroBitCount)
        default: first ^ 0b11 << 22
        }
        if change == "one bit down" { try #require(changed < streamBlocks[block - 1].first) }
        #expect(try changeKeyInPlace(path, LogLayout.streamIndexDatabase, stream: 1, sequence: first, to: changed) >= 1)
        let reader = try EventLog.openReadOnly(at: path)
        let truth = try scanned(reader, "a").keys.sorted()
        #expect(try reader.readEntries(EntryQuery(stream: "a")).map(\.sequence) == truth)
        let errors = try reader.verify().problems.filter { $0.severity == .error }
        // Named by its own number, the key would make the log's first bad entry one it never held.
        let last = try reader.highestSequence()
        #expect(errors.allSatisfy { ($0.sequence ?? 0) <= last }, "\(errors)")
        if change == "two bits up" {
            #expect(errors.contains {
                $0.sequence == nil && $0.message == "an index block of stream 'a' is damaged: its checksum does not match; its key reads #\(changed), past the log's last entry"
            }, "\(errors)")
            return
        }
        // Named once, and the walk goes on: the index misses that block's entries alone.
        let missed = truth.count { $0 >= first && (block + 1 == streamBlocks.count || $0 < streamBlocks[block + 1].first) }
        #expect(errors.map(\.sequence) == [first, nil], "\(errors)")
        #expect(errors.first?.message == "the index block of stream 'a' from this entry is damaged: its key was changed to #\(changed) (one bit), where lookups do not find it")
        #expect(errors.last?.message == "stream 'a' has \(truth.count) entries but its index lists \(truth.count - missed)")
    }

    @Test("a stream's last block damaged in the file between two commits is not continued: the writer starts a new block, and the damage stays for verify")
    func lastBlockDamagedBetweenCommits() throws {
        // The writer notes the last block it wrote of each stream, so as not to decode it again to continue it; the
        // block's checksum is still checked, or the damage would be sealed as sound.
        let path = scratch.file("tip.reactorlog")
        let log = try EventLog.open(at: path)
        let a = try log.openStream(named: "a", reactorType: "A", schemaFingerprint: "v1", initialState: 0)
        for step in 0..<50 { _ = try a.append(.mutation, step, caseName: "set") }
        try log.flush()
        let first = try #require(try log.readEntries(EntryQuery(stream: "a")).first?.sequence)
        #expect(try damageIndexBlockInPlace(path, stream: 1, first: first) >= 1)
        for step in 50..<60 { _ = try a.append(.mutation, step, caseName: "set") }
        try log.close()
        #expect(try blocks(path)[1]?.count == 2, "the items after the damaged block went into a new one")
        let reader = try EventLog.openReadOnly(at: path)
        let truth = try scanned(reader, "a")
        #expect(try reader.readEntries(EntryQuery(stream: "a")).map(\.sequence) == truth.keys.sorted())
        let problems = try reader.verify().problems
        #expect(problems.contains { $0.message.contains("index block of stream 'a' from this entry is damaged: its checksum does not match") && $0.sequence == first },
                "\(problems)")
    }

    @Test("the writer's notes of each stream's last block are bounded: past the limit they are forgotten, not grown")
    func tipsBounded() {
        var tips = StreamIndex.Tips()
        let tip = StreamIndex.Tips.Tip(first: 1, size: 8, checksum: 0, last: 1)
        for id in 0..<UInt32(StreamIndex.Tips.limit) { tips.note(tip, stream: id) }
        tips.note(tip, stream: 7)
        #expect(tips.blocks.count == StreamIndex.Tips.limit)
        tips.note(tip, stream: UInt32(StreamIndex.Tips.limit))
        #expect(tips.blocks.count == 1 && tips.blocks[UInt32(StreamIndex.Tips.limit)] != nil)
    }

    @Test("a block whose stream id is damaged in the file, where its node lies among the stream's, is found where the stream's keys seem to end",
          arguments: [1, -1])
    func streamIDDamaged(block: Int) throws {
        // A walk of `a` steps from the block before onto a key of stream 3, takes it for the end of `a`'s keys, and
        // would miss every entry after it: `a`'s entries lie 81 apart, so the stretch checks cannot see them.
        let path = try makeSparseLog()
        let streamBlocks: [(first: UInt64, size: Int)] = try #require(try blocks(path)[1])
        let damaged = streamBlocks[block < 0 ? streamBlocks.count + block : block].first
        try changeStreamIDInPlace(path, stream: 1, first: damaged, to: 3)
        let reader = try EventLog.openReadOnly(at: path)
        let truth = try scanned(reader, "a")
        try expectReadsAgree(reader, truth: truth, around: [damaged, damaged + 81 * 3])
        #expect(reader.bypassedIndexDamage.count == 1)
        let previous = try #require(streamBlocks.last { $0.first < damaged }).first
        #expect(reader.bypassedIndexDamage.first?.description.hasPrefix(
            "The index of stream id 1 is damaged in its block from #\(previous): the key after it, #\(damaged) of stream id 3, does not match its block's checksum: the block may be one of this stream's, its stream id damaged.") == true,
            "\(reader.bypassedIndexDamage)")
        #expect(try reader.sequences(stream: "b", kinds: [.mutation]).count == 800 * 80)
    }

    @Test("a writer raises a log of format version 7 to 8, sealing every block with its key as it opens it; a block that overlaps its neighbour or is out of order is left to be read round",
          arguments: [false, true])
    func raisedToVersion8(renaming: Bool) throws {
        let path = try makeLog(rounds: 1_500)
        try sealedAsVersion7(path)
        let streamBlocks: [(first: UInt64, size: Int)] = try #require(try blocks(path)[1])
        // Moved up by 4, the block's items overlap the next block's: one of the two keys is damaged, and neither is
        // sealed as sound. A stream id changed in place leaves its key out of order with the next.
        let (moved, next) = (streamBlocks[2].first, streamBlocks[3].first)
        try moveIndexBlock(path, stream: 1, from: moved, to: moved + 4)
        let snapshots = Set(try EventLog.openReadOnly(at: path).snapshotSequences(stream: "a"))
        let (renamed, after) = try #require(zip(streamBlocks.dropFirst(5), streamBlocks.dropFirst(6)).first { !snapshots.contains($0.0.first) })
        if renaming { try changeStreamIDInPlace(path, stream: 1, first: renamed.first, to: 3) }
        let truth = try scanned(try EventLog.openReadOnly(at: path), "a")
        let entriesOfB = try scanned(try EventLog.openReadOnly(at: path), "b").count
        try EventLog.open(at: path).close()

        var refused: [String] = []
        for block in try rawRecords(path, LogLayout.streamIndexDatabase) {
            let key = try #require(block.key.withUnsafeBytes { KeyCoding.decodeStreamSequence($0) })
            do {
                _ = try block.value.withUnsafeBytes { try StreamIndex.decode($0, stream: key.stream, first: key.sequence, seal: .keyAndItems) { _ in true } }
            } catch {
                refused.append("\(key.stream):\(key.sequence)")
            }
        }
        #expect(refused == ["1:\(moved + 4)", "1:\(next)"] + (renaming ? ["3:\(renamed.first)", "1:\(after.first)"] : []))
        // A reader that opened the log at version 7 reads on as the writer seals its blocks: it takes either seal.
        // (A key out of order sends LMDB's search for another stream's astray: only a sealed key tells.)
        if !renaming {
            let environment = try readOnlyEnvironment(path)
            let index = StreamIndex(database: try environment.openDatabase(LogLayout.streamIndexDatabase), layout: .blocks, seal: .itemsOrKeyAndItems)
            var listed = 0
            _ = try environment.read { txn in try index.forEach(txn, stream: 2) { _ in listed += 1; return true } }
            #expect(listed == entriesOfB)
        }
        let log = try EventLog.openReadOnly(at: path)
        #expect(try log.metadata().formatVersion == 8)
        try expectReadsAgree(log, truth: truth, around: [moved, next])
        #expect(Set(log.bypassedIndexDamage.map(\.description)).count == 1, "the first damage of the stream is kept")
    }

    @Test("a last block key moved to the largest numbers is gone round, its stretches checked without overflow")
    func keyMovedToTheEnd() throws {
        let path = try makeLog(rounds: 1_500)
        try sealedAsVersion7(path)
        let last = try #require(try blocks(path)[1]?.last).first
        try moveIndexBlock(path, stream: 1, from: last, to: .max - 4)
        let log = try EventLog.openReadOnly(at: path)
        let truth = try scanned(log, "a")
        #expect(try log.statistics(stream: "a").entries == truth.count)
        #expect(try log.highestSequence(stream: "a") == truth.keys.max())
        #expect(try log.readEntries(EntryQuery(from: last - 10, stream: "a")).map(\.sequence) == truth.keys.filter { $0 >= last - 10 }.sorted())
        #expect(try log.firstOfLatest(3, stream: "a") == truth.keys.sorted().suffix(3).first)
        #expect(log.bypassedIndexDamage.count == 1)
        // A range at the end of the numbers, over a sound index too: checked, not overflowing.
        #expect(try log.lastSequence(stream: "b", atOrBefore: .max, after: .max - 5) == nil)
        #expect(try log.lastSequence(stream: "a", atOrBefore: .max, after: .max - 5) == nil)
    }

    /// Reads of stream `a` as time travel, replay, `log` and `info` make them, across and around `points` (where its
    /// index is damaged): each must give what `truth`, a scan of every entry, says.
    func expectReadsAgree(_ log: EventLog, truth: [UInt64: EntryKind], around points: [UInt64]) throws {
        let all = truth.keys.sorted()
        func numbers(_ kinds: Set<EntryKind>, _ range: ClosedRange<UInt64>) -> [UInt64] {
            all.filter { range.contains($0) && kinds.contains(truth[$0]!) }
        }
        let every = Set(EntryKind.allCases)
        #expect(try log.readEntries(EntryQuery(stream: "a")).map(\.sequence) == all)
        #expect(try log.sequences(stream: "a", kinds: [.mutation]) == numbers([.mutation], 0...UInt64.max))
        let statistics = try log.statistics(stream: "a")
        #expect(statistics.entries == all.count && statistics.first == all.first && statistics.last == all.last)
        #expect(statistics.kinds[.action] == numbers([.action], 0...UInt64.max).count)
        for point in points {
            #expect(try log.sequences(stream: "a", kinds: [.action], through: point + 2) == numbers([.action], 0...point + 2))
            #expect(try log.readEntries(EntryQuery(from: point, through: point + 30, stream: "a", kinds: [.mutation])).map(\.sequence)
                    == numbers([.mutation], point...point + 30))
            #expect(try log.readEntries(EntryQuery(through: point + 2, stream: "a")).map(\.sequence) == numbers(every, 0...point + 2))
            var seen: [UInt64] = []
            try log.forEachEntry(EntryQuery(from: point - 40, through: point + 5, stream: "a")) { seen.append($0.sequence) }
            #expect(seen == numbers(every, point - 40...point + 5))
            #expect(try log.readEntries(EntryQuery(from: point - 7, limit: 20, stream: "a")).map(\.sequence)
                    == Array(numbers(every, point - 7...UInt64.max).prefix(20)))
            // Reads that start well inside the block, as a state rebuilt from a snapshot there does.
            #expect(try log.readEntries(EntryQuery(from: point + 100, through: point + 200, stream: "a", kinds: [.mutation])).map(\.sequence)
                    == numbers([.mutation], point + 100...point + 200))
            var inside: [UInt64] = []
            try log.forEachEntry(EntryQuery(from: point + 100, through: point + 200, stream: "a", kinds: [.mutation])) { inside.append($0.sequence) }
            #expect(inside == numbers([.mutation], point + 100...point + 200))
            for count in [1, 5, 700] {
                #expect(try log.firstOfLatest(count, stream: "a", atOrBefore: point + 3) == numbers(every, 0...point + 3).suffix(count).first)
            }
        }
        if let middle = points.first {
            #expect(try log.readEntries(EntryQuery(from: middle / 2, through: (points.last ?? middle) - 10, stream: "a")).map(\.sequence)
                    == numbers(every, middle / 2...(points.last ?? middle) - 10))
        }
        try expectLastSequencesAgree(log, stream: "a", truth: truth, at: points.flatMap { [$0 - 1, $0, $0 + 1, $0 + 400] })
    }

    /// Flips a byte in the middle of stream `a`'s index block from `first`, so that its checksum fails.
    func damageBlock(_ path: String, from first: UInt64) throws {
        let environment = try Environment(path: path)
        let index = try environment.openDatabase("stream-index")
        try environment.write { txn in
            var bytes = Array(try #require(try txn.get(index, key: KeyCoding.streamSequence(1, first))))
            bytes[bytes.count / 2] ^= 0x40
            try txn.put(index, key: KeyCoding.streamSequence(1, first), value: bytes)
        }
    }

    @Test("a retention step that meets a damaged block undoes all it did, and the log goes on")
    func retentionUndone() throws {
        let path = try makeLog(rounds: 1_500)
        let damaged = try #require(try blocks(path)[1])[2].first
        try damageBlock(path, from: damaged)
        let stored = try scanned(try EventLog.openReadOnly(at: path), "a").keys.sorted()
        var configuration = EventLogConfiguration()
        configuration.retention = RetentionPolicy(maxEntries: 1_000)
        let log = try EventLog.open(at: path, configuration: configuration)
        let b = try log.openStream(named: "b", reactorType: "B", schemaFingerprint: "v1", initialState: 0)
        for round in 0..<100 { try b.append(.mutation, round, caseName: "set") }
        try log.flush()
        try log.close()
        // Steps that stopped short of the damaged block removed `a`'s oldest entries up to a snapshot; the step that
        // reached it kept nothing of what it did (with it, the entries of the blocks before it were gone, unindexed).
        // How far the steps before it got depends on how the appends were batched: maybe none ran, and all is kept.
        let reader = try EventLog.openReadOnly(at: path)
        let base = try reader.snapshotSequences(stream: "a").first { $0 < damaged } ?? 0
        let kept = try scanned(reader, "a").keys.sorted()
        #expect(base < damaged)
        #expect(kept == stored || kept == stored.filter { $0 > base }, "kept from #\(kept.first ?? 0), the first snapshot is #\(base)")
        #expect((kept.first ?? 0) < damaged, "nothing of the damaged stretch is removed")
        #expect(try reader.sequences(stream: "b", kinds: [.mutation]).count == 1_600, "every append was kept")
        let problems = try reader.verify().problems.filter { $0.severity == .error }
        #expect(problems.allSatisfy { $0.message.contains("damaged") || $0.message.contains("index lists") }, "\(problems)")
    }

    @Test("a writer converts a version-1 index to blocks in one transaction: same items, call sites kept")
    func conversion() throws {
        let path = try scratch.fixture("version1.reactorlog")
        let (sequences, mutations, sites) = try {
            let old = try EventLog.openReadOnly(at: path)
            return (
                try old.sequences(stream: "search", kinds: Set(EntryKind.allCases)), try old.sequences(stream: "search", kinds: [.mutation]),
                try old.callSites(stream: "search"))
        }()
        #expect(sites.count == 20)

        try EventLog.open(at: path).close()
        let names = try readOnlyEnvironment(path).databaseNames()
        #expect(names.contains("stream-index") && !names.contains("stream-entries"), "\(names)")
        let converted = try EventLog.openReadOnly(at: path)
        #expect(try converted.sequences(stream: "search", kinds: Set(EntryKind.allCases)) == sequences)
        #expect(try converted.sequences(stream: "search", kinds: [.mutation]) == mutations)
        #expect(try converted.callSites(stream: "search") == sites)
        #expect(try converted.verify().isHealthy)
    }
}

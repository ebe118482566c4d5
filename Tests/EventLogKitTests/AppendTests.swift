import EventLogKit
import Foundation
import TestSupport
import Synchronization
import Testing

@Suite("Appending")
struct AppendTests {
    let scratch = ScratchDirectory()

    @Test("the public append that encodes on the writer thread writes the closure's case name and bytes; a closure that throws keeps its number as unencodable")
    func encodedOnTheWriter() throws {
        struct Refused: Error {}
        let log = try scratch.openLog()
        let stream = try log.counterStream()
        let appending = UInt(pthread_self()), encoding = Mutex<UInt?>(nil)
        // The payload is in the log's codec, as `encodeNamingCase` makes it.
        let action = try stream.append(.action, callSite: ("Shop/Cart.swift", 12), encoding: {
            encoding.withLock { $0 = UInt(pthread_self()) }
            let (payload, caseName) = try log.encodeNamingCase(["buy": ["item": "tea"]])
            return (caseName ?? "buy", payload)
        })
        let failed = try stream.append(.mutation, cause: action, encoding: { throw Refused() })
        let after = try stream.append(.mutation, cause: action, encoding: { ("add", try log.encode(2)) })
        try log.flush()
        let entries = try log.readEntries(EntryQuery(from: action))
        #expect(entries.map(\.sequence) == [action, failed, after])
        #expect(entries.map(\.caseName) == ["buy", "unencodable", "add"])
        #expect(try entries.map { try $0.codec.json($0.payload).map { String(decoding: $0, as: UTF8.self) } } == [#"{"buy":{"item":"tea"}}"#, nil, "2"])
        #expect(entries.map(\.codec) == [log.configuration.codec.id, .none, log.configuration.codec.id])
        #expect(entries.map(\.cause) == [nil, action, action])
        #expect(try log.callSite(at: action) == "Shop/Cart.swift:12")
        #expect(encoding.withLock { $0 } != appending, "the closure ran on the writer thread, not the appending one")
        #expect(try log.verify().isHealthy)
    }

    @Test("a registered encoder encodes every entry queued before its stream closed, then the writer lets it go")
    func registeredEncoderLifetime() throws {
        let log = try scratch.openLog()
        let stream = try log.counterStream()
        weak var released: CountingEncoder?
        let firstEncode = DispatchSemaphore(value: 0), mayGoOn = DispatchSemaphore(value: 0)
        do {
            let encoder = CountingEncoder(log: log) { calls in
                // The writer thread waits inside its first encode, so the rest is queued and the stream closed
                // while entries that name the encoder are still waiting to be encoded.
                guard calls == 1 else { return }
                firstEncode.signal()
                mayGoOn.wait()
            }
            released = encoder
            let id = stream.register(encoder)
            try stream.append(.mutation, 0, encoder: id)
            firstEncode.wait()
            for value in 1..<100 { try stream.append(.mutation, value, encoder: id) }
            try stream.close()
        }
        #expect(released != nil, "queued entries still name the encoder")
        mayGoOn.signal()
        try log.flush()
        let mutations = try log.readEntries(EntryQuery(kinds: [.mutation]))
        #expect(mutations.count == 100)
        #expect(mutations.allSatisfy { $0.caseName == "counted" }, "no entry lost its encoder: none is unencodable")
        #expect(try mutations.map { try log.configuration.codec.decode(Int.self, from: $0.payload) } == Array(0..<100))
        #expect(released == nil, "once they are committed, the writer holds the closed stream's encoder no more")
    }

    @Test("an encoder that names no entry is let go once its stream's close is committed, also when registered during a commit")
    func unusedEncoderLifetime() throws {
        let log = try scratch.openLog()
        let busy = try log.counterStream("busy")
        try log.flush()
        weak var idle: CountingEncoder?
        do {
            let quiet = try log.counterStream("quiet")
            try log.flush()
            let encoder = CountingEncoder(log: log) { _ in }
            idle = encoder
            _ = quiet.register(encoder)
            try quiet.close()
        }
        try log.flush()
        #expect(idle == nil, "the stream's close is committed: its encoder is gone")
        weak var late: CountingEncoder?
        let firstEncode = DispatchSemaphore(value: 0), mayGoOn = DispatchSemaphore(value: 0)
        let blocking = CountingEncoder(log: log) { calls in
            guard calls == 1 else { return }
            firstEncode.signal()
            mayGoOn.wait()
        }
        try busy.append(.mutation, 0, encoder: busy.register(blocking))
        firstEncode.wait()
        do {
            // Registered and let go while the writer thread is inside a commit.
            let other = try log.counterStream("other")
            let encoder = CountingEncoder(log: log) { _ in }
            late = encoder
            _ = other.register(encoder)
            try other.close()
        }
        mayGoOn.signal()
        try log.flush()
        #expect(late == nil, "once the commit under way is done, the writer holds the unused encoder no more")
    }

    @Test("one commit whose entries alternate between streams and come back to each indexes every stream's entries, in order")
    func oneCommitAlternatingBetweenStreams() async throws {
        // An hour's commit interval holds the writer back until the flush: the appends are one commit, whose index
        // items come in runs of one stream that the writer gathers by stream.
        let log = try scratch.openLog { $0.commitInterval = .seconds(3_600) }
        let streams = try (0..<3).map { try log.counterStream("session \($0)") }
        try await log.flush()
        let pattern = [0, 0, 1, 2, 2, 2, 1, 0, 2]
        var expected: [[UInt64]] = [[], [], []]
        for i in 0..<450 {
            let stream = pattern[i % pattern.count]
            expected[stream].append(try streams[stream].append(.mutation("add", i)))
        }
        try await log.flush()
        for (index, sequences) in expected.enumerated() {
            let read = try log.readEntries(EntryQuery(stream: "session \(index)", kinds: [.mutation])).map(\.sequence)
            #expect(read == sequences)
        }
        #expect(try log.verify().isHealthy)
        try log.close()
    }

    @Test("entries read back with every header field, sequence numbers from 1 without gaps")
    func roundTrip() throws {
        let log = try scratch.openLog()
        let stream = try log.counterStream()
        let before = Int64(Date().timeIntervalSince1970 * 1e9)
        let action = try stream.append(.action("increase"))
        let mutation = try stream.append(.mutation("increaseValue", 1, cause: action))
        try log.flush()
        let entries = try log.readEntries()
        #expect(entries.map(\.sequence) == [1, 2, 3])
        #expect(entries.map(\.kind) == [.streamOpened, .action, .mutation])
        let read = entries[2]
        #expect(read.sequence == mutation)
        #expect(read.stream == "counter")
        #expect(read.cause == action)
        #expect(read.caseName == "increaseValue")
        #expect(read.codec == .json)
        #expect(String(decoding: read.payload, as: UTF8.self) == "{\"increaseValue\":{\"_0\":1}}")
        #expect(read.timestamp >= before)
        #expect(entries[1].cause == nil)
    }

    @Test("typed payloads are encoded with the log's codec and decode back")
    func typedPayloads() throws {
        enum Mutation: Codable, Equatable { case setQuery(String), setLoading(Bool) }
        let log = try scratch.openLog()
        let stream = try log.counterStream()
        let sequence = try stream.append(.mutation, Mutation.setQuery("swift"), caseName: "setQuery")
        try log.flush()
        let entry = try #require(try log.entry(at: sequence))
        #expect(try log.decode(Mutation.self, from: entry) == .setQuery("swift"))
        let wrongType = #expect(throws: EventLogError.self) { try log.decode(Int.self, from: entry) }
        #expect(wrongType?.description.contains("Entry #\(sequence)") == true)
    }

    @Test("the JSON codec writes equal values as equal bytes, keys sorted")
    func deterministicJSON() throws {
        struct State: Codable { var zebra = 1, apple = 2, mango = [3] }
        let codec = JSONLogCodec()
        let encodings = try (0..<20).map { _ in try codec.encode(State()) }
        #expect(Set(encodings).count == 1)
        #expect(String(decoding: encodings[0], as: UTF8.self) == "{\"apple\":2,\"mango\":[3],\"zebra\":1}")
    }

    @Test("the sequence continues after reopening, and resuming a stream is recorded")
    func reopenContinues() throws {
        do {
            let log = try scratch.openLog()
            let stream = try log.counterStream()
            #expect(!stream.wasResumed)
            #expect(stream.markerSequence == 1)
            try stream.append(.action("a"))
            try log.close()
        }
        let log = try scratch.openLog()
        let stream = try log.counterStream()
        #expect(stream.wasResumed)
        #expect(stream.markerSequence == 3, "the streamResumed marker's number")
        let next = try stream.append(.action("b"))
        try log.flush()
        #expect(next == 4)
        #expect(try log.allSequences() == [1, 2, 3, 4])
        #expect(try log.readEntries().map(\.kind) == [.streamOpened, .action, .streamResumed, .action])
    }

    @Test("a batch gets consecutive sequence numbers even while other threads append")
    func batchesAreContiguous() async throws {
        let log = try scratch.openLog()
        let a = try log.counterStream("a"), b = try log.counterStream("b")
        let ranges = try await withThrowingTaskGroup(of: [ClosedRange<UInt64>].self) { group in
            for stream in [a, b] {
                group.addTask {
                    try (0..<200).map { i in try stream.append(batch: (0...(i % 5)).map { _ in .mutation("m") }) }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        try await log.flush()
        let entries = try log.readEntries()
        for range in ranges {
            let streams = Set(entries.filter { range.contains($0.sequence) }.map(\.stream))
            #expect(streams.count == 1)
        }
    }

    @Test("many threads appending at once lose nothing and get distinct, gapless numbers")
    func concurrentAppends() async throws {
        let log = try scratch.openLog()
        let stream = try log.counterStream()
        let sequences = try await withThrowingTaskGroup(of: [UInt64].self) { group in
            for worker in 0..<8 {
                group.addTask { try (0..<500).map { _ in try stream.append(.mutation("w", worker)) } }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        try await log.flush()
        #expect(Set(sequences).count == 4000)
        #expect(try log.allSequences() == Array(1...4001))
    }

    @Test("a tiny queue applies backpressure without losing or reordering entries")
    func backpressure() throws {
        let log = try scratch.openLog { $0.queueCapacity = 2; $0.queueByteCapacity = 64 }
        let stream = try log.counterStream()
        for i in 0..<5000 { try stream.append(.mutation("m", i)) }
        try log.flush()
        let payloads = try log.readEntries(EntryQuery(kinds: [.mutation])).map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(payloads == (0..<5000).map { "{\"m\":{\"_0\":\($0)}}" })
    }

    @Test("a log created with a tiny map grows it and takes a million entries")
    func mapGrowth() throws {
        let log = try scratch.openLog { $0.initialMapSize = 64 << 10; $0.durability = .noSync }
        let stream = try log.counterStream()
        let payload = EntryDraft(kind: .mutation, caseName: "setRepos", payload: Data(("\"" + String(repeating: "a", count: 58) + "\"").utf8))
        for _ in 0..<1_000_000 { try stream.append(payload) }
        try log.flush()
        #expect(try log.highestSequence() == 1_000_001)
        #expect(log.sizeOnDisk > 64 << 20)
        #expect(try log.verify().isHealthy)
    }

    @Test("in sync durability an append returns only once its entry is committed")
    func syncAppendIsCommitted() throws {
        let log = try scratch.openLog { $0.durability = .sync }
        let stream = try log.counterStream()
        for i in 0..<20 {
            let sequence = try stream.append(.mutation("m", i))
            #expect(try log.entry(at: sequence) != nil)
        }
    }

    @Test("flush commits everything appended, in every durability", arguments: Durability.allCases)
    func flushCommits(durability: Durability) async throws {
        let log = try scratch.openLog { $0.durability = durability }
        let stream = try log.counterStream()
        var last: UInt64 = 0
        for i in 0..<1000 { last = try stream.append(.mutation("m", i)) }
        try await log.flush()
        #expect(try log.entry(at: last) != nil)
        #expect(try log.metadata().durability == durability)
    }

    @Test("a write failure stops the log with a clear error; what was committed stays intact")
    func writeFailure() throws {
        let failures = FailureRecorder()
        let path = scratch.file("full.reactorlog")
        var committed: UInt64 = 0
        do {
            var configuration = EventLogConfiguration()
            configuration.initialMapSize = 64 << 10
            configuration.maxMapSize = 256 << 10
            configuration.onWriteFailure = { failures.record($0) }
            let log = try EventLog.open(at: path, configuration: configuration)
            let stream = try log.counterStream()
            try stream.append(.action("first"))
            try log.flush()
            committed = try log.highestSequence()
            let big = EntryDraft(kind: .mutation, caseName: "big", payload: Data(("\"" + String(repeating: "b", count: 4094) + "\"").utf8))
            let error = #expect(throws: EventLogError.self) {
                for _ in 0..<1000 { try stream.append(big) }
                try log.flush()
            }
            guard case .writeFailed(_, let lastCommitted, let unwritten, let underlying) = error else {
                Issue.record("expected writeFailed, got \(String(describing: error))")
                return
            }
            #expect(lastCommitted >= committed)
            #expect(unwritten > 0)
            #expect(underlying.contains("MDB_MAP_FULL") || underlying.contains("map"))
            #expect(error?.description.contains("Entries up to #\(lastCommitted) are committed and intact; \(unwritten) queued entries wait to be written, and appends are refused until writing resumes.") == true)
            #expect(throws: EventLogError.self) { try stream.append(.action("after")) }
            #expect(log.writeFailure != nil)
            committed = lastCommitted
        }
        #expect(failures.count == 1)
        let reopened = try EventLog.openReadOnly(at: path)
        #expect(try reopened.highestSequence() == committed)
        #expect(try reopened.verify().isHealthy)
    }

    @Test("a stream can be open through one handle at a time; closing it refuses further appends")
    func streamHandles() throws {
        let log = try scratch.openLog()
        let stream = try log.counterStream()
        #expect(throws: EventLogError.streamInUse(name: "counter")) { try log.counterStream() }
        try stream.close(finalState: Data("5".utf8))
        #expect(throws: EventLogError.self) { try stream.append(.action("late")) }
        let again = try log.counterStream()
        #expect(again.wasResumed)
    }

    @Test("invalid stream names and oversized case names are refused with a sentence")
    func invalidArguments() throws {
        let log = try scratch.openLog()
        #expect(throws: EventLogError.self) { try log.counterStream("") }
        let stream = try log.counterStream()
        let error = #expect(throws: EventLogError.self) {
            try stream.append(EntryDraft(kind: .action, caseName: String(repeating: "x", count: 70_000), payload: Data()))
        }
        #expect(error?.description.contains("case name") == true)
    }
}

/// Collects write failures reported from the writer thread.
final class FailureRecorder: Sendable {
    private let failures = Mutex<[EventLogError]>([])
    func record(_ error: EventLogError) { failures.withLock { $0.append(error) } }
    var count: Int { failures.withLock { $0.count } }
}

/// An encoder for deferred entries of `Int`s that counts its calls and tells `onCall` of each, on the writer thread.
private final class CountingEncoder: EntryEncoder {
    private let log: EventLog
    private let calls = Mutex(0)
    private let onCall: @Sendable (Int) -> Void

    init(log: EventLog, onCall: @escaping @Sendable (Int) -> Void) {
        self.log = log
        self.onCall = onCall
    }

    func encode(_ value: any Sendable, kind: EntryKind, into buffer: inout ByteBuffer) throws -> String {
        onCall(calls.withLock { $0 += 1; return $0 })
        buffer.append(contentsOf: try log.encodeBytesNamingCase(value as! Int).payload)
        return "counted"
    }
}

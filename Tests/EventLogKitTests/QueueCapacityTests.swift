@testable import EventLogKit
import Foundation
import TestSupport
import Testing

/// The writer's queue holds more entries while commits write to many streams (`LogWriter.entryCapacity(base:streamsWritten:)`):
/// each commit rewrites a page of the index for every stream it touches, so a server's many sessions need larger
/// commits to keep up.
@Suite("The queue's capacity", .timeLimit(.minutes(3)))
struct QueueCapacityTests {
    let scratch = ScratchDirectory()

    @Test("after a commit to many streams, 64 entries a stream may wait, up to four times the configured capacity; after one to few, the configured capacity")
    func followsTheStreamsOfTheLastCommit() async throws {
        // An hour's commit interval holds the writer back until each flush, so each flush's appends are one commit.
        let log = try scratch.openLog { $0.queueCapacity = 256; $0.commitInterval = .seconds(3_600) }
        let streams = try (0..<20).map { try log.counterStream("session \($0)") }
        try await log.flush()
        let writer = try #require(log.writer)
        func commit(toFirst count: Int) async throws -> Int {
            for stream in streams.prefix(count) { try stream.append(.mutation("add")) }
            try await log.flush()
            return writer.currentEntryCapacity
        }
        #expect(try await commit(toFirst: 1) == 256)
        #expect(try await commit(toFirst: 5) == 5 * 64)
        #expect(try await commit(toFirst: 20) == 4 * 256)
        #expect(try await commit(toFirst: 2) == 256)
        try log.close()
    }

    @Test("appends to many streams through a tiny queue, whose capacity changes from commit to commit, lose and reorder nothing")
    func manyStreamsThroughATinyQueue() throws {
        let log = try scratch.openLog { $0.queueCapacity = 2; $0.queueByteCapacity = 1 << 20 }
        let streams = try (0..<50).map { try log.counterStream("session \($0)") }
        for i in 0..<5_000 {
            // Runs of one stream between rounds of all fifty, so that commits write to few streams and to many.
            let stream = (i / 500) % 2 == 0 ? streams[0] : streams[i % 50]
            try stream.append(.mutation("add", i))
        }
        try log.flush()
        let payloads = try log.readEntries(EntryQuery(kinds: [.mutation])).map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(payloads == (0..<5_000).map { "{\"add\":{\"_0\":\($0)}}" })
        let first = try log.readEntries(EntryQuery(stream: "session 0", kinds: [.mutation])).count
        #expect(first == 2_500 + 50)
        #expect(try log.verify().isHealthy)
    }

    @Test("the writer keeps a payload buffer that holds the queue's entries at 64 bytes each twice over, and 1 MiB at least")
    func keptPayloadBuffer() {
        #expect(EncodedBatch.largestKeptBuffer(entries: 100) == 1 << 20)
        #expect(EncodedBatch.largestKeptBuffer(entries: 16_384) == 2 << 20)
        #expect(EncodedBatch.largestKeptBuffer(entries: 4 * 16_384) == 8 << 20)
    }

    /// The sender writes a queue item for every entry and the writer reads it and an encoded entry: their size is
    /// memory traffic on both threads (docs/PERFORMANCE.md, session 49). A case or field that makes them larger should
    /// be a choice, not a surprise.
    @Test("a queued item takes 96 bytes and an encoded entry 96: a new stream's descriptor is boxed, a call site is two fields")
    func queuedEntrySizes() {
        #expect(MemoryLayout<WriteItem>.stride == 96)
        #expect(MemoryLayout<DeferredEntry>.size == 88 && MemoryLayout<EntryRecord.Pending>.size == 88)
        #expect(MemoryLayout<EntryRecord.Encoded>.stride == 96)
    }
}

@testable import BinaryPayloadKit
import Testing

/// The writer's byte buffer: what it holds is what was appended, across growth from nothing, truncation and
/// zero-filled headers.
@Suite("Byte buffer")
struct ByteBufferTests {
    @Test("appends of every size, from an empty buffer that allocated nothing, hold what an array holds", arguments: [0, 1, 16])
    func appendsAcrossGrowth(initialCapacity: Int) {
        var buffer = ByteBuffer(capacity: initialCapacity)
        var expected: [UInt8] = []
        #expect(buffer.count == 0 && buffer.array.isEmpty)
        for size in [0, 1, 3, 17, 64, 200, 1, 5000] {
            let run = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ size) }
            run.withUnsafeBytes { buffer.append($0) }
            expected += run
            buffer.append(UInt8(size & 0xFF))
            expected.append(UInt8(size & 0xFF))
        }
        #expect(buffer.array == expected)
        #expect(buffer.capacity >= buffer.count)
    }

    @Test("a truncated buffer appends after the cut, and zeros go where a header is written later")
    func truncateAndZeros() {
        var buffer = ByteBuffer(capacity: 0)
        buffer.append(contentsOf: [1, 2, 3, 4])
        buffer.truncate(to: 2)
        buffer.appendZeros(3)
        buffer.withUnsafeMutableBytes { $0[3] = 9 }
        buffer.append(5)
        #expect(buffer.array == [1, 2, 0, 9, 0, 5])
        buffer.truncate(to: 0)
        #expect(buffer.count == 0 && buffer.array.isEmpty)
    }
}

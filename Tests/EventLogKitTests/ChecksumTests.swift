@testable import EventLogKit
import Testing

@Suite("CRC-32C")
struct ChecksumTests {
    @Test("matches the standard check value and known vectors")
    func knownVectors() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum([]) == 0)
    }

    @Test("the eight-byte path agrees with the byte-at-a-time path at every length and offset")
    func slicingAgreesWithBytewise() {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        func bytewise(_ data: ArraySlice<UInt8>) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in data {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            }
            return ~crc
        }
        for start in 0..<9 {
            for end in stride(from: start, through: bytes.count, by: 7) {
                #expect(CRC32C.checksum(Array(bytes[start..<end])) == bytewise(bytes[start..<end]))
            }
        }
    }
}

@testable import EventLogKit
import Testing

@Suite("CRC-32C")
struct ChecksumTests {
    /// Both ways of computing it: the processor's instruction (where it has one) and the tables.
    static let paths: [(String, @Sendable (UnsafeRawBufferPointer) -> UInt32)] = [
        ("chosen", { CRC32C.checksum($0) }), ("software", { CRC32C.checksumInSoftware($0) }),
    ]

    @Test("matches the standard check value and known vectors, in hardware and in software")
    func knownVectors() {
        for (name, checksum) in Self.paths {
            func of(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBytes(checksum) }
            #expect(of(Array("123456789".utf8)) == 0xE306_9283, "\(name)")
            #expect(of([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA, "\(name)")
            #expect(of([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43, "\(name)")
            #expect(of([]) == 0, "\(name)")
        }
    }

    #if arch(x86_64)
    @Test("uses the processor's instruction on x86-64, which has had it since 2008")
    func hardwareOnX86() {
        #expect(CRC32C.inHardware)
    }
    #endif

    @Test("the eight-byte paths agree with the bit-at-a-time definition at every length and alignment")
    func fastPathsAgreeWithDefinition() {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        func bitwise(_ data: ArraySlice<UInt8>) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in data {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            }
            return ~crc
        }
        bytes.withUnsafeBytes { all in
            for (name, checksum) in Self.paths {
                // Starts 0…8 bytes into the array, so the eight-byte loads meet every alignment.
                for start in 0..<9 {
                    for end in stride(from: start, through: bytes.count, by: 7) {
                        let slice = UnsafeRawBufferPointer(rebasing: all[start..<end])
                        #expect(checksum(slice) == bitwise(bytes[start..<end]), "\(name), bytes \(start)..<\(end)")
                    }
                }
            }
        }
    }

    @Test("continued after the checksum of the bytes before, it is the checksum of both, in hardware and in software")
    func continued() {
        // How an index block's checksum covers its key (format version 8) without copying key and items together.
        let bytes = (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        let continuations: [(String, @Sendable (UnsafeRawBufferPointer, UInt32) -> UInt32)] = [
            ("chosen", { CRC32C.checksum($0, after: $1) }), ("software", { CRC32C.checksumInSoftware($0, after: $1) }),
        ]
        bytes.withUnsafeBytes { all in
            for (name, continuing) in continuations {
                for split in [0, 1, 12, 50, 99, 100] {
                    let head = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: all[..<split]))
                    #expect(continuing(UnsafeRawBufferPointer(rebasing: all[split...]), head) == CRC32C.checksum(all), "\(name), split at \(split)")
                }
            }
        }
    }
}

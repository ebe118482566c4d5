import CCRC32C

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of every record.
/// `CRC32C("123456789") == 0xE3069283`.
///
/// With the processor's instruction where it has one (SSE 4.2 on x86-64, the CRC extension on ARM64; the C
/// target `CCRC32C`), eight bytes an instruction: reading a block of entries checksums two kilobytes, which in
/// software was a fifth of reading its entries. Elsewhere, slicing-by-8: eight bytes per step through eight
/// 256-entry tables.
enum CRC32C {
    /// Whether ``checksum(_:)`` uses the processor's instruction.
    static let inHardware = ccrc32c_hardware_available() != 0

    static let polynomial: UInt32 = 0x82F6_3B78

    /// Eight consecutive 256-entry tables in one flat array: table `t` starts at `t * 256`.
    static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 {
                crc = (crc & 1) != 0 ? (crc >> 1) ^ polynomial : crc >> 1
            }
            tables[byte] = crc
        }
        for table in 1..<8 {
            for byte in 0..<256 {
                let previous = tables[(table - 1) * 256 + byte]
                tables[table * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The checksum of `bytes`; with `previous`, the checksum of some bytes before them, that of those bytes and
    /// then `bytes`: `checksum(b, after: checksum(a))` is the checksum of `a` followed by `b`.
    static func checksum(_ bytes: UnsafeRawBufferPointer, after previous: UInt32 = 0) -> UInt32 {
        guard inHardware else { return checksumInSoftware(bytes, after: previous) }
        guard let base = bytes.baseAddress else { return previous }
        return ~ccrc32c_update(~previous, base, bytes.count)
    }

    /// The checksum of `bytes` (after `previous`, as for ``checksum(_:after:)``), computed with the tables whatever
    /// the processor.
    static func checksumInSoftware(_ bytes: UnsafeRawBufferPointer, after previous: UInt32 = 0) -> UInt32 {
        guard var pointer = bytes.baseAddress else { return previous }
        var remaining = bytes.count
        var crc: UInt32 = ~previous
        tables.withUnsafeBufferPointer { t in
            while remaining >= 8 {
                let word = pointer.loadUnaligned(as: UInt64.self).littleEndian
                let low = UInt32(truncatingIfNeeded: word) ^ crc
                let high = UInt32(truncatingIfNeeded: word >> 32)
                crc = t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((low >> 16) & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
                    ^ t[3 * 256 + Int(high & 0xFF)] ^ t[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((high >> 16) & 0xFF)] ^ t[Int(high >> 24)]
                pointer += 8
                remaining -= 8
            }
            while remaining > 0 {
                let byte = pointer.load(as: UInt8.self)
                crc = t[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
                pointer += 1
                remaining -= 1
            }
        }
        return ~crc
    }

    /// The checksum of `bytes`.
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}

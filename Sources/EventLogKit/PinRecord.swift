import Foundation

/// The binary layout of a pin, stored under (first u64, last u64), both big-endian, in `pins`.
///
///     0  u32 CRC-32C of bytes 4..<end     16 u64 last sequence number kept
///     4  u32 reserved (0)                 24 i64 created at (ns since 1970, UTC)
///     8  u64 first sequence number kept   32 reason (UTF-8)
enum PinRecord {
    static let headerSize = 32

    static func key(_ range: ClosedRange<UInt64>) -> [UInt8] {
        withUnsafeBytes(of: (range.lowerBound.bigEndian, range.upperBound.bigEndian)) { Array($0) }
    }

    static func encode(_ pin: LogPin) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: headerSize + pin.reason.utf8.count)
        bytes.withUnsafeMutableBytes { buffer in
            let out = ByteWriter(bytes: buffer)
            out.u64(8, pin.range.lowerBound)
            out.u64(16, pin.range.upperBound)
            out.i64(24, pin.createdAt)
            out.copy(pin.reason, to: headerSize)
            out.sealChecksum()
        }
        return bytes
    }

    /// The pin a record describes, checked against its key; `nil` when it is damaged.
    static func decode(key: UnsafeRawBufferPointer, record bytes: UnsafeRawBufferPointer) -> LogPin? {
        let reader = ByteReader(bytes: bytes)
        guard reader.count >= headerSize, reader.checksumMatches, key.count == 16 else { return nil }
        let first = reader.u64(8), last = reader.u64(16)
        guard first <= last, Array(key) == Self.key(first...last), let reason = reader.string(headerSize..<reader.count) else { return nil }
        return LogPin(range: first...last, reason: reason, createdAt: reader.i64(24))
    }
}

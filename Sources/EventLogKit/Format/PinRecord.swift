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

    /// The pin a record describes, checked against its key; for a damaged record, a damaged pin
    /// (``LogPin/isDamaged``) whose window is every one the record may have meant: retention keeps it.
    static func decode(key: UnsafeRawBufferPointer, record bytes: UnsafeRawBufferPointer) -> LogPin {
        let reader = ByteReader(bytes: bytes)
        let sealed = reader.count >= headerSize && reader.checksumMatches
        let recorded = sealed ? bounds(reader.u64(8), reader.u64(16)) : nil
        let keyed = key.count == 16
            ? bounds(UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)), UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 8, as: UInt64.self))) : nil
        if let recorded, recorded == keyed, let reason = reader.string(headerSize..<reader.count) {
            return LogPin(range: recorded, reason: reason, createdAt: reader.i64(24))
        }
        // The key's bounds, and the record's when its checksum vouches for them; every number when neither reads.
        let windows = [recorded, keyed].compactMap { $0 }
        let window = (windows.map(\.lowerBound).min() ?? 1)...(windows.map(\.upperBound).max() ?? .max)
        return LogPin(damagedWindow: window)
    }

    private static func bounds(_ first: UInt64, _ last: UInt64) -> ClosedRange<UInt64>? {
        first <= last ? first...last : nil
    }
}

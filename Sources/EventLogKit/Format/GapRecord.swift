/// The binary layout of a gap, stored under (stream id u32, resumes-at u64), both big-endian, in `gaps`.
///
///     0  u32 CRC-32C of bytes 4..<24      8  u64 first removed sequence number
///     4  u32 stream id                    16 u64 resumes at: the snapshot replay restarts from
enum GapRecord {
    static let size = 24

    static func encode(_ gap: (stream: UInt32, removed: ClosedRange<UInt64>)) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes { buffer in
            let out = ByteWriter(bytes: buffer)
            out.u32(4, gap.stream)
            out.u64(8, gap.removed.lowerBound)
            out.u64(16, gap.removed.upperBound)
            out.sealChecksum()
        }
        return bytes
    }

    /// The gap a record describes, checked against its key; `nil` when it is damaged.
    static func decode(key: UnsafeRawBufferPointer, record bytes: UnsafeRawBufferPointer) -> (stream: UInt32, removed: ClosedRange<UInt64>)? {
        guard let gap = decode(bytes), let key = KeyCoding.decodeStreamSequence(key), key.stream == gap.stream, key.sequence == gap.removed.upperBound else {
            return nil
        }
        return gap
    }

    /// The key a sound record belongs under (its stream and the number it resumes at), read from its bytes alone:
    /// how a record under a key that does not read is placed; `nil` when the record is damaged too.
    static func key(of bytes: UnsafeRawBufferPointer) -> (stream: UInt32, sequence: UInt64)? {
        decode(bytes).map { ($0.stream, $0.removed.upperBound) }
    }

    /// The gap a record describes, its key aside (one a bad bit moved); `nil` when the record itself is damaged.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> (stream: UInt32, removed: ClosedRange<UInt64>)? {
        let reader = ByteReader(bytes: bytes)
        guard reader.count == size, reader.checksumMatches else { return nil }
        let stream = reader.u32(4), first = reader.u64(8), resumesAt = reader.u64(16)
        guard first >= 1, first <= resumesAt else { return nil }
        return (stream, first...resumesAt)
    }
}

/// The binary layout of a finished schema era (``SchemaHistory/Era``), stored under (stream id u32, through u64),
/// both big-endian, in `schemas`.
///
///     0  u32 CRC-32C of bytes 4..<end     8  u64 through: the era's last sequence number
///     4  u32 stream id                    16 the fingerprint of the types that wrote it (UTF-8)
enum SchemaEraRecord {
    static let headerSize = 16

    static func encode(stream: UInt32, era: SchemaHistory.Era) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: headerSize + era.fingerprint.utf8.count)
        bytes.withUnsafeMutableBytes { buffer in
            let out = ByteWriter(bytes: buffer)
            out.u32(4, stream)
            out.u64(8, era.through)
            out.copy(era.fingerprint, to: headerSize)
            out.sealChecksum()
        }
        return bytes
    }

    /// The era a record describes, checked against its key; `nil` when it is damaged.
    static func decode(key: UnsafeRawBufferPointer, record bytes: UnsafeRawBufferPointer) -> (stream: UInt32, era: SchemaHistory.Era)? {
        let reader = ByteReader(bytes: bytes)
        guard reader.count > headerSize, reader.checksumMatches, let key = KeyCoding.decodeStreamSequence(key),
              key.stream == reader.u32(4), key.sequence == reader.u64(8),
              let fingerprint = reader.string(headerSize..<reader.count)
        else { return nil }
        return (key.stream, SchemaHistory.Era(fingerprint: fingerprint, through: key.sequence))
    }
}

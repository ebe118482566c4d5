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
        guard let found = decode(bytes), let key = KeyCoding.decodeStreamSequence(key), key.stream == found.stream, key.sequence == found.era.through else {
            return nil
        }
        return found
    }

    /// The key a sound record belongs under (its stream and the era's last number), read from its bytes alone: how
    /// a record under a key that does not read is placed; `nil` when the record is damaged too.
    static func key(of bytes: UnsafeRawBufferPointer) -> (stream: UInt32, sequence: UInt64)? {
        decode(bytes).map { ($0.stream, $0.era.through) }
    }

    /// The era a record describes, its key aside (one a bad bit moved); `nil` when the record itself is damaged.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> (stream: UInt32, era: SchemaHistory.Era)? {
        let reader = ByteReader(bytes: bytes)
        guard reader.count > headerSize, reader.checksumMatches, let fingerprint = reader.string(headerSize..<reader.count) else { return nil }
        return (reader.u32(4), SchemaHistory.Era(fingerprint: fingerprint, through: reader.u64(8)))
    }

    /// The era the record stored under (`id`, `through`) stands for, and whether the record is damaged: intact, the
    /// era it holds; under a key a bad bit changed, the era its record holds, or `nil` when that is another
    /// stream's; itself damaged, an era through `through` written by types not known
    /// (``SchemaHistory/unknownFingerprint``).
    static func read(stream id: UInt32, through: UInt64, record bytes: UnsafeRawBufferPointer) -> (era: SchemaHistory.Era, isDamaged: Bool)? {
        let key = KeyCoding.streamSequence(id, through)
        if let found = key.withUnsafeBytes({ decode(key: $0, record: bytes) }) { return (found.era, false) }
        if let found = decode(bytes) { return found.stream == id ? (found.era, true) : nil }
        return (SchemaHistory.Era(fingerprint: SchemaHistory.unknownFingerprint, through: through), true)
    }
}

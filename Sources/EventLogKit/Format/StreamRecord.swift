import Foundation

/// The binary layout of a stream descriptor, stored under the stream id (u32, big-endian) in `streams`.
///
///     0  u32 CRC-32C of bytes 4..<end     16 u32 initial state length S
///     4  u8  record version (1)            20 u32 reserved (0)
///     5  u8  codec of the initial state    24 i64 created at (ns since 1970, UTC)
///     6  u16 name length N                 32 u64 sequence floor
///     8  u32 stream id                     40 name, reactor type, schema fingerprint (UTF-8),
///     12 u16 reactor type length R            then S bytes initial state
///     14 u16 schema fingerprint length F
enum StreamRecord {
    static let headerSize = 40
    static let version: UInt8 = 1

    /// The size of `info`'s record.
    static func size(_ info: StreamInfo) -> Int {
        headerSize + info.name.utf8.count + info.reactorType.utf8.count + info.schemaFingerprint.utf8.count + info.initialState.count
    }

    static func encode(_ info: StreamInfo) -> [UInt8] {
        let name = info.name.utf8.count, type = info.reactorType.utf8.count, schema = info.schemaFingerprint.utf8.count
        var bytes = [UInt8](repeating: 0, count: size(info))
        bytes.withUnsafeMutableBytes { buffer in
            let out = ByteWriter(bytes: buffer)
            out.u8(4, version)
            out.u8(5, info.initialStateCodec.rawValue)
            out.u16(6, UInt16(name))
            out.u32(8, info.id)
            out.u16(12, UInt16(type))
            out.u16(14, UInt16(schema))
            out.u32(16, UInt32(info.initialState.count))
            out.u32(20, 0)
            out.i64(24, info.createdAt)
            out.u64(32, info.sequenceFloor)
            out.copy(info.name, to: headerSize)
            out.copy(info.reactorType, to: headerSize + name)
            out.copy(info.schemaFingerprint, to: headerSize + name + type)
            out.copy(info.initialState, to: headerSize + name + type + schema)
            out.sealChecksum()
        }
        return bytes
    }

    /// The stream id a sound record holds, read from its bytes alone: how a record under a key that does not read is
    /// placed; `nil` when the record is damaged too.
    static func recordedID(_ bytes: UnsafeRawBufferPointer) -> UInt32? {
        let reader = ByteReader(bytes: bytes)
        guard reader.count >= headerSize, reader.checksumMatches else { return nil }
        return reader.u32(8)
    }

    static func decode(id: UInt32, record bytes: UnsafeRawBufferPointer) throws(EventLogError) -> StreamInfo {
        let reader = ByteReader(bytes: bytes)
        guard reader.count >= headerSize else { throw .corruptStream(id: id, reason: "the record is shorter than its header") }
        guard reader.checksumMatches else { throw .corruptStream(id: id, reason: "its checksum does not match its contents") }
        let name = Int(reader.u16(6)), type = Int(reader.u16(12)), schema = Int(reader.u16(14)), state = Int(reader.u32(16))
        guard headerSize + name + type + schema + state == reader.count else {
            throw .corruptStream(id: id, reason: "its lengths do not add up to its size")
        }
        guard reader.u32(8) == id else { throw .corruptStream(id: id, reason: "it records id \(reader.u32(8))") }
        let nameStart = headerSize, typeStart = nameStart + name, schemaStart = typeStart + type, stateStart = schemaStart + schema
        guard let nameText = reader.string(nameStart..<typeStart),
              let typeText = reader.string(typeStart..<schemaStart),
              let schemaText = reader.string(schemaStart..<stateStart)
        else { throw .corruptStream(id: id, reason: "a name is not valid UTF-8") }
        return StreamInfo(
            id: id, name: nameText, reactorType: typeText, schemaFingerprint: schemaText,
            createdAt: reader.i64(24), initialStateCodec: CodecID(rawValue: reader.u8(5)),
            initialState: reader.data(stateStart..<reader.count), sequenceFloor: reader.u64(32))
    }
}

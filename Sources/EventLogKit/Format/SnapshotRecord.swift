import Foundation

/// The binary layout of a snapshot record, stored under (stream id, sequence) in `snapshots`.
///
///     0  u32 CRC-32C of bytes 4..<end     12 u32 state length S
///     4  u8  codec                         16 u64 sequence
///     5  u8  reserved (0)                  24 i64 timestamp (ns since 1970, UTC)
///     6  u16 reserved (0)                  32 S bytes state
///     8  u32 stream id
enum SnapshotRecord {
    static let headerSize = 32

    static func size(stateBytes: Int) -> Int { headerSize + stateBytes }

    static func write(_ snapshot: Snapshot, into buffer: UnsafeMutableRawBufferPointer) {
        let out = ByteWriter(bytes: buffer)
        out.u8(4, snapshot.codec.rawValue)
        out.u8(5, 0)
        out.u16(6, 0)
        out.u32(8, snapshot.streamID)
        out.u32(12, UInt32(snapshot.state.count))
        out.u64(16, snapshot.sequence)
        out.i64(24, snapshot.timestamp)
        out.copy(snapshot.state, to: headerSize)
        out.sealChecksum()
    }

    /// The stream id and sequence number a record says it belongs to, when its checksum vouches for them; `nil` for
    /// a damaged record. A record found under another key than these has its key damaged.
    static func recordedPosition(_ bytes: UnsafeRawBufferPointer) -> (stream: UInt32, sequence: UInt64)? {
        let reader = ByteReader(bytes: bytes)
        guard headerProblem(reader) == nil else { return nil }
        return (reader.u32(8), reader.u64(16))
    }

    /// Why a record's header cannot be trusted, as a clause; `nil` when its size, checksum and length agree.
    private static func headerProblem(_ reader: ByteReader) -> String? {
        if reader.count < headerSize { return "the record is shorter than its header" }
        if !reader.checksumMatches { return "its checksum does not match its contents" }
        if headerSize + Int(reader.u32(12)) != reader.count { return "its length does not match its size" }
        return nil
    }

    static func decode(
        streamID: UInt32, sequence: UInt64, streamName: String, record bytes: UnsafeRawBufferPointer
    ) throws(EventLogError) -> Snapshot {
        let reader = ByteReader(bytes: bytes)
        func corrupt(_ reason: String) -> EventLogError {
            .corruptSnapshot(stream: streamName, sequence: sequence, reason: reason)
        }
        if let problem = headerProblem(reader) { throw corrupt(problem) }
        guard reader.u32(8) == streamID, reader.u64(16) == sequence else {
            throw corrupt("it records stream \(reader.u32(8)) at #\(reader.u64(16)), not where it is stored")
        }
        return Snapshot(
            streamID: streamID, sequence: sequence, timestamp: reader.i64(24),
            codec: CodecID(rawValue: reader.u8(4)), state: reader.data(headerSize..<reader.count))
    }
}

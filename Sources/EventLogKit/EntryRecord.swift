import Foundation

/// The binary layout of an entry record, the value stored under its sequence number in `entries`.
///
/// All integers little-endian. Specified in docs/FORMAT.md:
///
///     0  u32 CRC-32C of bytes 4..<end     16 u64 sequence
///     4  u8  kind                          24 i64 timestamp (ns since 1970, UTC)
///     5  u8  codec                         32 u64 cause (0 = none)
///     6  u16 case name length N            40 N bytes case name (UTF-8)
///     8  u32 stream id                     40+N P bytes payload
///     12 u32 payload length P
enum EntryRecord {
    static let headerSize = 40
    static let maxCaseNameLength = Int(UInt16.max)

    /// An entry on its way to the writer thread, sequence number and time already assigned.
    struct Pending: Sendable {
        let sequence: UInt64
        let streamID: UInt32
        let kind: EntryKind
        let timestamp: Int64
        let cause: UInt64
        let caseName: String
        let codec: CodecID
        let payload: Data
        /// Where the action was sent from, kept in the stream index; `nil` for none.
        var callSite: Site? = nil

        var size: Int { EntryRecord.headerSize + caseName.utf8.count + payload.count }

        /// Writes the record into `buffer`, which is exactly ``size`` bytes, checksum included.
        func write(into buffer: UnsafeMutableRawBufferPointer) {
            let out = ByteWriter(bytes: buffer)
            let caseLength = caseName.utf8.count
            out.u8(4, kind.rawValue)
            out.u8(5, codec.rawValue)
            out.u16(6, UInt16(caseLength))
            out.u32(8, streamID)
            out.u32(12, UInt32(payload.count))
            out.u64(16, sequence)
            out.i64(24, timestamp)
            out.u64(32, cause)
            out.copy(caseName, to: headerSize)
            out.copy(payload, to: headerSize + caseLength)
            out.sealChecksum()
        }
    }

    /// An action's call site on its way to the writer: the compiler's file and line (formatted, once per site, on
    /// the writer thread), or a text from a draft (an import).
    enum Site: Sendable {
        case source(fileID: StaticString, line: UInt)
        case text(String)

        /// `Module/File.swift:42`.
        var text: String {
            switch self {
            case .source(let fileID, let line): "\(fileID):\(line)"
            case .text(let text): text
            }
        }
    }

    /// The header of a record, checked but with payload and case name not yet copied.
    struct Header {
        let kind: EntryKind
        let codec: CodecID
        let streamID: UInt32
        let sequence: UInt64
        let timestamp: Int64
        let cause: UInt64
        let caseRange: Range<Int>
        let payloadRange: Range<Int>
    }

    /// Checks the record stored under `key` and reads its header; throws ``EventLogError/corruptEntry(sequence:reason:)``.
    static func header(key: UInt64, record bytes: UnsafeRawBufferPointer) throws(EventLogError) -> Header {
        let reader = ByteReader(bytes: bytes)
        guard reader.count >= headerSize else {
            throw .corruptEntry(sequence: key, reason: "the record is \(reader.count) bytes, shorter than its \(headerSize)-byte header")
        }
        guard reader.checksumMatches else {
            throw .corruptEntry(sequence: key, reason: "its checksum does not match its contents")
        }
        let caseLength = Int(reader.u16(6))
        let payloadLength = Int(reader.u32(12))
        guard headerSize + caseLength + payloadLength == reader.count else {
            throw .corruptEntry(sequence: key, reason: "its lengths (case \(caseLength), payload \(payloadLength)) do not add up to its size \(reader.count)")
        }
        guard let kind = EntryKind(rawValue: reader.u8(4)) else {
            throw .corruptEntry(sequence: key, reason: "its kind byte \(reader.u8(4)) is unknown")
        }
        let sequence = reader.u64(16)
        guard sequence == key else {
            throw .corruptEntry(sequence: key, reason: "it records sequence number \(sequence) but is stored under \(key)")
        }
        return Header(
            kind: kind, codec: CodecID(rawValue: reader.u8(5)), streamID: reader.u32(8), sequence: sequence,
            timestamp: reader.i64(24), cause: reader.u64(32),
            caseRange: headerSize..<(headerSize + caseLength),
            payloadRange: (headerSize + caseLength)..<reader.count)
    }

    /// Checks and decodes a whole record, copying it out of the map.
    static func decode(
        key: UInt64, record bytes: UnsafeRawBufferPointer, streamName: (UInt32) throws(EventLogError) -> String
    ) throws(EventLogError) -> LogEntry {
        let header = try header(key: key, record: bytes)
        let reader = ByteReader(bytes: bytes)
        guard let caseName = reader.string(header.caseRange) else {
            throw .corruptEntry(sequence: key, reason: "its case name is not valid UTF-8")
        }
        return LogEntry(
            sequence: header.sequence, streamID: header.streamID, stream: try streamName(header.streamID),
            kind: header.kind, timestamp: header.timestamp, cause: header.cause == 0 ? nil : header.cause,
            caseName: caseName, codec: header.codec, payload: reader.data(header.payloadRange))
    }
}

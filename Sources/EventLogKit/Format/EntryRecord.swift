import Foundation

/// The binary layouts of a record of one entry, the value stored under its sequence number in `entries` by writers of
/// format versions 1 to 6 (a version-7 writer packs entries into blocks, ``EntryBlock``). Specified in docs/FORMAT.md;
/// all integers little-endian, varints LEB128. Readers read both layouts.
///
/// The compact layout (format versions 4 to 6) is marked by the kind byte's high bit:
///
///     0  u32 CRC-32C of bytes 4..<end     14 varint sequence, varint stream id,
///     4  u8  kind | 0x80                      varint cause distance (sequence − cause; 0 = none),
///     5  u8  codec                            varint case name length N, N bytes case name (UTF-8),
///     6  i64 timestamp (ns since 1970)        then the payload: the rest of the record
///
/// The version-1 layout, which readers still read:
///
///     0  u32 CRC-32C of bytes 4..<end     16 u64 sequence
///     4  u8  kind                          24 i64 timestamp (ns since 1970, UTC)
///     5  u8  codec                         32 u64 cause (0 = none)
///     6  u16 case name length N            40 N bytes case name (UTF-8)
///     8  u32 stream id                     40+N P bytes payload
///     12 u32 payload length P
enum EntryRecord {
    /// The size of the version-1 header.
    static let headerSize = 40
    /// The fixed part of the compact header, before its varints.
    static let compactFixedSize = 14
    /// The kind byte's flag for the compact layout.
    static let compactFlag: UInt8 = 0x80
    static let maxCaseNameLength = Int(UInt16.max)

    /// An entry on its way to the writer thread, sequence number and time already assigned.
    struct Pending: Sendable, EntryFields {
        // Kind and codec beside the stream id, where they fill its word: 88 bytes, not 96, and no larger than a
        // deferred entry, so that a queue item stays at 96 (QueueCapacityTests).
        let sequence: UInt64
        let streamID: UInt32
        let kind: EntryKind
        let codec: CodecID
        let timestamp: Int64
        let cause: UInt64
        let caseName: String
        /// The payload as plain bytes: one allocation where a `Data` takes two, and no exclusivity checks.
        let payload: [UInt8]
        /// Where the action was sent from, kept in the stream index; `nil` for none.
        var callSite: Site? = nil
    }

    /// An entry of an ``EncodedBatch``: a ``Pending`` whose payload lies in the batch's bytes, so that no entry
    /// allocates and frees an array of its own. A type of its own, not a ``Pending`` generic over its payload: the
    /// writer copies each entry once, and the copy of a generic one ran through its value witnesses (three times the
    /// instructions).
    struct Encoded: EntryFields {
        // Kind and codec beside the stream id, where they fill its word: 96 bytes, not 104, for each entry of a batch,
        // written once and read twice.
        let sequence: UInt64
        let streamID: UInt32
        let kind: EntryKind
        let codec: CodecID
        let timestamp: Int64
        let cause: UInt64
        let caseName: String
        /// Where the payload lies in the batch's bytes.
        let payload: Range<Int>
        var callSite: Site? = nil
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

    /// Checks the record stored under `key` and reads its header, in either layout; throws
    /// ``EventLogError/corruptEntry(sequence:reason:)``.
    static func header(key: UInt64, record bytes: UnsafeRawBufferPointer) throws(EventLogError) -> Header {
        if bytes.count > 4, bytes[4] & compactFlag != 0 { return try compactHeader(key: key, record: bytes) }
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
        guard let kind = EntryKind(byte: reader.u8(4)) else {
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

    /// ``header(key:record:)`` of a record in the compact layout.
    private static func compactHeader(key: UInt64, record bytes: UnsafeRawBufferPointer) throws(EventLogError) -> Header {
        let reader = ByteReader(bytes: bytes)
        guard reader.count >= compactFixedSize + 4 else {
            throw .corruptEntry(sequence: key, reason: "the record is \(reader.count) bytes, shorter than a compact header")
        }
        guard reader.checksumMatches else {
            throw .corruptEntry(sequence: key, reason: "its checksum does not match its contents")
        }
        guard let kind = EntryKind(byte: reader.u8(4) & ~compactFlag) else {
            throw .corruptEntry(sequence: key, reason: "its kind byte \(reader.u8(4)) is unknown")
        }
        guard let (sequence, afterSequence) = Varint.read(bytes, at: compactFixedSize),
              let (streamID, afterStream) = Varint.read(bytes, at: afterSequence),
              let (causeDistance, afterCause) = Varint.read(bytes, at: afterStream),
              let (caseLength, offset) = Varint.read(bytes, at: afterCause) else {
            throw .corruptEntry(sequence: key, reason: "its header ends inside a number")
        }
        guard sequence == key else {
            throw .corruptEntry(sequence: key, reason: "it records sequence number \(sequence) but is stored under \(key)")
        }
        guard streamID <= UInt64(UInt32.max), causeDistance <= sequence else {
            throw .corruptEntry(sequence: key, reason: "its stream id or cause is out of range")
        }
        guard caseLength <= UInt64(reader.count - offset) else {
            throw .corruptEntry(sequence: key, reason: "its case name length \(caseLength) runs past its size \(reader.count)")
        }
        let caseEnd = offset + Int(caseLength)
        return Header(
            kind: kind, codec: CodecID(rawValue: reader.u8(5)), streamID: UInt32(streamID), sequence: sequence,
            timestamp: reader.i64(6), cause: causeDistance == 0 ? 0 : sequence - causeDistance,
            caseRange: offset..<caseEnd, payloadRange: caseEnd..<reader.count)
    }
}

/// What a block records of an entry besides its payload (``EntryBlock/Builder``), whichever way the entry holds it.
protocol EntryFields {
    var sequence: UInt64 { get }
    var streamID: UInt32 { get }
    var kind: EntryKind { get }
    var timestamp: Int64 { get }
    var cause: UInt64 { get }
    var caseName: String { get }
    var codec: CodecID { get }
}

extension EntryRecord.Pending {
    /// The cause as a distance back from the entry (0: none).
    private var causeDistance: UInt64 { cause == 0 ? 0 : sequence &- cause }

    /// The bytes it takes as a record in the compact layout, about what it takes in a block: what it counts for
    /// in the queue's byte budget.
    var size: Int {
        let caseLength = caseName.utf8.count
        return EntryRecord.compactFixedSize + Varint.size(sequence) + Varint.size(UInt64(streamID)) + Varint.size(causeDistance)
            + Varint.size(UInt64(caseLength)) + caseLength + payload.count
    }

    /// Writes the record, in the compact layout, into `buffer`, which is exactly ``size`` bytes, checksum
    /// included: what writers of versions 4 to 6 stored. The writer no longer does; tests and fuzz seeds make
    /// such records with it, since readers must go on taking them.
    func write(into buffer: UnsafeMutableRawBufferPointer) {
        let out = ByteWriter(bytes: buffer)
        let caseLength = caseName.utf8.count
        out.u8(4, kind.rawValue | EntryRecord.compactFlag)
        out.u8(5, codec.rawValue)
        out.i64(6, timestamp)
        var offset = Varint.write(sequence, into: buffer, at: EntryRecord.compactFixedSize)
        offset = Varint.write(UInt64(streamID), into: buffer, at: offset)
        offset = Varint.write(causeDistance, into: buffer, at: offset)
        offset = Varint.write(UInt64(caseLength), into: buffer, at: offset)
        out.copy(caseName, to: offset)
        out.copy(payload, to: offset + caseLength)
        out.sealChecksum()
    }
}

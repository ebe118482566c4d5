import EventLogKit
import Foundation
import TimeTravel

/// The first line of an export or a pack: the log and its streams (docs/INSPECTOR.md, "Export format").
struct ExportHeader: Codable {
    /// A stream as the export describes it.
    struct Stream: Codable {
        let name: String
        let reactorType: String
        let schemaFingerprint: String
        let createdAt: Int64
        /// `createdAt`'s exact digits (``ExportHeader/createdAtNanoseconds``).
        var createdAtNanoseconds: String?
        let initialStateCodec: String
        let initialState: JSONValue?
        let initialStateBase64: String?
        /// The stream's trim floor in the export (absent in exports before version 2 of this header).
        var sequenceFloor: UInt64?
        /// The export holds every entry of the stream above this number, and, when it is above 0, the stream's
        /// state right after it as a snapshot: where replay starts. Absent in exports before version 2.
        var startsAfter: UInt64?
        /// Stretches retention removed from the stream inside the export (absent when none).
        var gaps: [ExportRange]?
        /// The stream's finished schema eras, oldest first (absent when its types never changed): the numbers up to
        /// each era's `through` that no earlier era holds were written by types of its fingerprint.
        var schemaEras: [ExportSchemaEra]?
    }

    let formatVersion: Int
    let library: String
    let streams: [Stream]
    /// When the log was created (nanoseconds since 1970).
    var createdAt: Int64?
    /// `createdAt` as exact digits: a tool that reads JSON numbers as doubles (jq) rounds the number, not the string,
    /// and `import` takes the digits. Every time of an export has such a twin, `…Nanoseconds` (absent before
    /// 2026-12-07, but for entries'); absent where its number is.
    var createdAtNanoseconds: String?
    /// The ReactorLog version that created the log (absent in exports written before it was carried).
    var createdBy: String?
    /// The log's snapshot policy, as `reactorlog info` prints it.
    var snapshotPolicy: String?
    /// Numbers at or below it may be missing: trimmed, or outside the exported range.
    var sequenceFloor: UInt64?
    /// The range asked for, when not the whole log.
    var range: ExportRange?
    /// The object keys whose values were masked (`--redact`).
    var redacted: [String]?
    /// The header's own version: 2 carries starting states and floors, 3 `metadataDamage`; absent means 1.
    var exportVersion: Int?
    /// The log's pins whose window meets the exported range (absent when none): what retention keeps, and what an
    /// `unwritten` entry stands for.
    var pins: [ExportPin]?
    /// Why `createdAt`, `createdBy`, `snapshotPolicy` and `sequenceFloor` are as the source log stored them, unvouched:
    /// the damage of its metadata, such as "the metadata's checksum does not match its keys and values, so one of them is
    /// damaged". Absent when the source vouched for them; `import` records it in the new log.
    var metadataDamage: String?

    /// The header version this inspector reads up to, and writes for an export with `metadataDamage`, so that an
    /// inspector before it refuses such an export rather than import its values as sound.
    static let currentExportVersion = 3
    /// The header version written for an export whose source vouched for its metadata, which inspectors since
    /// 2026-11-25 read.
    static let vouchedExportVersion = 2
}

/// The steps an export was asked for, or a stream's gap.
struct ExportRange: Codable {
    let from: UInt64
    let through: UInt64
}

/// A pin in an export (``LogPin``).
struct ExportPin: Codable {
    let from: UInt64
    let through: UInt64
    let reason: String
    /// When it was pinned: nanoseconds since 1970.
    let createdAt: Int64
    /// `createdAt`'s exact digits (``ExportHeader/createdAtNanoseconds``).
    var createdAtNanoseconds: String?
    /// True for a pin whose record was damaged in the source log (``LogPin/isDamaged``): its reason and time are
    /// lost, its window is kept.
    var damaged: Bool?
}

/// A finished schema era of a stream in an export (``SchemaHistory/Era``).
struct ExportSchemaEra: Codable {
    let fingerprint: String
    let through: UInt64
}

/// A snapshot in an export.
struct SnapshotJSON: Codable {
    let stream: String
    let sequence: UInt64
    let timestamp: Int64
    /// `timestamp`'s exact digits (``ExportHeader/createdAtNanoseconds``).
    var timestampNanoseconds: String?
    let codec: String
    let state: JSONValue?
    let stateBase64: String?
}

/// One line of a JSON-lines export: exactly one of the three.
struct ExportLine: Codable {
    var reactorlog: ExportHeader?
    var entry: EntryJSON?
    var snapshot: SnapshotJSON?
}

/// A whole-document export.
struct ExportDocument: Codable {
    let reactorlog: ExportHeader
    let entries: [EntryJSON]
    let snapshots: [SnapshotJSON]
}

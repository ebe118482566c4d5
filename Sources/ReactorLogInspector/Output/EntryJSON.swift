import EventLogKit
import Foundation
import TimeTravel

/// An entry as the inspector's JSON output and `export` write it.
struct EntryJSON: Codable {
    let sequence: UInt64
    let stream: String
    let kind: String
    let time: String
    /// Nanoseconds since 1970, as a number: more than 2^53, so a double (as in jq) rounds it.
    let timestamp: Int64
    /// The same, exactly, as a string of digits.
    let timestampNanoseconds: String?
    let cause: UInt64?
    let `case`: String
    let codec: String
    let payload: JSONValue?
    let payloadBase64: String?
    /// Where an action was sent from, such as `MyApp/SearchView.swift:42` (absent when not recorded).
    var callSite: String?

    init(_ entry: LogEntry, callSite: String? = nil) {
        self.callSite = callSite
        sequence = entry.sequence
        stream = entry.stream
        kind = entry.kind.description
        time = EntryLine.iso8601(nanoseconds: entry.timestamp)
        timestamp = entry.timestamp
        timestampNanoseconds = String(entry.timestamp)
        cause = entry.cause
        `case` = entry.caseName
        codec = entry.codec.description
        let json = (try? JSONValue(payload: entry.payload, codec: entry.codec)) ?? nil
        payload = json
        payloadBase64 = json == nil && !entry.payload.isEmpty ? entry.payload.base64EncodedString() : nil
    }
}

/// A diff in JSON.
struct ChangeJSON: Codable {
    let path: String
    let old: JSONValue?
    let new: JSONValue?

    static func list(_ diff: StateDiff) -> [ChangeJSON] {
        diff.changes.map { ChangeJSON(path: $0.path.description, old: $0.old, new: $0.new) }
    }
}

import EventLogKit
import Foundation
import TimeTravel

/// An entry as one line of JSON, written by hand into bytes: the fields and order of ``EntryJSON`` (keys sorted), at
/// the speed `export`, `log --json` and `tail --json` need for millions of entries. A JSON payload is the stored JSON, checked and copied as it is
/// (``JSONValue/compactUTF8(_:)``); a binary one is rendered as JSON. DEL, C1 controls and bidirectional overrides are `\u` escapes, as
/// ``writeJSONLine(_:)`` writes them, so the line is safe on a terminal as it is.
enum EntryLine {
    /// `{"entry":{…}}` for an export line, or the bare object.
    static func json(_ entry: LogEntry, wrapped: Bool) -> String {
        var bytes: [UInt8] = []
        entry.withView { append($0, wrapped: wrapped, to: &bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the line (without a newline) to `out`: with the action's call site (a JSON string, as `appendString` writes it)
    /// when given, and the keys of `redaction` masked in a JSON payload. A payload keeps its members in their recorded
    /// order, unless `sortingPayload`: then it is rendered as a ``JSONValue`` (members sorted at every level), which
    /// makes the values of the line Foundation's `JSONEncoder` writes for ``EntryJSON`` with sorted keys.
    /// `changes`, when given, is what `log --changes` adds after `cause`: its members as JSON text (`"changes":[…]`).
    static func append(
        _ entry: EntryView, wrapped: Bool, callSiteJSON: [UInt8]? = nil, redaction: Redaction? = nil, sortingPayload: Bool = false,
        changes: String? = nil, to out: inout [UInt8]
    ) {
        out.append(contentsOf: wrapped ? Fragment.wrappedOpen : Fragment.open)
        if let callSiteJSON {
            out.append(contentsOf: Fragment.callSite)
            out.append(contentsOf: callSiteJSON)
            out.append(UInt8(ascii: ","))
        }
        out.append(contentsOf: Fragment.caseKey)
        appendString(entry.caseName, to: &out)
        if let cause = entry.cause {
            out.append(contentsOf: Fragment.cause)
            appendDecimal(cause, to: &out)
        }
        if let changes {
            out.append(UInt8(ascii: ","))
            let start = out.count
            out.append(contentsOf: changes.utf8)
            escapeTerminalControls(in: &out, from: start)
        }
        out.append(contentsOf: Fragment.codec)
        out.append(contentsOf: Fragment.name(entry.codec))
        out.append(contentsOf: Fragment.kind)
        out.append(contentsOf: Fragment.name(entry.kind))
        out.append(UInt8(ascii: "\""))
        let appended: Bool
        switch entry.codec {
        case _ where sortingPayload: appended = appendSortedPayload(entry.payload, codec: entry.codec, to: &out)
        case .json: appended = appendJSONPayload(entry.payload, redaction: redaction, to: &out)
        case .binary:
            // Rendered as JSON; a payload that is not well formed stays base64, as any other codec's.
            appended = (try? BinaryPayload.json(entry.payload)).map { rendered in
                rendered.withUnsafeBytes { appendJSONPayload($0, redaction: redaction, to: &out) }
            } ?? false
        default: appended = false
        }
        if !appended { appendBase64(entry.payload, to: &out) }
        out.append(contentsOf: Fragment.sequence)
        appendDecimal(entry.sequence, to: &out)
        out.append(contentsOf: Fragment.stream)
        appendString(entry.stream, to: &out)
        out.append(contentsOf: Fragment.time)
        appendISO8601(nanoseconds: entry.timestamp, to: &out)
        out.append(contentsOf: Fragment.timestamp)
        appendDecimal(entry.timestamp, to: &out)
        out.append(contentsOf: Fragment.nanoseconds)
        appendDecimal(entry.timestamp, to: &out)
        out.append(contentsOf: wrapped ? Fragment.wrappedEnd : Fragment.end)
    }

    /// Appends `"payload":` and the JSON text `json`, compacted, controls escaped and `redaction` applied; returns
    /// `false`, appending nothing, when `json` is not valid JSON.
    private static func appendJSONPayload(_ json: UnsafeRawBufferPointer, redaction: Redaction?, to out: inout [UInt8]) -> Bool {
        out.append(contentsOf: Fragment.payload)
        let start = out.count
        if let redaction, redaction.mayApply(to: json), let value = try? JSONValue(parsing: Data(json)) {
            out.append(contentsOf: redaction.apply(value).description.utf8)
        } else if !JSONValue.appendCompactUTF8(json, to: &out) {
            out.removeSubrange((start - Fragment.payload.count)...)
            return false
        }
        escapeTerminalControls(in: &out, from: start)
        return true
    }

    /// Appends `"payload":` and the payload as a ``JSONValue`` renders it, controls escaped; returns `false`,
    /// appending nothing, when it does not read as JSON (another codec, or not well formed).
    private static func appendSortedPayload(_ payload: UnsafeRawBufferPointer, codec: CodecID, to out: inout [UInt8]) -> Bool {
        guard let value = (try? JSONValue(payload: payload, codec: codec)) ?? nil else { return false }
        out.append(contentsOf: Fragment.payload)
        let start = out.count
        value.appendJSON(to: &out)
        escapeTerminalControls(in: &out, from: start)
        return true
    }

    /// The constant parts of a line, as bytes once.
    private enum Fragment {
        static let wrappedOpen = Array(#"{"entry":{"#.utf8), open = Array("{".utf8)
        static let callSite = Array(#""callSite":"#.utf8), caseKey = Array(#""case":"#.utf8)
        static let cause = Array(#","cause":"#.utf8), codec = Array(#","codec":""#.utf8), kind = Array(#"","kind":""#.utf8)
        static let payload = Array(#","payload":"#.utf8), payloadBase64 = Array(#","payloadBase64":""#.utf8)
        static let sequence = Array(#","sequence":"#.utf8), stream = Array(#","stream":"#.utf8), time = Array(#","time":""#.utf8)
        static let timestamp = Array(#"","timestamp":"#.utf8), nanoseconds = Array(#","timestampNanoseconds":""#.utf8)
        static let wrappedEnd = Array(#""}}"#.utf8), end = Array(#""}"#.utf8)
        static let codecs = (0...255).map { Array(CodecID(rawValue: UInt8($0)).description.utf8) }
        static let kinds = EntryKind.allCases.map { ($0, Array($0.description.utf8)) }

        static func name(_ codec: CodecID) -> [UInt8] { codecs[Int(codec.rawValue)] }
        static func name(_ kind: EntryKind) -> [UInt8] { kinds.first { $0.0 == kind }?.1 ?? Array(kind.description.utf8) }
    }

    private static func appendBase64(_ payload: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        guard !payload.isEmpty else { return }
        out.append(contentsOf: Fragment.payloadBase64)
        out.append(contentsOf: Data(payload).base64EncodedString().utf8)
        out.append(UInt8(ascii: "\""))
    }

    /// `text` as a JSON string.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendString(UnsafeRawBufferPointer($0), to: &out) }
    }

    /// The UTF-8 text `bytes` as a JSON string, terminal-safe (``escapeTerminalControls(in:from:)``).
    static func appendString(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        let start = out.count
        JSONText.appendString(bytes, to: &out)
        escapeTerminalControls(in: &out, from: start)
    }

    private static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendDecimal(value.magnitude, to: &out)
    }

    private static func appendDecimal(_ value: UInt64, to out: inout [UInt8]) {
        var magnitude = value
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // up to 24 digits, written backwards
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[23 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            out.append(contentsOf: buffer[(24 - count)...])
        }
    }

    /// `2026-11-22T10:54:14.902Z`: UTC, milliseconds (truncated), as ISO 8601 with fractional seconds.
    static func iso8601(nanoseconds: Int64) -> String {
        var bytes: [UInt8] = []
        appendISO8601(nanoseconds: nanoseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendISO8601(nanoseconds: Int64, to out: inout [UInt8]) {
        let (seconds, fraction) = floorDivide(nanoseconds, 1_000_000_000)
        let milliseconds = fraction / 1_000_000
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        // Civil date from days since 1970-01-01 (proleptic Gregorian).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        // Every field is non-negative and fits its width (timestamps span the years 1677 to 2262).
        func pad(_ value: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        pad(year, 4); out.append(UInt8(ascii: "-")); pad(month, 2); out.append(UInt8(ascii: "-")); pad(day, 2)
        out.append(UInt8(ascii: "T")); pad(secondOfDay / 3600, 2); out.append(UInt8(ascii: ":")); pad(secondOfDay / 60 % 60, 2)
        out.append(UInt8(ascii: ":")); pad(secondOfDay % 60, 2); out.append(UInt8(ascii: ".")); pad(milliseconds, 3)
        out.append(UInt8(ascii: "Z"))
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}

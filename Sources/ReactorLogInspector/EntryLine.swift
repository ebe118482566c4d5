import EventLogKit
import TimeTravel

/// An entry as one line of JSON, written by hand: the fields and order of ``EntryJSON`` (keys sorted), at the speed
/// `export` needs for millions of entries. DEL, C1 controls and bidirectional overrides are `\u` escapes, as
/// ``writeJSONLine(_:)`` writes them.
enum EntryLine {
    /// `{"entry":{…}}` for an export line, or the bare object.
    static func json(_ entry: LogEntry, wrapped: Bool) -> String {
        var line = wrapped ? #"{"entry":{"case":"# : #"{"case":"#
        appendString(entry.caseName, to: &line)
        if let cause = entry.cause { line += #","cause":\#(cause)"# }
        line += #","codec":"\#(entry.codec)","kind":"\#(entry.kind)""#
        if entry.codec == .json, let value = try? JSONValue(parsing: entry.payload), value.isExpressibleAsJSON {
            line += #","payload":"#
            appendEscapingControls(value.description, to: &line)
        } else if !entry.payload.isEmpty {
            line += #","payloadBase64":""# + entry.payload.base64EncodedString() + "\""
        }
        line += #","sequence":\#(entry.sequence),"stream":"#
        appendString(entry.stream, to: &line)
        line += #","time":""# + iso8601(nanoseconds: entry.timestamp) + #"","timestamp":\#(entry.timestamp),"timestampNanoseconds":"\#(entry.timestamp)"}"#
        return wrapped ? line + "}" : line
    }

    /// `text` as a JSON string.
    static func appendString(_ text: String, to line: inout String) {
        appendEscapingControls(JSONValue.string(text).description, to: &line)
    }

    /// JSON text with its DEL, C1 and bidirectional-override characters (which occur only inside strings) escaped.
    private static func appendEscapingControls(_ json: String, to line: inout String) {
        guard json.utf8.contains(where: { $0 >= 0x7F }) else {
            line += json
            return
        }
        for scalar in json.unicodeScalars {
            if needsEscape(scalar) { line += unicodeEscape(scalar) } else { line.unicodeScalars.append(scalar) }
        }
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    /// `2026-11-22T10:54:14.902Z`: UTC, milliseconds (truncated), as ISO 8601 with fractional seconds.
    static func iso8601(nanoseconds: Int64) -> String {
        let (seconds, fraction) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        let wholeSeconds = fraction < 0 ? seconds - 1 : seconds
        let milliseconds = (fraction < 0 ? fraction + 1_000_000_000 : fraction) / 1_000_000
        let (days, secondOfDay) = floorDivide(wholeSeconds, 86_400)
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
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2)).\(pad(milliseconds, 3))Z"
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}

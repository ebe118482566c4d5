import Foundation
import Synchronization

/// An entry's time as the inspector prints it, `22:37:55.383` (or `2026-11-21 22:37:55.383` with its date): local
/// time, **to the millisecond it falls in**, as a clock shows it and as `log --since` and `--until` read it, so a time
/// copied from a listing selects the entries listed at it. Worked out from the log's nanoseconds in integers; a
/// `DateFormatter` writes only the second, asked once per second rather than once per entry (formatting through ICU
/// costs about a microsecond, which was a fifth of `reactorlog log`'s time over a large log, whose entries share their
/// seconds by the thousand).
enum ClockTime {
    /// How many characters a time of day takes: `22:37:55.383`.
    static let width = 12

    /// `HH:mm:ss.SSS`, local time.
    static func string(nanoseconds: Int64) -> String {
        format(nanoseconds, cache: lastTime, formatter: timeFormatter)
    }

    /// `HH:mm:ss.SSS`, local time, appended to `bytes`: ``string(nanoseconds:)`` for a line written as bytes.
    static func append(nanoseconds: Int64, to bytes: inout [UInt8]) {
        append(nanoseconds, cache: lastTime, formatter: timeFormatter, to: &bytes)
    }

    /// `yyyy-MM-dd HH:mm:ss.SSS`, local time.
    static func dateTime(nanoseconds: Int64) -> String {
        format(nanoseconds, cache: lastDateTime, formatter: dateTimeFormatter)
    }

    /// ``string(nanoseconds:)`` for a time today, ``dateTime(nanoseconds:)`` for one on another day: where a table shows
    /// a few times (`info`'s first and last entries), so that a log from another day, or over several, shows its days.
    static func dated(nanoseconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000).quotient))
        return Calendar.current.isDateInToday(date) ? string(nanoseconds: nanoseconds) : dateTime(nanoseconds: nanoseconds)
    }

    private static let timeFormatter = formatter("HH:mm:ss")
    private static let dateTimeFormatter = formatter("yyyy-MM-dd HH:mm:ss")

    /// The second formatted last by each format: the number of seconds since 1970 and its text.
    private static let lastTime = Mutex<(second: Int64, text: String)>((.min, ""))
    private static let lastDateTime = Mutex<(second: Int64, text: String)>((.min, ""))

    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.dateFormat = format
        formatter.locale = Locale(identifier: "en_US_POSIX")
        return formatter
    }

    private static func format(_ nanoseconds: Int64, cache: borrowing Mutex<(second: Int64, text: String)>, formatter: DateFormatter) -> String {
        var bytes: [UInt8] = []
        append(nanoseconds, cache: cache, formatter: formatter, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The text of the second `nanoseconds` falls in, then a point and the millisecond within it in three digits.
    private static func append(
        _ nanoseconds: Int64, cache: borrowing Mutex<(second: Int64, text: String)>, formatter: DateFormatter,
        to bytes: inout [UInt8]
    ) {
        // Rounded down, before 1970 too: -0.5 s is in the second before 00:00:00.
        var (second, fraction) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        if fraction < 0 { (second, fraction) = (second - 1, fraction + 1_000_000_000) }
        let millisecond = fraction / 1_000_000
        let text = cache.withLock { last in
            if last.second != second {
                // Every second an Int64 of nanoseconds reaches is a whole number a double holds exactly.
                last = (second, formatter.string(from: Date(timeIntervalSince1970: Double(second))))
            }
            return last.text
        }
        bytes.append(contentsOf: text.utf8)
        bytes.append(UInt8(ascii: "."))
        let zero = UInt8(ascii: "0")
        bytes.append(zero + UInt8(millisecond / 100))
        bytes.append(zero + UInt8(millisecond / 10 % 10))
        bytes.append(zero + UInt8(millisecond % 10))
    }
}

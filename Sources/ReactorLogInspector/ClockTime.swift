import Foundation
import Synchronization

/// A date's time of day as the inspector lists it, `22:37:55.383` in the local time zone: the text a
/// `DateFormatter` with the format `HH:mm:ss.SSS` writes, with the formatter asked once per second rather than once
/// per entry. Formatting through ICU costs about a microsecond, which was a fifth of `reactorlog log`'s time over a
/// large log, whose entries share their seconds by the thousand.
enum ClockTime {
    private static let secondFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        return formatter
    }()

    /// The second formatted last: the number of seconds since 1970 and its text.
    private static let last = Mutex<(second: Int64, text: String)>((.min, ""))

    /// `date` as `HH:mm:ss.SSS`, local time, to the nearest millisecond, as `DateFormatter` writes it.
    static func string(from date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down)
        // Beyond ±10¹⁵ ms (about 31,000 years) a double no longer holds every millisecond: leave such dates to
        // the formatter.
        guard abs(milliseconds) < 1e15 else { return fallback.string(from: date) }
        let (second, millisecond) = floorDivision(Int64(milliseconds), by: 1000)
        let text = last.withLock { last in
            if last.second != second {
                last = (second, secondFormatter.string(from: Date(timeIntervalSince1970: Double(second))))
            }
            return last.text
        }
        let digits = String(millisecond)
        return text + (millisecond < 10 ? ".00" : millisecond < 100 ? ".0" : ".") + digits
    }

    /// The whole format, for a date no double holds to the millisecond.
    private static let fallback: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss.SSS"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        return formatter
    }()

    /// `value` ÷ `divisor` rounded down, and the remainder, which is then never negative.
    private static func floorDivision(_ value: Int64, by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }
}

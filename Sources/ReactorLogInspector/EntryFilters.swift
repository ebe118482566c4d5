import EventLogKit
import Foundation

/// Parsing of the filters the commands share: kinds, counts, and times (`log`, `pack` and `timeline`).
enum EntryFilters {
    /// The kinds `--kind` names, repeated or separated by commas (`--kind action,mutation`); `nil` for none.
    static func kinds(_ names: [String]) throws -> Set<EntryKind>? {
        guard !names.isEmpty else { return nil }
        let names = names.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        return Set(try names.map { name in
            guard let kind = EntryKind(name: name) else {
                let meant = UsageLine.nearest(to: name, among: EntryKind.allCases.map(\.description) + EntryKind.allCases.map(\.swiftName)).map { " Did you mean '\($0)'?" } ?? ""
                throw InspectorFailure("'\(name)' is not an entry kind.\(meant) Use action, mutation, error, opened, resumed or closed (or effectError, streamOpened, streamResumed, streamClosed).", exit: .invalidArgument)
            }
            return kind
        })
    }

    /// The bounds of `--since` and `--until` over `log` (of `stream`, if given): ``times(since:until:on:)``, a time of
    /// day on the day of the last entry (``lastEntryDay(in:stream:)``).
    static func times(since: String?, until: String?, in log: EventLog, stream: String?) throws -> (since: Int64?, until: Int64?) {
        try times(since: since, until: until) { lastEntryDay(in: log, stream: stream) }
    }

    /// The bounds of `--since` and `--until`, in nanoseconds since 1970: the first instant of the one, the last of the
    /// other, a time of day on the day `day` gives (asked only when a time is given). Refuses an `--until` before the
    /// `--since`, which would list nothing.
    static func times(since: String?, until: String?, on day: () -> Date) throws -> (since: Int64?, until: Int64?) {
        guard since != nil || until != nil else { return (nil, nil) }
        let day = day()
        let first = try since.map { try time($0, on: day) }?.lowerBound, last = try until.map { try time($0, on: day) }?.upperBound
        if let first, let last, last < first {
            throw InspectorFailure("--until \(until ?? "") is before --since \(since ?? ""): give the earlier time to --since.", exit: .invalidArgument)
        }
        return (first, last)
    }

    /// The steps `--since` and `--until` select (of `stream`, if given), for a command that takes a range: from the
    /// first entry at or after the one, up to the last before the first entry after the other; `nil` for a time not
    /// given. Refuses times that select no entry, naming when the entries were written.
    static func steps(since: String?, until: String?, stream: String?, in log: EventLog) throws -> (from: UInt64?, through: UInt64?) {
        let (first, last) = try times(since: since, until: until, in: log, stream: stream)
        guard first != nil || last != nil else { return (nil, nil) }
        func entry(since: Int64? = nil, through: UInt64 = .max) throws -> LogEntry? {
            try firstEntry(in: log, stream: stream, since: since, through: through)
        }
        var through: UInt64?
        if let last, let after = try entry(since: last + 1) { through = after.sequence - 1 }
        // The span holds an entry: the first at or after `--since`, or any up to `--until`.
        if let held = try entry(since: first, through: through ?? .max) { return (first.map { _ in held.sequence }, through) }
        let owner = stream.map { "Stream '\($0)'" } ?? "The log"
        let span = [since.map { "since \($0)" }, until.map { "until \($0)" }].compactMap { $0 }.joined(separator: " ")
        guard let earliest = try entry(), let latest = try lastEntry(in: log, stream: stream) else {
            throw InspectorFailure.lacking("\(owner) has no entries, so none \(span).")
        }
        // In local time, as listings, `info` and `show` print times: copied back, either names its millisecond.
        let held = "\(ClockTime.dateTime(nanoseconds: earliest.timestamp)) and \(ClockTime.dateTime(nanoseconds: latest.timestamp))"
        throw InspectorFailure.lacking("\(owner) has no entry \(span): its entries were written between \(held). Choose times between them.")
    }

    /// The first entry (of `stream`, if given) at or after the time `since` and at or before step `through`.
    static func firstEntry(in log: EventLog, stream: String?, since: Int64?, through: UInt64 = .max) throws -> LogEntry? {
        var entries = log.entries(EntryQuery(through: through, limit: 1, stream: stream, since: since))
        return try entries.next()
    }

    /// The day a time of day names: that of the last entry of `log` (of `stream`, if given), in the local time zone, so
    /// that a time copied from a listing of a log from another day (a bug report's) names the time listed; today for a
    /// log being written, and for one with no entry to read.
    static func lastEntryDay(in log: EventLog, stream: String?) -> Date {
        let last = try? lastEntry(in: log, stream: stream)
        return last.map { Date(timeIntervalSince1970: Double($0.timestamp / 1_000_000_000)) } ?? Date()
    }

    /// The last entry of `log` (of `stream`, if given); `nil` where there is none.
    static func lastEntry(in log: EventLog, stream: String?) throws -> LogEntry? {
        try log.entry(at: stream.map { try log.highestSequence(stream: $0) } ?? log.highestSequence())
    }

    /// The span of time `text` names, in nanoseconds since 1970: ISO 8601; a date and time in the local time zone as
    /// `show` prints it (`2026-11-21 22:37:55.383`, or with a `T`); a date alone, that local day; or a time of day in the
    /// local time zone, on `day`. A time names everything its last digit covers, so that `--since` and `--until` take a
    /// time as a listing prints it: `09:23:28.238` is that millisecond (every entry listed at it), `14:03` that minute,
    /// `2025-03-11` (a listing's day line) that day.
    static func time(_ text: String, on day: Date) throws -> ClosedRange<Int64> {
        // The fraction is read as digits: a `Date` holds about a quarter of a microsecond at today's times.
        var whole = text, fraction: Int64 = 0, unit: Int64 = 1_000_000_000
        if let dot = text.firstIndex(of: ".") {
            let digits = text[text.index(after: dot)...].prefix { ("0"..."9").contains($0) }
            guard (1...9).contains(digits.count), let value = Int64(digits) else {
                throw InspectorFailure("'\(text)' is not a time: its fraction of a second has one to nine digits.", exit: .invalidArgument)
            }
            unit = 1
            for _ in digits.count..<9 { unit *= 10 }
            fraction = value * unit
            whole = String(text[..<dot] + text[digits.endIndex...])
        }
        let seconds: Int64
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime]
        if let date = iso.date(from: whole) {
            try requireCalendarTime(whole, text)
            seconds = try wholeSeconds(date.timeIntervalSince1970, text)
        } else if let date = text.wholeMatch(of: /(\d{4})-(\d{2})-(\d{2})/) {
            // A date alone, as a listing's day line prints it: that day in the local time zone, by the calendar (23 or
            // 25 hours where the clocks change that day).
            try requireCalendarTime("\(date.1)-\(date.2)-\(date.3)T00", text)
            guard let start = Self.local(DateComponents(year: Int(date.1), month: Int(date.2), day: Int(date.3)), [0, 0]),
                  (1...12).contains(Int(date.2) ?? 0), (1...31).contains(Int(date.3) ?? 0),
                  let next = Calendar.current.date(byAdding: .day, value: 1, to: start)
            else {
                throw InspectorFailure("'\(text)' is not a date. Use YYYY-MM-DD with months 1 to 12.", exit: .invalidArgument)
            }
            seconds = try wholeSeconds(start.timeIntervalSince1970, text)
            unit = (try wholeSeconds(next.timeIntervalSince1970, text) - seconds) * 1_000_000_000
        } else {
            // A date and time without a zone, local as `show` and `info` print them, or a time of day on `day`.
            let local = whole.wholeMatch(of: /(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}:\d{2}(?::\d{2})?)/)
            guard let clock = timeOfDay(local.map { String($0.4) } ?? whole) else {
                throw InspectorFailure("'\(text)' is not a time. Use ISO 8601 (2026-11-21T22:37:55Z), a local date and time (2026-11-21 22:37:55), a date (2026-11-21), or HH:MM[:SS] on the day of the log's last entry.", exit: .invalidArgument)
            }
            if let local { try requireCalendarTime("\(local.1)-\(local.2)-\(local.3)T\(local.4)", text) }
            let date = local.map { DateComponents(year: Int($0.1), month: Int($0.2), day: Int($0.3)) }
                ?? Calendar.current.dateComponents([.year, .month, .day], from: day)
            // A fraction follows seconds only.
            guard (1...12).contains(date.month ?? 0), zip(clock, [24, 60, 60]).allSatisfy({ $0 < $1 }), clock.count == 3 || whole == text,
                  let instant = Self.local(date, clock)
            else {
                throw InspectorFailure(local == nil
                    ? "'\(text)' is not a time of day. Use HH:MM[:SS] with hours 0 to 23 and minutes and seconds 0 to 59."
                    : "'\(text)' is not a time. Use YYYY-MM-DD HH:MM[:SS] with months 1 to 12, hours 0 to 23 and minutes and seconds 0 to 59.",
                    exit: .invalidArgument)
            }
            if clock.count == 2 { unit = 60_000_000_000 }
            seconds = try wholeSeconds(instant.timeIntervalSince1970, text)
        }
        let (start, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow, start <= .max - fraction - unit else {
            throw InspectorFailure("'\(text)' is out of range: a log holds times from 1678 to 2262.", exit: .invalidArgument)
        }
        return (start + fraction)...(start + fraction + unit - 1)
    }

    /// The instant of `clock` (hours, minutes and, if given, seconds) on `date`'s day, in the local time zone: by the
    /// calendar, so that a day on which the clocks change has its hours where they are.
    private static func local(_ date: DateComponents, _ clock: [Int64]) -> Date? {
        var components = date
        components.hour = clock.first.map(Int.init)
        components.minute = clock.dropFirst().first.map(Int.init)
        components.second = clock.count == 3 ? Int(clock[2]) : 0
        return Calendar.current.date(from: components)
    }

    /// Refuses a day its month does not have (`2026-02-30`) and hour 24, which the ISO 8601 parser moves on into the
    /// next month or day (it refuses month 13, day 32 and minute 60 itself): a time that is not on the calendar.
    private static func requireCalendarTime(_ whole: String, _ text: String) throws {
        guard let match = whole.firstMatch(of: /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2})/),
              let year = Int(match.1), let month = Int(match.2), let day = Int(match.3), let hour = Int(match.4), (1...12).contains(month)
        else { return }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard day <= days else {
            throw InspectorFailure("'\(text)' is not a date: month \(month) of \(year) has \(days) days.", exit: .invalidArgument)
        }
        guard hour < 24 else {
            throw InspectorFailure("'\(text)' is not a time: hours run from 0 to 23.", exit: .invalidArgument)
        }
    }

    /// The hours, minutes and, if given, seconds of `HH:MM[:SS]`; `nil` when `text` is not two or three numbers between
    /// colons.
    private static func timeOfDay(_ text: String) -> [Int64]? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let values = parts.compactMap { part in part.allSatisfy { ("0"..."9").contains($0) } ? Int64(part) : nil }
        guard (2...3).contains(parts.count), values.count == parts.count else { return nil }
        return values
    }

    /// A whole number of seconds since 1970, within what the inspector's arithmetic holds.
    private static func wholeSeconds(_ seconds: Double, _ text: String) throws -> Int64 {
        guard let value = Int64(exactly: seconds.rounded()), abs(value) < 1 << 40 else {
            throw InspectorFailure("'\(text)' is out of range: a log holds times from 1678 to 2262.", exit: .invalidArgument)
        }
        return value
    }

    /// A `--limit` or `--lines` count, which cannot be negative.
    static func count(_ value: Int?, option: String) throws -> Int? {
        guard let value else { return nil }
        guard value >= 0 else {
            throw InspectorFailure("\(option) is \(value), but it counts entries: use 0 or more.", exit: .invalidArgument)
        }
        return value
    }
}

import Foundation
@testable import ReactorLogInspector
import Testing

/// The times `log --since` and `--until` take: the span each names, to its last digit, in exact nanoseconds.
@Suite("reactorlog time filters")
struct EntryFiltersTests {
    /// 2026-11-21T22:37:55Z in seconds since 1970.
    let second: Int64 = 1_795_300_675
    /// The day a time of day is on: in the tests, 2025-03-10 (at noon, local time).
    let day = Calendar.current.date(from: DateComponents(year: 2025, month: 3, day: 10, hour: 12)) ?? Date()

    @Test("an ISO 8601 time names the second, or the fraction of it its digits give, exactly")
    func isoSpans() throws {
        let start = second * 1_000_000_000
        #expect(try EntryFilters.time("2026-11-21T22:37:55Z", on: day) == start...(start + 999_999_999))
        #expect(try EntryFilters.time("2026-11-21T22:37:55.238Z", on: day) == (start + 238_000_000)...(start + 238_999_999))
        #expect(try EntryFilters.time("2026-11-21T22:37:55.5Z", on: day) == (start + 500_000_000)...(start + 599_999_999))
        // Nine digits name one nanosecond: a `Date` in between would round this one by about 200.
        #expect(try EntryFilters.time("2026-11-21T22:37:55.123456789Z", on: day) == (start + 123_456_789)...(start + 123_456_789))
        #expect(try EntryFilters.time("2026-11-21T23:37:55.25+01:00", on: day) == (start + 250_000_000)...(start + 259_999_999))
        #expect(try EntryFilters.time("1969-12-31T23:59:59.5Z", on: day) == -500_000_000...(-400_000_001))
        // Leap days where the calendar has them (2000 is a leap year, 2100 is not).
        #expect(try EntryFilters.time("2024-02-29T00:00:00Z", on: day).lowerBound == 1_709_164_800_000_000_000)
        #expect(try EntryFilters.time("2000-02-29T00:00:00Z", on: day).lowerBound == 951_782_400_000_000_000)
        #expect(throws: InspectorFailure.self) { try EntryFilters.time("2100-02-29T00:00:00Z", on: day) }
    }

    @Test("a time of day names its minute or its second on the day given, in local time; a date and time without a zone is local")
    func timesOfDay() throws {
        let midnight = Int64(Calendar.current.startOfDay(for: day).timeIntervalSince1970) * 1_000_000_000
        let at1403 = midnight + (14 * 3600 + 3 * 60) * 1_000_000_000
        #expect(try EntryFilters.time("14:03", on: day) == at1403...(at1403 + 59_999_999_999))
        #expect(try EntryFilters.time("14:03:05", on: day) == (at1403 + 5_000_000_000)...(at1403 + 5_999_999_999))
        #expect(try EntryFilters.time("14:03:05.070", on: day) == (at1403 + 5_070_000_000)...(at1403 + 5_070_999_999))
        #expect(try EntryFilters.time("0:00", on: day) == midnight...(midnight + 59_999_999_999))
        // As show prints a time: the same spans, on their own day whatever the day given.
        let other = Date(timeIntervalSince1970: 0)
        #expect(try EntryFilters.time("2025-03-10 14:03", on: other) == at1403...(at1403 + 59_999_999_999))
        #expect(try EntryFilters.time("2025-03-10 14:03:05.070", on: other) == (at1403 + 5_070_000_000)...(at1403 + 5_070_999_999))
        #expect(try EntryFilters.time("2025-03-10T14:03:05", on: other) == (at1403 + 5_000_000_000)...(at1403 + 5_999_999_999))
        // A date alone, as a listing's day line prints it: the whole local day.
        let nextMidnight = Int64(try #require(Calendar.current.date(byAdding: .day, value: 1, to: Calendar.current.startOfDay(for: day))).timeIntervalSince1970) * 1_000_000_000
        #expect(try EntryFilters.time("2025-03-10", on: other) == midnight...(nextMidnight - 1))
    }

    @Test("a malformed or out-of-range time is refused with the rule it breaks", arguments: [
        ("14:03.5", "is not a time of day"), ("24:00", "is not a time of day"), ("12:60:00", "is not a time of day"),
        ("12:30:60", "is not a time of day"), ("12:-3", "is not a time"), ("12:30:5x", "is not a time"),
        ("2026-11-21T22:37:55.1234567891Z", "one to nine digits"), ("12:30:.", "one to nine digits"),
        ("2263-01-01T00:00:00Z", "is out of range"), ("99999-01-01T00:00:00Z", "is out of range"), ("yesterday", "is not a time"),
        ("2025-02-29", "month 2 of 2025 has 28 days"), ("2025-13-01", "is not a date"), ("2025-03-00", "is not a date"), ("2025-03-10.5", "is not a time"),
    ])
    func refused(text: String, saying: String) {
        #expect {
            try EntryFilters.time(text, on: day)
        } throws: { error in
            (error as? InspectorFailure)?.message.contains(saying) == true
        }
    }

    @Test("--since takes a span's first instant, --until its last, and an --until before the --since is refused")
    func bounds() throws {
        let start = second * 1_000_000_000
        let bounds = try EntryFilters.times(since: "2026-11-21T22:37:55Z", until: "2026-11-21T22:37:55Z") { day }
        #expect(bounds.since == start && bounds.until == start + 999_999_999)
        #expect(try EntryFilters.times(since: nil, until: nil) { day } == (nil, nil))
        #expect {
            try EntryFilters.times(since: "2026-11-21T22:37:56Z", until: "2026-11-21T22:37:55.999Z") { day }
        } throws: { error in
            (error as? InspectorFailure)?.message == "--until 2026-11-21T22:37:55.999Z is before --since 2026-11-21T22:37:56Z: give the earlier time to --since."
        }
    }
}

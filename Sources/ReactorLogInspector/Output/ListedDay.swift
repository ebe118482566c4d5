import Foundation

/// The local day of the entry a listing printed last, to mark where the listing crosses into another day.
final class ListedDay {
    /// The second of the last entry seen, and its day (days since 1970, local time).
    private var last: (second: Int64, day: Int64)?

    /// The date (`2026-12-09`, local time) of an entry written at `nanoseconds` since 1970, when the entry before it was
    /// written on another day; `nil` for the first entry and for one on the same day. Entries that share a second
    /// share a day, and are told apart without a look at the time zone.
    func dayChange(at nanoseconds: Int64) -> String? {
        var (second, fraction) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        if fraction < 0 { second -= 1 }
        if let last, last.second == second { return nil }
        let offset = Int64(TimeZone.current.secondsFromGMT(for: Date(timeIntervalSince1970: Double(second))))
        var (day, secondOfDay) = (second + offset).quotientAndRemainder(dividingBy: 86_400)
        if secondOfDay < 0 { day -= 1 }
        defer { last = (second, day) }
        guard let last, last.day != day else { return nil }
        return String(ClockTime.dateTime(nanoseconds: nanoseconds).prefix(10))
    }
}

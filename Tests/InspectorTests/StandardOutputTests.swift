import Foundation
@testable import ReactorLogInspector
import TestSupport
import Testing

/// What the inspector writes to standard output: in order with standard error, and its columns made as before
/// without ICU or Foundation's padding on each line.
@Suite("reactorlog standard output", .timeLimit(.minutes(2)))
struct StandardOutputTests {
    let scratch = ScratchDirectory()

    @Test("lines gathered for a pipe or a file are written before a warning, where the two outputs meet")
    func orderWithStandardError() async throws {
        let demo = try await Tool.demoLog(in: scratch)
        let both = scratch.file("both.txt")
        let reactorlog = Tool.products.appendingPathComponent("reactorlog").path
        let shell = try await Tool.run(URL(fileURLWithPath: "/bin/sh"), ["-c", #"exec "$0" export "$1" --redact pasword > "$2" 2>&1"#, reactorlog, demo, both])
        #expect(shell.status == 0, "\(shell.error)")
        let lines = try String(contentsOfFile: both, encoding: .utf8).split(separator: "\n")
        #expect(lines.count > 70)
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix("{") }, "\(lines)")
        #expect(lines.last?.hasPrefix("reactorlog: warning: --redact 'pasword' matched no key") == true, "\(lines.suffix(2))")
    }

    @Test("an entry's time is the millisecond it falls in, as DateFormatter writes it, before 1970 and far ahead too")
    func clockTimeIsItsMillisecond() {
        func formatter(_ format: String) -> DateFormatter {
            let formatter = DateFormatter()
            formatter.dateFormat = format
            formatter.locale = Locale(identifier: "en_US_POSIX")
            return formatter
        }
        let time = formatter("HH:mm:ss.SSS"), dateTime = formatter("yyyy-MM-dd HH:mm:ss.SSS")
        // Nanoseconds since 1970: the edges of a second and of a millisecond, then a spread drawn from a fixed seed.
        var stamps: [Int64] = [0, -1, 1, 999_999_999, 999_499_999, 999_500_000, 999_000_000, 998_999_999, -999_500_000, -500_000, 499_999, .max, .min]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for index in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let spread = Int64(bitPattern: state)
            // A third anywhere an Int64 reaches (years 1677 to 2262), the rest in this century, whole microseconds half of them.
            let stamp = index % 3 == 0 ? spread : 1_700_000_000_000_000_000 + spread % 100_000_000_000_000_000
            stamps.append(index % 2 == 0 ? stamp / 1000 * 1000 : stamp)
        }
        for stamp in stamps {
            // The millisecond the stamp falls in, rounded down; its start given to the formatter, which rounds to the
            // nearest millisecond, so a double's error there does not move it.
            let (second, fraction) = stamp.quotientAndRemainder(dividingBy: 1_000_000_000)
            let (whole, millisecond) = fraction < 0 ? (second - 1, (fraction + 1_000_000_000) / 1_000_000) : (second, fraction / 1_000_000)
            let start = Date(timeIntervalSince1970: Double(whole) + Double(millisecond) / 1000)
            #expect(ClockTime.string(nanoseconds: stamp) == time.string(from: start), "\(stamp)")
            #expect(ClockTime.dateTime(nanoseconds: stamp) == dateTime.string(from: start), "\(stamp)")
        }
        // Not rounded to the nearest: 0.9995 s is still in the second before 00:00:01.
        let utc = TimeZone(identifier: "UTC")
        if TimeZone.current == utc { #expect(ClockTime.string(nanoseconds: 999_500_000) == "00:00:00.999") }
    }

    @Test("a column is padded by the columns a terminal shows, so a name with an emoji is shown whole and lines up")
    func paddingCountsColumns() {
        #expect(Table.render([["🚀x", "1"], ["abc", "2"]]) == ["🚀x  1", "abc  2"])
        #expect("#7".padded(to: 4) == "#7  ")
        #expect("#12345".padded(to: 4) == "#12345")
    }
}

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

    @Test("an entry's time of day is DateFormatter's HH:mm:ss.SSS, rounded alike, before 1970 and far ahead too")
    func clockTimeMatchesDateFormatter() {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss.SSS"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        // Nanoseconds since 1970: the edges of a second and of rounding, then a spread drawn from a fixed seed.
        var stamps: [Int64] = [0, -1, 1, 999_999_999, 999_499_999, 999_500_000, -999_500_000, -500_000, 499_999, .max, .min]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for index in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let spread = Int64(bitPattern: state)
            // A third anywhere an Int64 reaches (years 1677 to 2262), the rest in this century, whole microseconds half of them.
            let stamp = index % 3 == 0 ? spread : 1_700_000_000_000_000_000 + spread % 100_000_000_000_000_000
            stamps.append(index % 2 == 0 ? stamp / 1000 * 1000 : stamp)
        }
        for stamp in stamps {
            let date = Date(timeIntervalSince1970: Double(stamp) / 1e9)
            #expect(ClockTime.string(from: date) == formatter.string(from: date), "\(stamp)")
        }
    }

    @Test("a column is padded by characters, so a name with an emoji is shown whole")
    func paddingCountsCharacters() {
        #expect(Table.render([["🚀x", "1"], ["abc", "2"]]) == ["🚀x   1", "abc  2"])
        #expect("#7".padded(to: 4) == "#7  ")
        #expect("#12345".padded(to: 4) == "#12345")
    }
}

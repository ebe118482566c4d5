import Foundation
import Testing

/// The benchmark is judged by its own runs, not by tests; this only checks that it still runs and reports
/// every section (tiny sizes, so the figures themselves mean nothing here).
@Suite("reactorlog-bench", .timeLimit(.minutes(2)))
struct BenchmarkSmokeTests {
    @Test("a tiny run reports a positive figure in each of the eleven sections (0, the codecs, to 10), as JSON")
    func tinyRun() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("reactorlog-bench")
        process.arguments = ["--actions", "300", "--sync-budget", "0.05", "--json"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let figures = try #require(report["figures"] as? [[String: Any]])
        let sections = Set(figures.compactMap { ($0["section"] as? String)?.split(separator: ".").first.map(String.init) })
        #expect(sections == Set((0...10).map(String.init)))
        #expect(figures.allSatisfy { ($0["value"] as? Double ?? -1) >= 0 })
        #expect((report["machine"] as? [String: Any])?["cores"] as? Int ?? 0 > 0)
    }
}

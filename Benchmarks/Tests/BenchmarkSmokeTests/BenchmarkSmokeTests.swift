import EventLogKit
import Foundation
import Testing

/// The benchmark is judged by its own runs, not by tests; this only checks that it still runs and reports
/// every section (tiny sizes, so the figures themselves mean nothing here).
@Suite("reactorlog-bench", .timeLimit(.minutes(2)))
struct BenchmarkSmokeTests {
    @Test("a tiny run reports a positive figure in each of the eleven sections (0, the codecs, to 10), as JSON, and the paired logging cost of the rounds asked for, over one stream and over a thousand")
    func tinyRun() throws {
        let (status, data, _) = try Self.bench(["--actions", "300", "--sync-budget", "0.05", "--rounds", "3", "--json"])
        #expect(status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let figures = try #require(report["figures"] as? [[String: Any]])
        let sections = Set(figures.compactMap { ($0["section"] as? String)?.split(separator: ".").first.map(String.init) })
        #expect(sections == Set((0...10).map(String.init)))
        #expect(figures.allSatisfy { ($0["value"] as? Double ?? -1) >= 0 })
        let machine = try #require(report["machine"] as? [String: Any])
        #expect(machine["cores"] as? Int ?? 0 > 0)
        // When the executable was linked, so that a run recorded from a stale build shows it: a time before the run's.
        let formatter = ISO8601DateFormatter()
        let built = try #require((machine["built"] as? String).flatMap(formatter.date(from:)))
        let date = try #require((machine["date"] as? String).flatMap(formatter.date(from:)))
        #expect(built <= date)

        // The paired logging-cost figure: three rounds, their median between their lowest and highest.
        func rate(_ which: String) -> Double? {
            figures.first { $0["name"] as? String == "logged ÷ in-memory rate, grouped, \(which) of 3 rounds" }?["value"] as? Double
        }
        let lowest = try #require(rate("lowest")), median = try #require(rate("median")), highest = try #require(rate("highest"))
        #expect(lowest > 0 && lowest <= median && median <= highest)
        // And the same rounds' median over a thousand streams, as a ratio to one stream's.
        let manyStreams = figures.first { $0["name"] as? String == "logged ÷ in-memory rate, grouped, 1000 streams, median of 3 rounds" }
        #expect(manyStreams?["value"] as? Double ?? 0 > 0)
        #expect(manyStreams?["baseline"] as? String == "logged ÷ in-memory rate, grouped, median of 3 rounds")
        // Replay of every stream of a log of a thousand, as a ratio to one stream's.
        let manyReplay = figures.first { $0["name"] as? String == "replay: every stream of 1000, one after another" }
        #expect(manyReplay?["value"] as? Double ?? 0 > 0)
        #expect(manyReplay?["baseline"] as? String == "replay: decode + reduce every mutation")
        // Beside it, the cores' round trip the host moves (none on a single core).
        let roundTrip = figures.first { $0["name"] as? String == "core-to-core round trip before each round, median" }?["value"] as? Double
        if ProcessInfo.processInfo.activeProcessorCount > 1 { #expect(roundTrip ?? 0 > 0) }
        // And what the host allows a writer busy on the other core: the in-memory rate beside a spinning core, and the
        // logged rate as a ratio to it (neither on a single core).
        func value(_ name: String) -> Double? { figures.first { $0["name"] as? String == name }?["value"] as? Double }
        let busyCore = value("in memory beside a busy core ÷ alone, median of 3 rounds")
        let besideBusyCore = value("logged ÷ in memory beside a busy core, median of 3 rounds")
        if ProcessInfo.processInfo.activeProcessorCount > 1 {
            #expect(busyCore ?? 0 > 0)
            #expect(besideBusyCore ?? 0 > 0)
        }
    }

    @Test("the rate probe prints the logged rate of each round")
    func rateProbe() throws {
        let (status, data, _) = try Self.bench(["rate", "--actions", "200", "--rounds", "2"])
        #expect(status == 0)
        let rates = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            line.split(separator: ", rate ").last?.split(separator: " ").first.flatMap { Double($0) }
        }
        #expect(rates.count == 2)
        #expect(rates.allSatisfy { $0 > 0 })
        // Each round also times the in-memory sends beside a busy core, on more than one processor.
        let busyCore = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            line.split(separator: ", in memory beside a busy core ").last.flatMap { Double($0) }
        }
        if ProcessInfo.processInfo.activeProcessorCount > 1 { #expect(busyCore.count == 2 && busyCore.allSatisfy { $0 > 0 }) }
    }

    @Test(
        "on one usable processor (taskset) the rate probe leaves the cores' round trip and the busy core out instead of spinning for minutes",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset"), "needs util-linux's taskset"))
    func rateProbeOnOneProcessor() throws {
        let (status, data, _) = try Self.bench(["rate", "--actions", "200", "--rounds", "1"], onProcessors: "0")
        #expect(status == 0)
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("round 1:") }
        #expect(line?.contains(", rate ") == true, "\(String(describing: line))")
        #expect(line?.contains("core round trip") == false, "\(String(describing: line))")
        #expect(line?.contains("busy core") == false, "\(String(describing: line))")
    }

    @Test("the record probe writes the workload to a new log, and never to a path that exists")
    func recordProbe() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (status, _, _) = try Self.bench(["record", directory + "/new.reactorlog", "--actions", "100"])
        #expect(status == 0)
        let log = try EventLog.openReadOnly(at: directory + "/new.reactorlog")
        // 100 actions, each with one to three mutations.
        #expect(try log.highestSequence() > 200)

        let (refused, _, errors) = try Self.bench(["record", directory, "--actions", "100"])
        #expect(refused != 0)
        #expect(String(decoding: errors, as: UTF8.self).contains("already exists"))
    }

    @Test("the blame probe blames a recorded log and reports the heap its changes hold, finds the latest changes, and names a missing log")
    func blameProbe() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = directory + "/blamed.reactorlog"
        #expect(try Self.bench(["record", log, "--actions", "100"]).0 == 0)
        let (status, data, _) = try Self.bench(["blame", log])
        #expect(status == 0)
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        // 100 actions: 25 queries (2 mutations each), 50 pages (3 each), 25 stars (1); each query and page moves nextPage.
        #expect(lines.first?.contains("over 225 mutations") == true)
        #expect(lines.first?.hasSuffix(", 75 changes") == true)
        #expect(lines.contains { $0.hasPrefix("heap a change: ") && $0.hasSuffix(" bytes") })
        let (latestStatus, latest, _) = try Self.bench(["blame", log, "--latest", "5"])
        #expect(latestStatus == 0)
        let line = String(decoding: latest, as: UTF8.self)
        #expect(line.hasPrefix("the latest 5 of the changes of nextPage over 225 mutations: ") && line.contains(", 5 found, "), "\(line)")

        try Self.expectRefusesMissingLog("blame", in: directory)
    }

    @Test("the bisect probe finds the planted bug of a recorded log, and names a missing log")
    func bisectProbe() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = directory + "/planted.reactorlog"
        #expect(try Self.bench(["record", log, "--actions", "100", "--planted-bug"]).0 == 0)
        let (status, data, _) = try Self.bench(["bisect", log, "--runs", "3"])
        #expect(status == 0)
        let line = String(decoding: data, as: UTF8.self)
        #expect(line.contains("3 runs: median "), "\(line)")
        #expect(line.contains("first bad #") && !line.contains("first bad none"), "\(line)")

        try Self.expectRefusesMissingLog("bisect", in: directory)
    }

    @Test("the replay probe replays every mutation of a recorded log, and names a missing log")
    func replayProbe() throws {
        let directory = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = directory + "/replayed.reactorlog"
        #expect(try Self.bench(["record", log, "--actions", "100"]).0 == 0)
        let (status, data, _) = try Self.bench(["replay", log, "--runs", "3"])
        #expect(status == 0)
        let line = String(decoding: data, as: UTF8.self)
        // The workload makes 2.25 mutations an action (750,002 for the full run's 333,334 actions).
        #expect(line.hasPrefix("replay of 225 mutations, 3 runs: median "), "\(line)")

        // One stream of a log of many, and a stream the log does not have.
        let many = directory + "/streams.reactorlog"
        #expect(try Self.bench(["record", many, "--actions", "100", "--streams", "10"]).0 == 0)
        let (oneOfMany, replayed, _) = try Self.bench(["replay", many, "--runs", "1", "--stream", "search-3"])
        #expect(oneOfMany == 0)
        #expect(String(decoding: replayed, as: UTF8.self).hasPrefix("replay of "), "\(String(decoding: replayed, as: UTF8.self))")
        let (absent, _, errors) = try Self.bench(["replay", many, "--stream", "search"])
        #expect(absent != 0)
        #expect(String(decoding: errors, as: UTF8.self).contains("Stream \"search\" of \(many) has no mutation to replay."))

        try Self.expectRefusesMissingLog("replay", in: directory)
    }

    /// Runs `probe` on a log that does not exist in `directory`: it must fail, naming the missing log.
    private static func expectRefusesMissingLog(
        _ probe: String, in directory: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (refused, _, errors) = try bench([probe, directory + "/missing.reactorlog"])
        #expect(refused != 0, sourceLocation: sourceLocation)
        #expect(String(decoding: errors, as: UTF8.self).contains("No log at"), sourceLocation: sourceLocation)
    }

    /// A new, empty directory for a test's logs; the test removes it.
    private static func scratchDirectory() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-smoke-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Runs the benchmark built beside this test bundle with `arguments`, on the processors `taskset` lists when
    /// given: its exit status, output and error output.
    private static func bench(_ arguments: [String], onProcessors processors: String? = nil) throws -> (Int32, Data, Data) {
        let process = Process()
        let bench = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("reactorlog-bench")
        if let processors {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            process.arguments = ["-c", processors, bench.path] + arguments
        } else {
            process.executableURL = bench
            process.arguments = arguments
        }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data, errorData)
    }
}

import ArgumentParser
import EventLogKit
import Foundation
import ReactorLogPersistence
import TimeTravel

/// `reactorlog-bench blame`: blame over a log the `record` probe wrote, and what it held in memory: the program to
/// measure blame's footprint with, and to profile it (`perf record -g`, callgrind).
struct Blame: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Blame a state path over a recorded log, with its time and memory.")

    @Argument(help: "A log the record probe wrote.")
    var path: String

    @Option(name: .long, help: "The state path to blame.")
    var statePath = "nextPage"

    @Option(name: .long, help: "Blame over the stream's last N mutations only, as the full run does (default: all of them).")
    var last: Int?

    func validate() throws {
        if let last { guard last > 0 else { throw ValidationError("--last must be at least 1.") } }
        guard FileManager.default.fileExists(atPath: path) else {
            throw ValidationError("No log at \(path); write one with `reactorlog-bench record \(path)`.")
        }
    }

    func run() throws {
        let log = try EventLog.openReadOnly(at: path)
        let machine = try TimeMachine(log: log, stream: "search", replayer: ReactorReplayer { BenchReactor() })
        let watched = try StatePath(parsing: statePath)
        let steps = try log.sequences(stream: "search", kinds: [.mutation])
        let mutations = min(steps.count, last ?? steps.count)
        let start = steps.isEmpty ? 1 : steps[steps.count - mutations]
        let before = Resident.now()
        var changes: [BlameEntry] = []
        let seconds = try Measure.seconds { changes = try machine.blame(watched, from: start, through: .max) }
        let held = Resident.now()
        print("blame of \(statePath) over \(mutations) mutations: \(String(format: "%.3f", seconds)) s, \(changes.count) changes")
        print("heap before \(Self.megabytes(before.anonymous)), with the changes \(Self.megabytes(held.anonymous)); "
            + "the log's pages \(Self.megabytes(held.file)); peak resident \(Self.megabytes(held.peak))")
        if !changes.isEmpty {
            print("heap a change: \((held.anonymous - before.anonymous) / changes.count) bytes")
        }
        withExtendedLifetime(changes) {}
    }

    private static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }

    /// The process's resident memory, from `/proc/self/status`: its heap and stacks (anonymous), the files it maps
    /// (the log), and the peak of both together so far.
    struct Resident {
        var anonymous = 0, file = 0, peak = 0

        static func now() -> Resident {
            var resident = Resident()
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return resident }
            for line in status.split(separator: "\n") {
                let fields = line.split { $0 == " " || $0 == "\t" }
                guard fields.count >= 2, let kilobytes = Int(fields[1]) else { continue }
                switch fields[0] {
                case "RssAnon:": resident.anonymous = kilobytes * 1024
                case "RssFile:": resident.file = kilobytes * 1024
                case "VmHWM:": resident.peak = kilobytes * 1024
                default: break
                }
            }
            return resident
        }
    }
}

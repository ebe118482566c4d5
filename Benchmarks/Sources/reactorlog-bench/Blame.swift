import ArgumentParser
import EventLogKit
import Foundation
import ReactorLogPersistence
import TimeTravel

/// `reactorlog-bench blame`: blame over a log the `record` probe wrote, and what it held in memory (private pages
/// apart from the log's file-backed ones, ``Measure``): the program to measure blame's footprint with, and to profile
/// it (`perf record -g`, callgrind).
struct Blame: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Blame a state path over a recorded log, with its time and memory.")

    @Argument(help: "A log the record probe wrote.")
    var path: String

    @Option(name: .long, help: "The state path to blame.")
    var statePath = "nextPage"

    @Option(name: .long, help: "Blame over the stream's last N mutations only, as the full run does (default: all of them).")
    var last: Int?

    @Option(name: .long, help: "Find only the latest N changes, walking back from the end (TimeMachine.lastChanges).")
    var latest: Int?

    func validate() throws {
        if let last { guard last > 0 else { throw ValidationError("--last must be at least 1.") } }
        if let latest { guard latest > 0 else { throw ValidationError("--latest must be at least 1.") } }
        try Record.requireLog(at: path)
    }

    func run() throws {
        let log = try EventLog.openReadOnly(at: path)
        let machine = try TimeMachine(log: log, stream: "search", replayer: ReactorReplayer { BenchReactor() })
        let watched = try StatePath(parsing: statePath)
        let steps = try log.sequences(stream: "search", kinds: [.mutation])
        let mutations = min(steps.count, last ?? steps.count)
        let start = steps.isEmpty ? 1 : steps[steps.count - mutations]
        let before = Measure.privateResidentBytes
        var changes: [BlameEntry] = []
        if let latest {
            let seconds = try Measure.seconds { changes = try machine.lastChanges(of: watched, count: latest, from: start) }
            let first = changes.first.map { "#\($0.mutation.sequence)" } ?? "none"
            print("the latest \(latest) of the changes of \(statePath) over \(mutations) mutations: \(String(format: "%.6f", seconds)) s, "
                + "\(changes.count) found, the earliest \(first), \(machine.reconstructions) states rebuilt")
            return
        }
        let seconds = try Measure.seconds { changes = try machine.blame(watched, from: start, through: .max) }
        let held = Measure.privateResidentBytes
        print("blame of \(statePath) over \(mutations) mutations: \(String(format: "%.3f", seconds)) s, \(changes.count) changes")
        print("heap before \(Self.megabytes(before)), with the changes \(Self.megabytes(held)); "
            + "the log's pages \(Self.megabytes(Measure.sharedResidentBytes)); peak resident \(Self.megabytes(Measure.peakResidentBytes))")
        if !changes.isEmpty {
            print("heap a change: \((held - before) / changes.count) bytes")
        }
        withExtendedLifetime(changes) {}
    }

    private static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }

}

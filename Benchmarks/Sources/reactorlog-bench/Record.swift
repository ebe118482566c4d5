import ArgumentParser
import EventLogKit
import Foundation
import ReactorLogPersistence

/// `reactorlog-bench record`: the workload recorded to a log and nothing else, the program to run under callgrind
/// (`valgrind --tool=callgrind --separate-threads=yes`: one file for the sending thread, one for the writer's).
struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record the workload to a new log, for profiling.")

    @Argument(help: "Where to create the log; nothing may exist there yet.")
    var path: String

    @Option(name: .long, help: "Actions to send.")
    var actions = 30_000

    @Flag(name: .long, help: "Encode through Codable instead of the workload's hand-written binary conformances.")
    var codable = false

    @Option(name: .long, help: """
        Streams to record into, one reactor each, the actions sent to them in turn (a server with a reactor per \
        session).
        """)
    var streams = 1

    @Flag(name: .long, help: """
        Plant the full run's bug: the state is corrupted from mutation number --actions on (about halfway), for the \
        bisect probe.
        """)
    var plantedBug = false

    @Option(name: .long, help: """
        Send at most this many actions a second, as a server under a steady load does (default: as fast as they go).
        """)
    var perSecond: Int?

    @Option(name: .long, help: "The log's commit interval in milliseconds (EventLogConfiguration.commitInterval).")
    var commitIntervalMs = 0

    func validate() throws {
        guard actions > 0 else { throw ValidationError("--actions must be at least 1.") }
        guard streams > 0 else { throw ValidationError("--streams must be at least 1.") }
        guard perSecond.map({ $0 > 0 }) ?? true else { throw ValidationError("--per-second must be at least 1.") }
        guard !FileManager.default.fileExists(atPath: path) else {
            throw ValidationError("\(path) already exists; record into a new path, so no log is ever overwritten.")
        }
    }

    /// Refuses a probe's `path` when no log is there, naming the command that writes one.
    static func requireLog(at path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ValidationError("No log at \(path); write one with `reactorlog-bench record \(path)`.")
        }
    }

    func run() throws {
        var configuration = EventLogConfiguration()
        configuration.codec = BinaryLogCodec(directCoding: !codable)
        configuration.commitInterval = .milliseconds(commitIntervalMs)
        let log = try EventLog.open(at: path, configuration: configuration)
        let reactors = (0..<streams).map { _ in BenchReactor(bugAtMutation: plantedBug ? actions : nil) }
        try LoggingRound.attach(reactors, to: log)
        let writtenBefore = Measure.storageBytesWritten
        let seconds = try Measure.seconds {
            // Paced, a millisecond's actions at a time, each batch waiting for its moment; else all at once.
            let start = ContinuousClock.now, batch = perSecond.map { max(1, $0 / 1_000) } ?? actions
            for first in stride(from: 0, to: actions, by: batch) {
                if let perSecond {
                    Thread.sleep(until: Date.now + (start + .seconds(Double(first) / Double(perSecond)) - .now).seconds)
                }
                LoggingRound.send(first..<min(first + batch, actions), to: reactors)
            }
            try log.flush()
        }
        withExtendedLifetime(reactors) {}
        try log.close()
        let size = (try? FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.size] as? Int) ?? 0
        let written = if let before = writtenBefore, let after = Measure.storageBytesWritten {
            ", \((after - before) / 1024) KiB written to storage"
        } else {
            ""
        }
        print("recorded \(actions) actions to \(path) in \(String(format: "%.3f", seconds)) s (\(streams) stream\(streams == 1 ? "" : "s"), data file \(size / 1024) KiB\(written))")
    }
}

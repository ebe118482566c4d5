import ArgumentParser
import EventLogKit
import Foundation
import ReactorLogPersistence

/// `reactorlog-bench rate`: the logged action rate alone (the workload sent in memory, then to a log), round after
/// round in one process. For comparing two builds run alternately (`Tools/scripts/ab-rate.sh`), where one full run
/// per build says little on a shared machine, and for profiling the sending thread.
struct Rate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the logged action rate ÷ the in-memory one, round after round.")

    @Option(name: .long, help: "Actions a round.")
    var actions = 333_334

    @Option(name: .long, help: "Rounds, each in memory and then logged.")
    var rounds = 3

    @Option(name: .long, help: "The log's durability: grouped, sync or nosync.")
    var durability: Durability = .grouped

    @Flag(name: .long, help: "Encode through Codable instead of the workload's hand-written binary conformances.")
    var codable = false

    @Flag(name: .long, help: "Skip the in-memory sends (to profile the logged ones alone); no rate is printed.")
    var loggedOnly = false

    @Option(name: .long, help: "Where to write each round's log (default: a new temporary directory, removed at the end).")
    var directory: String?

    func validate() throws {
        guard actions > 0, rounds > 0 else { throw ValidationError("--actions and --rounds must be at least 1.") }
    }

    func run() throws {
        let scratch = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("reactorlog-rate-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { if directory == nil { try? FileManager.default.removeItem(atPath: scratch) } }
        for round in 1...rounds {
            var memory: Double?
            if !loggedOnly {
                let reactor = BenchReactor()
                memory = Measure.seconds { for index in 0..<actions { reactor.send(BenchReactor.action(index)) } }
            }
            let logged = try sendLogged(to: scratch + "/round-\(round).reactorlog")
            var line = "round \(round): logged \(Self.format(logged.send)) s + flush \(Self.format(logged.flush)) s"
            if let memory {
                // The rate counts the final flush, as the benchmark's does; the sends alone leave out what a sync at the
                // end costs (in `nosync`, everything written).
                line = "round \(round): in memory \(Self.format(memory)) s, logged \(Self.format(logged.send)) s + flush "
                    + "\(Self.format(logged.flush)) s, rate \(String(format: "%.3f", memory / (logged.send + logged.flush)))"
                    + " (sends alone \(String(format: "%.3f", memory / logged.send)))"
            }
            print(line)
        }
    }

    /// Sends the workload to a new log at `path` (attached before the timing, as the in-memory reactor is made
    /// before it); returns the sends' seconds and the final flush's. The log is removed afterwards.
    private func sendLogged(to path: String) throws -> (send: Double, flush: Double) {
        var configuration = EventLogConfiguration(durability: durability)
        configuration.codec = BinaryLogCodec(directCoding: !codable)
        let log = try EventLog.open(at: path, configuration: configuration)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reactor = BenchReactor()
        try reactor.attach(to: log, stream: "search")
        let send = Measure.seconds { for index in 0..<actions { reactor.send(BenchReactor.action(index)) } }
        let flush = try Measure.seconds { try log.flush() }
        withExtendedLifetime(reactor) {}
        try log.close()
        return (send, flush)
    }

    private static func format(_ seconds: Double) -> String { String(format: "%.4f", seconds) }
}

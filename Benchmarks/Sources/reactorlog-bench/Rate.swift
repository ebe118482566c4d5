import ArgumentParser
import EventLogKit
import Foundation
import ReactorLogPersistence

/// `reactorlog-bench rate`: the logged action rate alone (the workload sent in memory, then to a log), round after
/// round in one process. For comparing two builds run alternately (`Tools/scripts/ab-rate.sh`), where one full run
/// per build says little on a shared machine, and for profiling the sending thread. Each round's line ends with what
/// the host does to it: the cores' round trip (``CoreRoundTrip``) and the in-memory rate beside a busy core
/// (``BusyCore``).
struct Rate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the logged action rate ÷ the in-memory one, round after round.",
        discussion: """
            Each round also prints the cores' round trip and the in-memory rate with another core spinning ÷ \
            alone: below 1, the host's cores are not independent, and a writer busy through the sends costs the \
            sender up to that much whatever it shares with it.
            """)

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

    @Option(name: .long, help: """
        Reactors the actions are sent to in turn, in memory and logged, each logged one to a stream of its own (a \
        server with a reactor per session).
        """)
    var streams = 1

    @Option(name: .long, help: "Where to write each round's log (default: a new temporary directory, removed at the end).")
    var directory: String?

    func validate() throws {
        guard actions > 0, rounds > 0, streams > 0 else {
            throw ValidationError("--actions, --rounds and --streams must be at least 1.")
        }
    }

    func run() throws {
        let scratch = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("reactorlog-rate-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { if directory == nil { try? FileManager.default.removeItem(atPath: scratch) } }
        for number in 1...rounds {
            let roundTrip = CoreRoundTrip.measure()
            let round = try LoggingRound.measure(
                actions: actions, path: scratch + "/round-\(number).reactorlog", durability: durability,
                codec: BinaryLogCodec(directCoding: !codable), loggedOnly: loggedOnly, streams: streams)
            var line = "round \(number): logged \(Self.format(round.send)) s + flush \(Self.format(round.flush)) s"
            if let memory = round.memory, let rate = round.rate, let sendsAlone = round.sendsAlone {
                line = "round \(number): in memory \(Self.format(memory)) s, logged \(Self.format(round.send)) s + flush "
                    + "\(Self.format(round.flush)) s, rate \(String(format: "%.3f", rate))"
                    + " (sends alone \(String(format: "%.3f", sendsAlone)))"
            }
            if let roundTrip { line += ", core round trip \(Int(roundTrip.rounded())) ns" }
            if let busyCore = round.busyCoreRate { line += ", in memory beside a busy core \(String(format: "%.3f", busyCore))" }
            print(line)
        }
    }

    private static func format(_ seconds: Double) -> String { String(format: "%.4f", seconds) }
}

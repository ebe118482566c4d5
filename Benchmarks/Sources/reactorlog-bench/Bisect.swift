import ArgumentParser
import EventLogKit
import Foundation
import ReactorLogPersistence
import TimeTravel

/// `reactorlog-bench bisect`: bisect over a log the `record` probe wrote with its planted bug (`--planted-bug`: the
/// state is corrupted from mutation number `actions` on, about halfway, as in the full run), run again and again:
/// the full run's bisect figure is one run of a few milliseconds, too short to compare two builds by. Also the
/// program to profile bisect with.
struct Bisect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bisect a planted bug over a recorded log, many times: the time's median, the probes and states.")

    @Argument(help: "A log the record probe wrote with --planted-bug.")
    var path: String

    @Option(name: .long, help: "How many bisects to time.")
    var runs = 50

    func validate() throws {
        guard runs > 0 else { throw ValidationError("--runs must be at least 1.") }
        try Record.requireLog(at: path)
    }

    func run() throws {
        let log = try EventLog.openReadOnly(at: path)
        let actions = try log.statistics(stream: "search").kinds[.action] ?? 0
        let machine = try TimeMachine(log: log, stream: "search", replayer: ReactorReplayer { BenchReactor(bugAtMutation: actions) })
        var samples: [Double] = []
        var result: BisectResult?
        for _ in 0..<runs {
            samples.append(try Measure.seconds {
                result = try machine.bisect { state, _ in state.corrupted ? .bad : .good }
            } * 1000)
        }
        let found = result?.firstBad.map { "#\($0)" } ?? "none"
        print("bisect over \(try log.highestSequence()) entries, \(runs) runs: \(Measure.spread(samples, Self.ms)); "
            + "first bad \(found), \(result?.probes.count ?? 0) probes, \(result?.reconstructions ?? 0) states rebuilt")
    }

    private static func ms(_ value: Double) -> String { String(format: "%.2f ms", value) }
}

import ArgumentParser
import EventLogKit
import Foundation
import ReactorLogPersistence

/// `reactorlog-bench replay`: the full run's replay (every mutation of the stream decoded where it lies in the map
/// and reduced) over a log the `record` probe wrote, run again and again: the full run times it once, a fraction of a
/// second on a shared host, too short to compare two builds by. Also the program to profile replay with.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a recorded log's mutations many times: the rate's median.")

    @Argument(help: "A log the record probe wrote.")
    var path: String

    @Option(name: .long, help: "How many replays to time.")
    var runs = 20

    @Option(name: .long, help: "The stream to replay: \"search-N\" in a log recorded with --streams.")
    var stream = "search"

    func validate() throws {
        guard runs > 0 else { throw ValidationError("--runs must be at least 1.") }
        try Record.requireLog(at: path)
    }

    func run() throws {
        let log = try EventLog.openReadOnly(at: path)
        let reactor = BenchReactor(bugAtMutation: nil)
        var rates: [Double] = []
        var mutations = 0
        for _ in 0..<runs {
            let seconds = try Measure.seconds { mutations = try Self.replay(log, stream: stream, with: reactor) }
            rates.append(Double(mutations) / seconds)
        }
        guard mutations > 0 else { throw ValidationError("Stream \"\(stream)\" of \(path) has no mutation to replay.") }
        print("replay of \(mutations) mutations, \(runs) runs: \(Measure.spread(rates, Self.rate))")
    }

    /// Replays `stream` of `log` through `reactor`: each mutation decoded where it lies in the map and reduced into the
    /// state in place, as time travel replays (`Replayer.replay(_:into:recordedWith:log:)`). Returns how many it replayed.
    static func replay(_ log: EventLog, stream: String = "search", with reactor: BenchReactor) throws -> Int {
        var state = reactor.initialState
        var mutations = 0
        try log.forEachEntry(EntryQuery(stream: stream, kinds: [.mutation])) { entry in
            let mutation = try entry.codec.decode(BenchReactor.Mutation.self, from: entry.payload)
            reduce(&state, mutation, with: reactor)
            mutations += 1
        }
        withExtendedLifetime(state) {}
        return mutations
    }

    /// `state` after `mutation`. Through `inout` the closure's captured state goes to `reduce` where it lies; assigned
    /// from the call it was passed to, it was copied first and the copy destroyed after (160 instructions a mutation).
    private static func reduce(_ state: inout BenchReactor.State, _ mutation: BenchReactor.Mutation, with reactor: BenchReactor) {
        state = reactor.reduce(state: state, mutation: mutation)
    }

    private static func rate(_ value: Double) -> String { String(format: "%.2fM mutations/s", value / 1e6) }
}

import ArgumentParser
import Foundation

/// `reactorlog-bench [all]`: every figure, each printed with its ratio to a baseline measured in the same run.
struct FullRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "all",
        abstract: "Measure every figure of docs/PERFORMANCE.md in one run.")

    @Option(name: .long, help: "Actions in the main session (each gives 1 action + 2 mutations on average; 333,334 ≈ 1M entries).")
    var actions = 333_334

    @Flag(name: .long, help: "10M entries for the time-travel and bisect figures (about 10 times longer).")
    var large = false

    @Option(name: .long, help: "Seconds for the cases that sync to disk one entry at a time.")
    var syncBudget = 2.0

    @Option(name: .long, help: "Rounds of the paired logging-cost figure (the workload in memory, then logged).")
    var rounds = 5

    @Option(name: .long, help: "Where to write the logs (default: a new temporary directory, removed at the end).")
    var directory: String?

    @Flag(name: .long, help: "Print the figures as JSON.")
    var json = false

    func validate() throws {
        guard actions > 0, rounds > 0 else { throw ValidationError("--actions and --rounds must be at least 1.") }
    }

    func run() async throws {
        let scratch = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("reactorlog-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { if directory == nil { try? FileManager.default.removeItem(atPath: scratch) } }
        let count = large ? actions * 10 : actions
        let report = Report()
        let workload = Workload(actions: count, scratch: scratch, syncBudget: syncBudget, rounds: rounds, report: report)
        try await workload.run()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(Output(machine: Machine.current, actions: count, figures: report.figures)), as: UTF8.self))
        } else {
            print("reactorlog-bench: \(count) actions, \(Machine.current.description)")
            report.printTable()
        }
    }

    struct Output: Codable {
        let machine: Machine
        let actions: Int
        let figures: [Figure]
    }
}

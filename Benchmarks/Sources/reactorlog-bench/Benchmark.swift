import ArgumentParser
import Dispatch

/// `reactorlog-bench`: every figure of docs/PERFORMANCE.md, measured in one run on one workload (``FullRun``, what
/// it does when given no subcommand), and probes of one figure for profiling and for comparing two builds
/// (``Rate``, ``Record``, ``Blame``).
struct Benchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reactorlog-bench",
        abstract: "Measure ReactorLog against the storage ceiling and what users would pick instead.",
        discussion: "Run it in release: swift run -c release reactorlog-bench. Figures are ratios first: the machine is shared.",
        subcommands: [FullRun.self, Rate.self, Record.self, Replay.self, Blame.self, Bisect.self],
        defaultSubcommand: FullRun.self)
}

/// Runs the probes, which are synchronous, on the main thread itself; only the full run goes through an asynchronous
/// main. Under one, the main thread parks in `sigsuspend` (`dispatchMain()`), which valgrind 3.19 cannot run, so
/// `valgrind --tool=callgrind reactorlog-bench record …` crashed before the first send.
@main
enum BenchmarkMain {
    static func main() {
        do {
            var command = try Benchmark.parseAsRoot()
            guard command is AsyncParsableCommand else {
                try command.run()
                return
            }
        } catch {
            Benchmark.exit(withError: error)
        }
        Task {
            await Benchmark.main()   // parses again, runs, and exits on an error
            Benchmark.exit()
        }
        dispatchMain()
    }
}

import ArgumentParser

/// `reactorlog-bench`: every figure of docs/PERFORMANCE.md, measured in one run on one workload (``FullRun``, what
/// it does when given no subcommand), and probes of one figure for profiling and for comparing two builds
/// (``Rate``, ``Record``).
@main
struct Benchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reactorlog-bench",
        abstract: "Measure ReactorLog against the storage ceiling and what users would pick instead.",
        discussion: "Run it in release: swift run -c release reactorlog-bench. Figures are ratios first: the machine is shared.",
        subcommands: [FullRun.self, Rate.self, Record.self],
        defaultSubcommand: FullRun.self)
}

import Foundation

/// The machine the figures were measured on, and the build that measured them.
struct Machine: Codable, CustomStringConvertible {
    let cores: Int
    let memoryGiB: Double
    let date: String
    /// When the benchmark's executable was linked (its file's time), so that a run recorded from a build older than the
    /// change it is said to measure shows it: an experiment's build left at `Benchmarks/.build` after its revert once
    /// took two full runs recorded as the shipped build's (docs/PERFORMANCE.md, session 103). `nil` where the
    /// executable's file cannot be read.
    let built: String?

    static var current: Machine {
        let formatter = ISO8601DateFormatter()
        let linked = try? Bundle.main.executableURL?.resolvingSymlinksInPath()
            .resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate
        return Machine(
            cores: ProcessInfo.processInfo.activeProcessorCount,
            memoryGiB: (Double(ProcessInfo.processInfo.physicalMemory) / Double(1 << 30) * 10).rounded() / 10,
            date: formatter.string(from: Date()),
            built: linked.map(formatter.string(from:)))
    }

    var description: String { "\(cores) cores, \(memoryGiB) GiB, \(date)" + (built.map { ", built \($0)" } ?? "") }
}

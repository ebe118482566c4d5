import Foundation

/// The machine the figures were measured on.
struct Machine: Codable, CustomStringConvertible {
    let cores: Int
    let memoryGiB: Double
    let date: String

    static var current: Machine {
        let formatter = ISO8601DateFormatter()
        return Machine(
            cores: ProcessInfo.processInfo.activeProcessorCount,
            memoryGiB: (Double(ProcessInfo.processInfo.physicalMemory) / Double(1 << 30) * 10).rounded() / 10,
            date: formatter.string(from: Date()))
    }

    var description: String { "\(cores) cores, \(memoryGiB) GiB, \(date)" }
}

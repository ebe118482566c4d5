import ArgumentParser
import EventLogKit
import Foundation

/// `reactorlog compact`.
struct Compact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a compacted copy of a log to a new directory (reclaims the space of trimmed entries).")

    @OptionGroup var log: LogArgument
    @Argument(help: "The new log's directory; must not exist.") var destination: String

    func run() async throws {
        try await inspect {
            let session = try Session.open(log.log)
            // Interrupted midway, the unfinished copy is removed, but only where the copy may write: a new path, or
            // an empty directory. Anything else the copy refuses, and nothing is touched. (Killed, it leaves a file
            // named as unfinished, never a cut-off data.mdb.)
            let existed = FileManager.default.fileExists(atPath: destination)
            let ours = !existed || (try? FileManager.default.contentsOfDirectory(atPath: destination))?.isEmpty == true
            let interrupts = Interrupts.handle { [destination] event in
                if ours, EventLog.removeUnfinishedCopy(at: destination, madeDirectory: !existed) {
                    return "compact \(event) after the copy at \(destination) was written."
                }
                return "compact \(event); \(destination) was not written."
            }
            do {
                defer { interrupts.forEach { $0.cancel() } }
                try session.log.copy(to: destination, compact: true)
            }
            let copy = try EventLog.openReadOnly(at: destination)
            try printLine("Wrote \(destination): \(Info.size(copy.sizeOnDisk)) (from \(Info.size(session.log.sizeOnDisk))).")
        }
    }
}

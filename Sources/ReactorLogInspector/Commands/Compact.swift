import ArgumentParser
import EventLogKit

/// `reactorlog compact`.
struct Compact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a compacted copy of a log to a new directory (reclaims the space of trimmed entries).")

    @OptionGroup var log: LogArgument
    @Argument(help: "The new log's directory; must not exist.") var destination: String

    func run() async throws {
        try await inspect {
            let session = try Session.open(log.log)
            try session.log.copy(to: destination, compact: true)
            let copy = try EventLog.openReadOnly(at: destination)
            try printLine("Wrote \(destination): \(Info.size(copy.sizeOnDisk)) (from \(Info.size(session.log.sizeOnDisk))).")
        }
    }
}

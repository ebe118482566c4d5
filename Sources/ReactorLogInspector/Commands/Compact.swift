import ArgumentParser
import EventLogKit
import Foundation
import Synchronization

/// `reactorlog compact`.
struct Compact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a compacted copy of a log to a new directory (reclaims the space of trimmed entries).")

    @OptionGroup var log: LogArgument
    @Argument(help: "The new log's directory; must not exist.") var destination: String

    func run() async throws {
        try await inspect(opening: log.log) { session in
            // LMDB's copy reads every page of every database, the damaged pages of the call sites too.
            if case .lastWithoutCallSites? = session.readAround?.commit {
                let name = ReactorLogInspector.commandName
                throw InspectorFailure(
                    "Cannot compact \(log.log): LMDB's copy would read the damaged pages of its call sites. `\(name) export \(log.log) FILE` and `\(name) import FILE \(destination)` copy the rest into a sound log.",
                    exit: .corrupt)
            }
            // Interrupted midway, the unfinished copy is removed, but only once the copy has claimed the destination
            // (a new path, an empty directory, or one a stopped copy left): before, nothing was written. (Killed, it
            // leaves a file named as unfinished, never a cut-off data.mdb, and the next copy there replaces it.)
            let claim = Claim()
            let interrupts = Interrupts.handle { [destination] event in
                if let made = claim.madeDirectory.withLock({ $0 }), EventLog.removeUnfinishedCopy(at: destination, madeDirectory: made) {
                    return "compact \(event) after the copy at \(destination) was written."
                }
                return "compact \(event); \(destination) was not written."
            }
            do {
                defer { interrupts.forEach { $0.cancel() } }
                try session.log.copy(to: destination, compact: true) { made in claim.madeDirectory.withLock { $0 = made } }
            } catch let error as EventLogError {
                guard let damage = error.damageOnlyWritersTripOn else { throw error }
                let name = ReactorLogInspector.commandName
                throw InspectorFailure(
                    "Cannot compact \(log.log): its \(damage), which readers pass over but LMDB's compacting copy would not. `\(name) export \(log.log) FILE` and `\(name) import FILE \(destination)` copy every entry into a sound log.",
                    exit: .corrupt)
            }
            let copy = try EventLog.openReadOnly(at: destination)
            try printLine("Wrote \(destination): \(Info.size(copy.sizeOnDisk)) (from \(Info.size(session.sizeOnDisk))).")
        }
    }
}

/// Whether a copy has claimed its destination, and whether it created the directory: what its interrupt handler,
/// on another thread, needs to know.
private final class Claim: Sendable {
    let madeDirectory = Mutex<Bool?>(nil)
}

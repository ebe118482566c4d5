import ArgumentParser
import EventLogKit
import Foundation
import TimeTravel

/// `reactorlog import`.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Build a new log from an export (JSON lines or one JSON document).",
        discussion: """
            Entries keep their sequence numbers, order, times, causes and payloads; snapshots, trim floors and the \
            snapshot policy are restored, so the new log replays exactly the states of its source. Import is all or \
            nothing: any line that is not valid UTF-8 and JSON of the export's shape, any entry whose sequence number \
            is not above the one before, and a stream the export does not carry from its start or from a state \
            refuse the whole file, naming the line. The log is built in a private directory beside LOG and moved into place \
            only when the import succeeds; a failed or interrupted import leaves nothing behind.
            """)

    @Argument(help: "The export to read.") var file: String
    @Argument(help: "The new log's directory; must not exist.") var log: String

    func run() async throws {
        try await inspect {
            guard !FileManager.default.fileExists(atPath: log) else {
                throw InspectorFailure("\(log) already exists. Import builds a new log: choose a new path.", exit: .invalidArgument)
            }
            if FileManager.default.isDirectory(atPath: file) {
                throw InspectorFailure(
                    "\(file) is a directory, not an export: import reads the one file `\(ReactorLogInspector.commandName) export` or `pack` writes. A log directory is read as it is; `compact` copies one.",
                    exit: .invalidArgument)
            }
            guard let reader = LineReader(path: file) else {
                throw InspectorFailure("Cannot read \(file). Check the path.", exit: .cannotOpen)
            }
            let staging: StagingDirectory
            do {
                staging = try StagingDirectory(beside: log)
            } catch let error as StagingDirectory.CreationFailed {
                throw InspectorFailure(
                    "Cannot create a directory beside \(log): \(error.reason). Check that its parent directory exists and is writable.",
                    exit: .writeFailed)
            }
            let interrupts = staging.removeOnInterrupt()
            defer { interrupts.forEach { $0.cancel() } }
            do {
                let imported = try ExportImporter.importAll(reader, file: file, into: staging.path)
                try FileManager.default.moveItem(atPath: staging.path, toPath: log)
                try printLine("Imported \(counted(imported.count, "entry", "entries")) into \(log).")
                if let damage = imported.metadataDamage {
                    try printLine("Its creation time, snapshot policy and floor are kept unvouched, as the export's header says: \(damage) (`reactorlog info` marks them).")
                }
            } catch {
                staging.remove()
                throw error
            }
        }
    }

}

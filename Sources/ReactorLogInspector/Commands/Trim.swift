import ArgumentParser
import EventLogKit

/// `reactorlog trim`.
struct Trim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove entries before a step, keeping in each stream a snapshot that replays what remains.",
        discussion: "Writes to the log, so no other process may be writing it. Sequence numbers are never reused.")

    @OptionGroup var log: LogArgument
    @Option(name: .long, help: "Remove entries before this sequence number.", transform: StepArgument.parse) var before: UInt64

    func run() async throws {
        try await inspect {
            // Read, and let go of, before the log is opened for writing: one process holds a log one way at a time.
            let meta: LogMetadata, last: UInt64
            do {
                let session = try Session.open(log.log)
                if session.isExport {
                    throw InspectorFailure(
                        "\(log.log) is an export, which trim does not change. Import it into a log (`\(ReactorLogInspector.commandName) import \(log.log) LOG`) and trim that, or export the range you want (--from).",
                        exit: .invalidArgument)
                }
                // As stored: values an import carried over unvouched still say how the log was written, and the mark
                // stays; a broken seal is refused by the writer below.
                (meta, last) = (try session.log.storedMetadata().metadata, try session.log.highestSequence())
            }
            // A step past the end is a typo more often than a wish to empty the log, which --before LAST+1 does.
            if before > last + 1 {
                throw InspectorFailure(
                    "Step #\(before) is past the log's last step, #\(last). Trim before a step of the log (--before \(last + 1) removes every entry).",
                    exit: .invalidArgument)
            }
            // Keep the durability and snapshot policy the log's writer recorded.
            var configuration = EventLogConfiguration(durability: meta.durability ?? .grouped)
            configuration.snapshotPolicy = meta.snapshotPolicy ?? .default
            let writable = try EventLog.open(at: log.log, configuration: configuration)
            let report = try writable.trim(before: before)
            let damaged = try writable.damagedStreams()
            try writable.close()
            let (entries, snapshots) = (counted(report.removedEntries, "entry", "entries"), counted(report.removedSnapshots, "snapshot"))
            try printLine("Removed \(entries) and \(snapshots) before #\(before).")
            for stream in report.streams {
                if let base = stream.replaysFrom {
                    try printLine("  \(stream.stream): \(stream.removedEntries) removed; replays from the snapshot at #\(base)")
                } else {
                    try printLine("  \(stream.stream): kept whole (no snapshot before #\(before))")
                }
            }
            // A stream whose descriptor is damaged has no name and no trim floor to record: nothing of it is removed.
            for case .corruptStream(let id, _) in damaged where id != 0 {
                try printLine("  stream id \(id): kept whole (its descriptor is damaged; `reactorlog verify` names it)")
            }
        }
    }
}

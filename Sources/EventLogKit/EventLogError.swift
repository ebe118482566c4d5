import LMDB

/// Everything that can go wrong with a log, each case a sentence naming the problem, with a hint.
public enum EventLogError: HintedError, Sendable, Hashable {
    /// Nothing exists at the path.
    case notFound(path: String)
    /// Something exists at the path, but it is not a ReactorLog log.
    case notALog(path: String, reason: String)
    /// The log was written by a newer format version than this library reads.
    case newerFormat(path: String, found: Int, supported: Int)
    /// Another process, or another ``EventLog`` in this process, already writes to the log.
    case alreadyOpen(path: String, detail: String)
    /// The log's data file was removed or replaced while this process still holds the former one open, through an
    /// ``EventLog`` it has not let go of: thrown by an open when the former lock file is still there (LMDB cannot open
    /// the new file beside it in one process), and by ``EventLog/follow(_:pollInterval:)``, which would otherwise
    /// wait for entries the former file will never get.
    case replacedWhileOpen(path: String)
    /// The log is open read-only in this process, through an ``EventLog`` not yet let go of, so the process cannot
    /// also open it for writing (LMDB allows one environment of a log a process).
    case readOnlyInThisProcess(path: String)
    /// A write was attempted on a log opened read-only.
    case readOnly(path: String)
    /// The log, or a stream of it, was closed.
    case closed(path: String)
    /// An entry's record is damaged.
    case corruptEntry(sequence: UInt64, reason: String)
    /// A snapshot's record is damaged.
    case corruptSnapshot(stream: String, sequence: UInt64, reason: String)
    /// A stream's descriptor is damaged.
    case corruptStream(id: UInt32, reason: String)
    /// The stream index of stream id `streamID` is damaged: its block whose first entry is `block`, or, when `block`
    /// is nil, where no block of the stream is known (keys out of order before its first block).
    case corruptIndex(streamID: UInt32, block: UInt64?, reason: String)
    /// The keys of stream id `streamID`'s `records` (`snapshot`, `gap`, `schema era`) are damaged: a key of the wrong
    /// length whose record is damaged too, or keys out of order, where a seek landed. Readers that list such records go
    /// round it (``EventLog/snapshotSequences(stream:passingOverDamage:)``); `verify` names each such key. (Before
    /// 2026-12-07 this was a ``corruptMetadata(reason:)`` saying `among stream 1's snapshot keys, …`.)
    case corruptKeys(streamID: UInt32, records: String, reason: String)
    /// The log's metadata is damaged.
    case corruptMetadata(reason: String)
    /// The log's metadata values came to it unvouched: an import carried them over from an export whose source log's
    /// metadata was damaged (``LogMetadata/unvouched``). `reason` says so as a clause ("its values were imported from
    /// an export of a log where ..."). The log itself is sound.
    case unvouchedMetadata(reason: String)
    /// The log's files are damaged where LMDB would trust them (a truncated data file): refused before
    /// anything is read.
    case damagedFile(path: String, reason: String)
    /// The log's files cannot be read or written by this user; `reason` says which, as a clause ("its data.mdb
    /// cannot be read").
    case permissionDenied(path: String, reason: String)
    /// A new log cannot be created at the path: `reason` says why, as a clause.
    case cannotCreate(path: String, reason: String)
    /// The log is on a file system mounted read-only (as Linux remounts one after disk errors), so it cannot be opened
    /// for writing; it can be read.
    case readOnlyFileSystem(path: String)
    /// No stream has that name.
    case unknownStream(name: String)
    /// The stream is already open for writing through another ``LogStream``.
    case streamInUse(name: String)
    /// An argument is out of range or malformed.
    case invalidArgument(String)
    /// A payload could not be encoded or decoded.
    case codec(String)
    /// A stream was recorded with types its reader's types cannot decode (a schema change).
    case incompatibleSchema(stream: String, recorded: String, current: String, problem: String)
    /// The writer could not commit: everything committed before is intact, the queued entries (`unwritten` of them)
    /// are written when a retry commits, and appends are refused until then (docs/DURABILITY.md, "When the disk fills").
    case writeFailed(path: String, lastCommitted: UInt64, unwritten: Int, underlying: String)
    /// LMDB reported an error.
    case storage(path: String, LMDBError)

    /// The problem alone, a sentence: for a tool that words its own hint, as the inspector names its commands.
    public var problem: String {
        switch self {
        case .notFound(let path): path.isEmpty ? "No log at an empty path." : "No log at \(path)."
        case .notALog(let path, let reason): "\(path) is not a ReactorLog log: \(reason)."
        case .permissionDenied(let path, let reason): "The log at \(path) cannot be opened by this user: \(reason)."
        case .cannotCreate(let path, let reason): "No log can be created at \(path): \(reason)."
        case .readOnlyFileSystem(let path): "The log at \(path) is on a file system mounted read-only, so it cannot be opened for writing."
        case .newerFormat(let path, let found, let supported):
            "\(path) uses log format version \(found), but this ReactorLog reads versions up to \(supported)."
        case .alreadyOpen(let path, let detail): "\(path) is already open for writing (\(detail))."
        case .replacedWhileOpen(let path):
            "The data file of \(path) was removed or replaced while this process still has the former one open."
        case .readOnlyInThisProcess(let path):
            "\(path) is open read-only in this process, so this process cannot also open it for writing."
        case .readOnly(let path): "\(path) is open read-only, so it cannot be changed."
        case .closed(let path): "\(path) is closed."
        case .corruptEntry(0, let reason): "A record of the log is corrupt: \(reason)."
        case .corruptEntry(let sequence, let reason): "Entry #\(sequence) is corrupt: \(reason)."
        case .corruptSnapshot(let stream, let sequence, let reason):
            "The snapshot of stream '\(stream)' at #\(sequence) is corrupt: \(reason)."
        case .corruptStream(let id, let reason): "The descriptor of stream id \(id) is corrupt: \(reason)."
        case .corruptIndex(let streamID, let block, let reason):
            if let block {
                "The index of stream id \(streamID) is damaged in its block from #\(block): \(reason)."
            } else {
                "The index of stream id \(streamID) is damaged: \(reason)."
            }
        case .damagedFile(let path, let reason): "The log at \(path) is damaged: \(reason)."
        case .corruptKeys(let streamID, let records, let reason): "The \(records) keys of stream id \(streamID) are damaged: \(reason)."
        case .corruptMetadata(let reason): "The log's metadata is corrupt: \(reason)."
        case .unvouchedMetadata(let reason): "The log's metadata is unvouched: \(reason)."
        case .incompatibleSchema(let stream, let recorded, let current, let problem):
            "Stream '\(stream)' was recorded with other types (fingerprint \(recorded), now \(current)) and no longer decodes: \(problem)."
        case .unknownStream(let name): "The log has no stream named '\(name)'."
        case .streamInUse(let name): "Stream '\(name)' is already open for writing in this log."
        case .invalidArgument(let message), .codec(let message): message
        case .writeFailed(let path, let lastCommitted, let unwritten, let underlying):
            "Writing to \(path) failed: \(underlying). Entries up to #\(lastCommitted) are committed and intact; \(unwritten) queued entries wait to be written, and appends are refused until writing resumes."
        case .storage(let path, let error): "LMDB error on \(path): \(error)."
        }
    }

    /// Whether this is a ``damagedFile(path:reason:)`` that only a writer is refused: readers can still open the log,
    /// and reading or exporting it loses nothing.
    public var refusesOnlyWriters: Bool { damageOnlyWritersTripOn != nil }

    /// For a ``damagedFile(path:reason:)`` that only a writer is refused, what is damaged, without the words about
    /// readers ("free list is damaged: ..."); `nil` for any other error.
    package var damageOnlyWritersTripOn: String? {
        guard case .damagedFile(_, let reason) = self, reason.hasSuffix(Self.readersCanOpen) else { return nil }
        return String(reason.dropLast(Self.readersCanOpen.count))
    }

    /// How a ``damagedFile(path:reason:)`` that only a writer is refused ends.
    package static let readersCanOpen = ", which only a writer trips on: readers can still open it"

    /// What to do about it, for a program using the library (empty where ``problem`` says it already). A library
    /// error names the library's calls, never the inspector's commands.
    public var hint: String {
        switch self {
        case .notFound: "Check the path; a log is a directory such as demo.reactorlog/."
        case .notALog: "Point at a directory written by ReactorLog."
        case .permissionDenied: "Run as the log's owner, or copy the log into a directory of your own and open the copy."
        case .cannotCreate: "Choose a directory this user may write, on a file system with room."
        case .readOnlyFileSystem: "Open it read-only (`EventLog.openReadOnly(at:)`), or copy it into a writable directory and open the copy."
        case .newerFormat: "Upgrade ReactorLog to read it."
        case .alreadyOpen: "Close the other writer, or open the log read-only."
        case .replacedWhileOpen: "Let go of every EventLog of the former log in this process, then open it again."
        case .readOnlyInThisProcess: "Let go of every read-only EventLog of it (closing one is not enough), then open it for writing."
        case .readOnly: "Open it for writing to append, trim or import."
        case .closed: "Open it again to use it."
        case .corruptEntry: "Verify the log (`EventLog.verify()`) to find every damaged entry."
        case .corruptSnapshot, .corruptStream, .corruptIndex, .corruptKeys, .corruptMetadata: "Verify the log (`EventLog.verify()`) for details."
        case .unvouchedMetadata: "Its entries read as they are; `storedMetadata()` gives the values, as that log stored them."
        case .damagedFile where refusesOnlyWriters:
            "Nothing was written: open it read-only to read or export it, or move it aside (keep it for a bug report) and open a new log at the path."
        case .damagedFile:
            "Nothing was read: restore the log from a copy, or move it aside (keep it for a bug report) and open a new log at the path."
        case .incompatibleSchema:
            "Let attach start a new generation of the stream (its default policy), or read it with the types that recorded it."
        case .unknownStream: "List its streams with `EventLog.streams()`."
        case .streamInUse: "Close the other LogStream first."
        case .invalidArgument, .codec: ""
        case .writeFailed: "Free disk space: the log writes again at its next retry (writeRetryInterval, or resumeWriting() at once). Reopen a log at its maxMapSize with a larger one, and one LMDB stopped for good (MDB_PANIC: its meta page could not be written)."
        case .storage(_, let error) where error.isBadHandle:
            "A writer of a newer ReactorLog converted the log while it was open here; open it again."
        case .storage(_, let error) where error.isCorrupted:
            "LMDB found the data file damaged where it read; verify the log (`EventLog.verify()`) to learn what can still be read."
        case .storage: "Check the path's permissions and free space."
        }
    }
}

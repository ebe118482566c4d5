import Foundation
import EventLogKit
import SystemPackage
import TimeTravel

/// The inspector's exit codes, documented in docs/INSPECTOR.md.
public enum InspectorExit: Int32, Sendable, CaseIterable {
    /// Success (verify: healthy; divergence: none).
    case success = 0
    /// The command worked and found a problem: verify found damage, replay diverges.
    case finding = 1
    /// An argument is wrong: unknown stream, step out of range, malformed path, bad option value.
    case invalidArgument = 2
    /// The log cannot be opened: missing path, not a log, no permission.
    case cannotOpen = 3
    /// The log was written by a newer ReactorLog.
    case newerFormat = 4
    /// The log is damaged where the command needed to read.
    case corrupt = 5
    /// The step's state was not recorded and this inspector does not know the reactor.
    case needsReducer = 6
    /// Bisect could not run its command, the command aborted, or there is nothing to bisect.
    case bisectFailed = 7
    /// A write was refused or failed: the log is busy, or the disk is full.
    case writeFailed = 8
    /// The stream was recorded with other types than this inspector's: a schema change, not damage.
    case schemaMismatch = 9
    /// Command-line usage error (from the argument parser).
    case usage = 64
}

/// An error the inspector reports: one line and an exit code.
struct InspectorFailure: Error, CustomStringConvertible {
    let message: String
    let exit: InspectorExit
    /// Whether the failure is that the log lacks what was asked for (a step, an entry, a stream, a case, a time): where
    /// the log was read as it stood one commit before its last, its last commit may hold it, and the failure is the
    /// damage's (``inspect(opening:_:)``).
    var isAboutWhatTheLogLacks = false

    var description: String { message }

    init(_ message: String, exit: InspectorExit) {
        self.message = message
        self.exit = exit
    }

    /// A failure for an argument that asks for what the log lacks (``isAboutWhatTheLogLacks``): exit 2.
    static func lacking(_ message: String) -> InspectorFailure {
        var failure = InspectorFailure(message, exit: .invalidArgument)
        failure.isAboutWhatTheLogLacks = true
        return failure
    }

    /// The inspector's reading of any error.
    init(_ error: any Error) {
        switch error {
        case let failure as InspectorFailure:
            self = failure
        case let error as EventLogError:
            self.init(Self.firstLine(error.line(hint: Self.hint(for: error) ?? error.hint)), exit: Self.exit(for: error))
        case .log(let inner) as TimeTravelError:
            self.init(inner)
        case let error as TimeTravelError:
            let message = error.line(hint: Self.hint(for: error) ?? error.hint)
            switch error {
            case .needsReducer, .nothingToCompare: self.init(message, exit: .needsReducer)
            case .bisectPrecondition, .bisectLogIncomplete, .noRecordedStates: self.init(message, exit: .bisectFailed)
            case .replayDiverges: self.init(Self.firstLine(message), exit: .finding)
            case .decoding, .stepUnreadable, .snapshotUnreadable: self.init(message, exit: .corrupt)
            case .schemaMismatch: self.init(message, exit: .schemaMismatch)
            case .stepOutOfRange: self = .lacking(message)
            default: self.init(message, exit: .invalidArgument)
            }
        default:
            self.init(Self.firstLine("\(error)"), exit: .corrupt)
        }
    }

    /// The line a command ends with when it read on past damage: what it did about it (`done`, clauses joined by "; ",
    /// the first capitalized) and the first damage it met, with that damage's exit code (5).
    static func readPast(_ done: [String], damage: any Error) -> InspectorFailure {
        let summary = done.joined(separator: "; ")
        let failure = InspectorFailure(damage)
        return InspectorFailure("\(summary.prefix(1).uppercased() + summary.dropFirst()): \(failure.message)", exit: failure.exit)
    }

    /// Output that could not be written: the device is full, or the reader went away.
    static func writing(_ error: any Error) -> InspectorFailure {
        let nsError = error as NSError
        let posix = (error as? Errno).map { Int($0.rawValue) }
            ?? (nsError.userInfo[NSUnderlyingErrorKey] as? NSError).flatMap { $0.domain == NSPOSIXErrorDomain ? $0.code : nil }
            ?? (nsError.domain == NSPOSIXErrorDomain ? nsError.code : nil)
        let reason: String
        if posix == Int(ENOSPC) || (error as? CocoaError)?.code == .fileWriteOutOfSpace {
            reason = "the device is full (No space left on device)"
        } else if let posix {
            reason = String(cString: strerror(Int32(posix)))
        } else {
            reason = nsError.localizedDescription
        }
        if posix == Int(EPIPE) {
            return InspectorFailure("Could not write the output: its reader closed the pipe before the end.", exit: .writeFailed)
        }
        return InspectorFailure("Could not write the output: \(reason). Free some space or write elsewhere.", exit: .writeFailed)
    }

    /// The inspector's hint where it differs from the library's: a command to run instead of a call to make.
    private static func hint(for error: EventLogError) -> String? {
        switch error {
        case .notFound(let path): UsageLine.nearestPath(to: path).map { "Did you mean \($0)?" }
        case .corruptEntry: "Run `reactorlog verify` to find every damaged entry."
        case .corruptSnapshot, .corruptStream, .corruptIndex, .corruptKeys, .corruptMetadata: "Run `reactorlog verify` for details."
        case .unvouchedMetadata: "Its entries read as they are; `reactorlog info` shows the values, as that log stored them."
        case .unknownStream: "Run `reactorlog info` to list its streams."
        case .replacedWhileOpen: "Run the command again to read the log now at that path."
        case .damagedFile where error.refusesOnlyWriters:
            "Nothing was written; commands that only read it work, and `reactorlog export` then `reactorlog import` make a new log from it to write to."
        case .damagedFile: "Nothing was read; restore the log from a copy."
        case .readOnlyFileSystem: "Commands that only read it work; to change it, copy it into a writable directory (`reactorlog compact`) and change the copy."
        case .storage(_, let lmdb) where lmdb.isCorrupted: "LMDB found the data file damaged where it read; run `reactorlog verify` to learn what can still be read."
        default: nil
        }
    }

    /// The inspector's hint where it differs from the library's, as for the log's errors.
    static func hint(for error: TimeTravelError) -> String? {
        switch error {
        case .needsReducer(_, _, let nearest): "\(nearest.isEmpty ? "Run" : "Read one of those, or run") an inspector that knows the reactor (docs/INSPECTOR.md)."
        case .snapshotUnreadable(_, _, _, let nearest):
            "\(nearest.isEmpty ? "Run" : "Read one of those, or run") an inspector that knows the reactor (docs/INSPECTOR.md); `reactorlog verify` names every damaged snapshot."
        case .noRecordedStates: "Run an inspector that knows the reactor (docs/INSPECTOR.md), or record snapshots more often."
        case .nothingToCompare: "Record snapshots more often (the log's snapshot policy), or check a log that has them: `reactorlog info` counts each stream's."
        case .stepUnreadable(_, _, let damage, let statesUnknown):
            TimeTravelError.around(damage, statesUnknown) + " `reactorlog verify` names every damaged entry."
        case .schemaMismatch:
            "Run an inspector built from the app version that recorded it, or the generic `reactorlog`, which reads recorded states without the types."
        default: nil
        }
    }

    private static func exit(for error: EventLogError) -> InspectorExit {
        switch error {
        case .storage(_, let lmdb) where lmdb.isCorrupted: .corrupt
        case .notFound, .notALog, .permissionDenied, .cannotCreate, .readOnlyFileSystem, .replacedWhileOpen, .storage: .cannotOpen
        case .newerFormat: .newerFormat
        case .corruptEntry, .corruptSnapshot, .corruptStream, .corruptIndex, .corruptKeys, .corruptMetadata, .unvouchedMetadata, .damagedFile, .codec: .corrupt
        case .unknownStream, .invalidArgument: .invalidArgument
        case .incompatibleSchema: .schemaMismatch
        case .alreadyOpen, .readOnlyInThisProcess, .readOnly, .closed, .streamInUse, .writeFailed: .writeFailed
        }
    }

    private static func firstLine(_ text: String) -> String {
        String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
    }
}

import ArgumentParser
import EventLogKit
import Foundation
import SystemPackage
import TimeTravel

/// An open log and what commands need around it.
struct Session {
    let log: EventLog
    /// The log's directory, or the export or pack file it was opened from.
    let path: String
    /// Whether `path` is an export or a pack, read into a private temporary log.
    var isExport = false
    /// For an export or a pack whose file ends in the middle of a line (a partial download or copy): that line's number.
    /// What was read is every line before it.
    var cutShortLine: Int?
    /// How a log that LMDB refuses, or reads as it stood one commit before, was read instead, from a private copy of its
    /// data file (``EventLog/openMended(at:copyingInto:leavingOutPages:)``, ``EventLog/openFromOtherMetaPage(at:copyingInto:)``); `nil`
    /// for a log read as it is.
    var readAround: ReadAround?

    /// Why a log was not read as LMDB reads it, and what was read instead.
    struct ReadAround {
        /// What was read.
        enum Commit {
            /// The commit before the last, which LMDB refuses: what the last wrote is missing.
            case before
            /// The last commit, where LMDB refuses the log for its other page.
            case lastWhole
            /// The commit of the one meta page LMDB could read, where the other page, which LMDB refuses, cannot say
            /// whether it held a later commit (a zeroed page): what the last commit wrote may be missing.
            case lastOrBefore
            /// The last commit, from a copy whose records bad bits damaged were mended
            /// (``EventLog/openMended(at:copyingInto:leavingOutPages:)``): `records` of them, and whose leaf pages damaged beyond that were
            /// left out, their records missing: `pagesLeftOut` of them (whole where there are none).
            case lastMended(records: Int, pagesLeftOut: Int)
            /// The last commit, which the entries show later than the commit LMDB reads, where the pages' transaction ids
            /// show a bad bit (``EventLog/openLaterCommit(than:copyingInto:)``).
            case laterThanLMDBReads
            /// The last commit, whole but for the actions' call sites, whose pages are damaged
            /// (``EventLog/openWithoutCallSites(at:)``).
            case lastWithoutCallSites

            /// Whether what the last commit wrote is, or may be, missing from what was read.
            var mayLackTheLastCommit: Bool {
                switch self {
                case .before, .lastOrBefore: true
                case .lastWhole, .lastMended, .laterThanLMDBReads, .lastWithoutCallSites: false
                }
            }
        }
        /// Why the log was not read as LMDB reads it, a clause without its path.
        let problem: String
        let commit: Commit
    }
    let terminal = Terminal.current

    /// Opens `path` read-only: a log directory, or an export or pack (a file), which is imported into a private
    /// temporary log first. A log LMDB refuses for records bad bits damaged where LMDB finds them is read whole from a
    /// copy with those records mended; else, where only the pages of its call sites are damaged, without them (its
    /// entries matter more than where actions were sent from); else, where its last commit cannot be read and the
    /// commit before it can, as it stood then; else from a copy with its leaf pages damaged beyond mending left out.
    static func open(_ path: String) throws -> Session {
        if isExportFile(path) { return try openExport(path) }
        do {
            let log = try EventLog.openReadOnly(at: path)
            return openLaterCommit(than: log, path: path) ?? Session(log: log, path: path)
        } catch {
            guard let session = openMended(path) ?? openWithoutCallSites(path) ?? openFromOtherMetaPage(path)
                ?? openMended(path, leavingOutPages: true)
            else { throw error }
            return session
        }
    }

    /// The log at `path` read in place without its call sites, whose pages alone are damaged; `nil` otherwise.
    private static func openWithoutCallSites(_ path: String) -> Session? {
        guard let read = EventLog.openWithoutCallSites(at: path) else { return nil }
        return Session(log: read.log, path: path, readAround: ReadAround(problem: read.problem, commit: .lastWithoutCallSites))
    }

    /// The log at `path` read whole from a copy, in a private temporary directory removed at once, whose records bad bits
    /// damaged are mended, and with `leavingOutPages` its leaf pages damaged beyond that left out; `nil` when it has none
    /// or the copy cannot be read either.
    private static func openMended(_ path: String, leavingOutPages: Bool = false) -> Session? {
        guard FileManager.default.isDirectory(atPath: path),
              let read = inStagingDirectory({ EventLog.openMended(at: path, copyingInto: $0, leavingOutPages: leavingOutPages) })
        else { return nil }
        return Session(
            log: read.log, path: path,
            readAround: ReadAround(problem: read.problem, commit: .lastMended(records: read.records, pagesLeftOut: read.pagesLeftOut)))
    }

    /// The log at `path` read from its other meta page, through a copy in a private temporary directory that is
    /// removed at once (the open log keeps its file); `nil` when that cannot be read either.
    private static func openFromOtherMetaPage(_ path: String) -> Session? {
        guard FileManager.default.isDirectory(atPath: path),
              let read = inStagingDirectory({ EventLog.openFromOtherMetaPage(at: path, copyingInto: $0) })
        else { return nil }
        return Session(log: read.log, path: path, readAround: ReadAround(problem: read.problem, commit: read.isCommitBefore.map { $0 ? .before : .lastWhole } ?? .lastOrBefore))
    }

    /// The log at `path`, which LMDB reads as `log`, read from its other meta page where a bad bit in a transaction id
    /// made LMDB read the commit before the last (``EventLog/openLaterCommit(than:copyingInto:)``); `nil` otherwise.
    private static func openLaterCommit(than log: EventLog, path: String) -> Session? {
        // Checked first, so that a sound log (the usual one) makes no staging directory.
        guard log.metaPageTransactionProblem != nil,
              let read = inStagingDirectory({ EventLog.openLaterCommit(than: log, copyingInto: $0) })
        else { return nil }
        return Session(log: read.log, path: path, readAround: ReadAround(problem: "its data.mdb " + read.problem, commit: .laterThanLMDBReads))
    }

    /// What `open` returns of a private temporary directory, which is removed once it returns (a log opened from a copy
    /// there keeps its file); `nil` when none can be made.
    private static func inStagingDirectory<T>(_ open: (String) -> T?) -> T? {
        guard let staging = try? StagingDirectory(beside: (NSTemporaryDirectory() as NSString).appendingPathComponent("reactorlog-open"))
        else { return nil }
        defer { staging.remove() }
        return open(staging.path)
    }

    /// Opens `path` as ``open(_:)`` does, but waits for a log not begun yet (`tail --follow`, as `tail -F` waits for a
    /// file), after a note on standard error that says so: nothing at the path, in a directory that exists, or a writer
    /// beginning the log there (``EventLog/openReadOnlyOnceBegun(at:pollInterval:waiting:)``).
    static func openOnceBegun(_ path: String) async throws -> Session {
        if isExportFile(path) { return try open(path) }
        let log = try await EventLog.openReadOnlyOnceBegun(at: path) {
            let meant = UsageLine.nearestPath(to: path).map { " (did you mean \($0)?)" } ?? ""
            printDiagnostic("No log at \(path) yet\(meant): waiting for a program to begin recording there.")
        }
        return Session(log: log, path: path)
    }

    /// Whether `path` is a file that starts like JSON: an export or a pack, not a log directory.
    private static func isExportFile(_ path: String) -> Bool {
        guard !FileManager.default.isDirectory(atPath: path), let handle = FileHandle(forReadingAtPath: path)
        else { return false }
        defer { try? handle.close() }
        let start = (try? handle.read(upToCount: 64)) ?? Data()
        return start.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{")
    }

    /// Imports the export at `path` into a private directory, opens it, and removes the directory at once: the
    /// open log keeps its files, and nothing is left behind however the command ends.
    private static func openExport(_ path: String) throws -> Session {
        guard let reader = LineReader(path: path) else {
            throw InspectorFailure("Cannot read \(path). Check the path and its permissions.", exit: .cannotOpen)
        }
        let temporary = NSTemporaryDirectory()
        let staging: StagingDirectory
        do {
            staging = try StagingDirectory(beside: (temporary as NSString).appendingPathComponent("reactorlog-open"))
        } catch {
            throw InspectorFailure(
                "Cannot open \(path): an export is read into a temporary log, and none can be made in \(temporary) (\(error.reason)). Set TMPDIR to a writable directory.",
                exit: .writeFailed)
        }
        defer { staging.remove() }
        let imported = try ExportImporter.importAll(reader, file: path, into: staging.path, readingPastCutShortEnd: true)
        return Session(log: try EventLog.openReadOnly(at: staging.path), path: path, isExport: true, cutShortLine: imported.cutShortLine)
    }

    /// Whether what was read is not all the log or export holds, or was read around damage (``readAround``,
    /// ``cutShortLine``): a command then ends with ``whatWasRead``.
    var isReadAround: Bool { readAround != nil || cutShortLine != nil }

    /// Whether what a command asked for may be in what was not read: the last commit, or the part of an export cut off.
    var mayLackWhatWasAskedFor: Bool { cutShortLine != nil || readAround?.commit.mayLackTheLastCommit == true }

    /// What an export cut short lacks, as a clause after its path (`… ends in the middle of line 16, cut short: …`);
    /// `nil` for any other source.
    var cutShort: String? {
        cutShortLine.map { "ends in the middle of line \($0), cut short: what was read is the \($0 - 1) lines before it, and what the rest held (later entries, snapshots) is missing" }
    }

    /// What was read of a log not read as LMDB reads it, or of an export cut short, as a sentence.
    var whatWasRead: String {
        if let cutShort { return "\(path) \(cutShort)." }
        guard let other = readAround else { return "" }
        return switch other.commit {
        case .before:
            "\(path) was read as it stood one commit before its last, so what the last commit wrote is missing; LMDB refuses the log as it is: \(other.problem)."
        case .lastWhole: "\(path) was read whole, from its sound meta page; LMDB refuses the log as it is: \(other.problem)."
        case .lastOrBefore:
            "\(path) was read from its one sound meta page, which holds its last commit or the one before it (the damaged page, which would tell, is lost), so what the last commit wrote may be missing; LMDB refuses the log as it is: \(other.problem)."
        case .lastMended(let records, 0):
            "\(path) was read whole, from a copy with \(records == 1 ? "that record" : "those records") mended; LMDB refuses the log as it is: \(other.problem)."
        case .lastMended(let records, let pages):
            "\(path) was read from a copy with \(Self.leftOut(pages: pages, mended: records)); LMDB refuses the log as it is: \(other.problem)."
        case .laterThanLMDBReads:
            "\(path) was read from the meta page LMDB does not read, which holds the later commit: \(other.problem)."
        case .lastWithoutCallSites:
            "\(path) was read whole but for its actions' call sites, whose pages are damaged; LMDB refuses the log as it is: \(other.problem)."
        }
    }

    /// What a copy read with `pages` damaged pages left out and `mended` records mended lacks, as a clause: "a damaged
    /// page left out, whose records are missing".
    static func leftOut(pages: Int, mended: Int) -> String {
        let pagesLeftOut = pages == 1 ? "a damaged page left out, whose records are missing" : "\(pages) damaged pages left out, whose records are missing"
        return mended == 0 ? pagesLeftOut : "\(pagesLeftOut), and \(mended == 1 ? "a record" : "\(mended) records") mended"
    }

    /// The sentence a command on a log not read as LMDB reads it ends with: how to make a sound log of what was read.
    var soundCopyHint: String {
        let name = ReactorLogInspector.commandName
        if cutShortLine != nil { return "Copy or download the whole file again." }
        return switch readAround?.commit {
        case .lastWithoutCallSites?: "`\(name) export` and `\(name) import` copy what was read, without call sites, into a sound log."
        case .lastMended(_, let pages)? where pages > 0:
            "`\(name) compact` copies what was read into a sound file, which names the missing records as damage."
        default: "`\(name) compact` copies what was read into a sound log."
        }
    }

    /// The size of what was opened: the export's file, or the log's data file (also where a copy of it was read).
    var sizeOnDisk: Int {
        isExport ? Info.fileSize(path) : readAround != nil ? Info.fileSize(path + "/data.mdb") : log.sizeOnDisk
    }

    /// The permissions of the log's data file (or of the export opened): files the inspector writes from the log
    /// get the same, so an export is no more readable than the log itself (owner read and write when they cannot
    /// be read).
    var fileMode: FilePermissions {
        var status = stat()
        guard stat(isExport ? path : path + "/data.mdb", &status) == 0 else { return .ownerReadWrite }
        return FilePermissions(rawValue: CModeT(status.st_mode & 0o666))
    }

    /// The stream named `name`; without a name, the only stream, or the stream of `step`'s entry.
    func stream(_ name: String?, step: UInt64? = nil) throws -> StreamInfo {
        if let name {
            guard let info = try log.stream(named: name) else { throw try unknownStream(name) }
            return info
        }
        let streams = try log.streams()
        if streams.count == 1, let only = streams.first { return only }
        if let step, let entry = try log.entry(at: step), let info = try log.stream(named: entry.stream) { return info }
        guard !streams.isEmpty else { throw InspectorFailure("The log has no stream yet.", exit: .invalidArgument) }
        // A step past the end names no stream: that, not the streams, is what to fix.
        if let step, case let last = try log.highestSequence(), step > last {
            throw InspectorFailure.lacking(
                "Step #\(step) is past the log's last step, #\(last), so no stream has a state there. Pick a step from 0 (the initial state) to #\(last).")
        }
        throw InspectorFailure(
            "The log has \(streams.count) streams: \(Self.listed(streams.map(\.name))). Choose one with --stream.",
            exit: .invalidArgument)
    }

    /// Refuses a stream name the log does not have, with the nearest it has (a typo, a change of case) and its
    /// streams: up to five named, the rest counted.
    private func unknownStream(_ name: String) throws -> InspectorFailure {
        let (suggestion, listed) = try streamsBeside(name)
        let said = "The log has no stream named '\(name)'\(suggestion.map { ": did you mean '\($0)'?" } ?? ".") \(listed)"
        // A stream whose descriptor is damaged has lost its name: it may be the one asked for.
        let damaged = try log.damagedStreams().count
        guard suggestion == nil, damaged > 0 else { return .lacking(said) }
        let which = damaged == 1 ? "A stream's descriptor is" : "\(damaged) streams' descriptors are"
        return InspectorFailure("\(said) \(which) damaged, so \(damaged == 1 ? "its name" : "their names") cannot be read: `reactorlog verify` names the damage.", exit: .corrupt)
    }

    /// `name` when the log has a stream by that name; else `nil`, after a note on standard error that the command
    /// waits for it, with the nearest name the log has and its streams, so that a typo is seen while it waits
    /// (`tail --follow`, as `tail -F` waits for a file).
    func awaitedStream(_ name: String) throws -> StreamInfo? {
        if let info = try log.stream(named: name) { return info }
        let (suggestion, listed) = try streamsBeside(name)
        printDiagnostic("The log has no stream named '\(name)' yet\(suggestion.map { " (did you mean '\($0)'?)" } ?? ""): waiting for its first entry. \(listed)")
        return nil
    }

    /// The stream name nearest `name` (a typo, a change of case), if any, and a sentence naming the log's streams
    /// (``listed(_:)``).
    private func streamsBeside(_ name: String) throws -> (suggestion: String?, listed: String) {
        let names = try log.streams().map(\.name)
        let listed = names.isEmpty ? "It has no stream yet." : "Its streams: \(Self.listed(names))."
        return (UsageLine.nearest(to: name, among: names), listed)
    }

    /// Stream names as a refusal or a warning lists them, in the log's order: up to five named, then how many more and that
    /// `reactorlog info` lists them all, so that one line stays one line in a server's log of thousands.
    fileprivate static func listed(_ names: [String]) -> String {
        firstFive(names, more: " (`reactorlog info` lists them)")
    }

    /// The stream `name`; with none named in a log of several, the one stream whose latest known state has something
    /// at `path` (`blame LOG nextPage`: the path says which reactor is meant). Refused when no stream's state has the
    /// path or several do (naming them), and as ``stream(_:step:)`` refuses when the log has more than 64 streams to
    /// look through.
    func stream(_ name: String?, holding path: StatePath) throws -> StreamInfo {
        guard name == nil else { return try stream(name) }
        let streams = try log.streams()
        guard (2...64).contains(streams.count) else { return try stream(nil) }
        let holding = streams.filter { info in
            // Its last state, rebuilt with the reducer; without it, the last one the log recorded (else the initial one).
            guard let machine = try? machine(for: info),
                  let step = try? machine.canReduce ? log.highestSequence(stream: info.name) : log.snapshotSequences(stream: info.name).last ?? 0,
                  let state = try? machine.json(at: step)
            else { return false }
            return state[path] != nil
        }
        if holding.count == 1, let only = holding.first { return only }
        let which = holding.isEmpty ? "No stream's latest state has '\(path)'" : "The states of \(holding.map(\.name).joined(separator: ", ")) have '\(path)'"
        throw InspectorFailure(
            "The log has \(streams.count) streams: \(Self.listed(streams.map(\.name))). \(which): choose one with --stream.",
            exit: .invalidArgument)
    }

    /// Time travel over `stream`: with the reactor's own reduce when this inspector knows its type, else
    /// from the states the log recorded.
    func machine(for stream: StreamInfo) throws -> any InspectableMachine {
        if let registration = ReactorLogInspector.registrations.first(where: { $0.typeName == stream.reactorType }) {
            return try registration.makeMachine(log, stream.name)
        }
        return try TimeMachine(log: log, stream: stream.name, replayer: RecordedStates())
    }

    /// A step that must exist in the log (for bisect's --to; TimeMachine checks the steps it rebuilds itself).
    func checkStep(_ step: UInt64, stream: StreamInfo) throws {
        let highest = try log.highestSequence()
        guard step <= highest else { throw TimeTravelError.stepOutOfRange(step: step, stream: stream.name, highest: highest) }
    }
}

/// Runs a command body, turning any error into one line on standard error and the documented exit code.
func inspect(_ body: () async throws -> Void) async throws {
    do {
        try await body()
        try StandardOutput.flush()
    } catch let exit as ExitCode {
        try? StandardOutput.flush()
        throw exit
    } catch {
        let failure = InspectorFailure(error)
        Terminal.current.endProgress()
        printDiagnostic(failure.message)
        throw ExitCode(failure.exit.rawValue)
    }
}

/// Runs a command body on the log at `path`, opened read-only (``Session/open(_:)``), as ``inspect(_:)`` runs one.
/// When the body's reads went around damage to a stream's index (``EventLog/bypassedIndexDamage``) or rebuilt states
/// from a snapshot earlier than one that cannot be read (``EventLog/passedOverSnapshotDamage``), its output is whole,
/// but the log is damaged: a warning line says so for each such stream, and the exit stays 0.
func inspect(opening path: String, _ body: (Session) async throws -> Void) async throws {
    try await inspect {
        let session = try Session.open(path)
        do {
            try await body(session)
        } catch where session.isReadAround && !(error is ExitCode) {
            // The command's failure, about the log not read as LMDB reads it (or an export cut short): one line says
            // both. (A finding, as verify's, names the meta page itself.) What the read lacks may be what the last
            // commit wrote, or the part cut off: then the damage, not the argument, is at fault, and is said first.
            let failure = InspectorFailure(error)
            guard session.mayLackWhatWasAskedFor, failure.isAboutWhatTheLogLacks else {
                throw InspectorFailure("\(failure.message) \(session.whatWasRead)", exit: failure.exit)
            }
            let lacked = session.cutShortLine == nil ? "that last commit" : "the part cut off"
            throw InspectorFailure("\(session.whatWasRead) What was asked for may be in \(lacked): \(failure.message)", exit: .corrupt)
        }
        if session.isReadAround {
            throw InspectorFailure("\(session.whatWasRead) \(session.soundCopyHint)", exit: .corrupt)
        }
        // One line for every stream read past its index (a damaged page of the index reaches several): the first's damage.
        let damages = session.log.bypassedIndexDamage.compactMap { damage -> (id: UInt32, damage: EventLogError)? in
            if case .corruptIndex(let id, _, _) = damage { (id, damage) } else { nil }
        }
        if let first = damages.first {
            let names = Dictionary(try session.log.streams().map { ($0.id, $0.name) }) { first, _ in first }
            let streams = damages.map { names[$0.id].map { "'\($0)'" } ?? "id \($0.id)" }
            let read = streams.count == 1
                ? "stream \(streams[0]) was read from the whole log, past its damaged index"
                : "streams \(Session.listed(streams)) were read from the whole log, past the damage to each one's index"
            printDiagnostic("warning: \(read); what is shown is whole: \(InspectorFailure(first.damage).message)")
        }
        for damage in session.log.passedOverSnapshotDamage {
            printDiagnostic("warning: states were rebuilt from a snapshot earlier than one that cannot be read; what is shown is whole: \(InspectorFailure(damage).message)")
        }
    }
}

/// Writes `line` to standard error as one line of the inspector's own (`reactorlog: …`), control characters made
/// visible: an error, or a warning (`warning: …`) about what the command did.
func printDiagnostic(_ line: String) {
    StandardError.writeLine("\(ReactorLogInspector.commandName): \(line)")
}

/// Encodes `value` as JSON on standard output, keys sorted.
func printJSON<Value: Encodable>(_ value: Value, pretty: Bool = true) throws {
    try writeJSONLine(try jsonString(value, pretty: pretty))
}

/// `value` as JSON text, keys sorted; pretty-printed, an empty array or object is `[]` or `{}`.
func jsonString<Value: Encodable>(_ value: Value, pretty: Bool) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    let text = try encoder.encode(value)
    return String(decoding: pretty ? closingEmptyContainers(text) : text, as: UTF8.self)
}

/// `json` with every empty container closed on its own line: Foundation's pretty printer on Linux writes `[]` as
/// `[`, an empty line and `]`. A raw newline only occurs between tokens (a string escapes its own), so the
/// pattern bracket, newline, blanks, newline, blanks, bracket is always an empty container.
func closingEmptyContainers(_ json: Data) -> Data {
    let bytes = [UInt8](json)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
        let byte = bytes[index]
        out.append(byte)
        index += 1
        guard byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") else { continue }
        let close = byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}")
        var next = index, newlines = 0
        while next < bytes.count, bytes[next] == UInt8(ascii: "\n") || bytes[next] == UInt8(ascii: " ") {
            if bytes[next] == UInt8(ascii: "\n") { newlines += 1 }
            next += 1
        }
        if newlines == 2, next < bytes.count, bytes[next] == close {
            out.append(close)
            index = next + 1
        }
    }
    return Data(out)
}

/// Writes one line of human-readable text to standard output (``StandardOutput``): anything read from a log is shown
/// with its control characters made visible (``Terminal/visible(_:colored:keepNewlines:)``), so a log cannot retitle,
/// clear or hide the user's terminal, and its newlines and tabs too, so that a name or a string a log holds cannot
/// break the line into lines that read as entries or rows it does not have.
func printLine(_ text: String = "") throws {
    try write(Terminal.visible(text, colored: Terminal.current.colored, keepNewlines: false) + "\n")
}

/// Writes text of several lines that the inspector laid out itself (JSON printed over lines, whose strings are
/// escaped), its control characters but newlines and tabs made visible as ``printLine(_:)`` makes them.
func printLines(_ text: String) throws {
    try write(Terminal.visible(text, colored: Terminal.current.colored) + "\n")
}

/// Writes one line of human-readable text whose bytes (valid UTF-8) `body` appends straight into standard output's
/// buffer, made visible as ``printLine(_:)`` makes a string's: a listing's lines, with no string made for each.
func printLine(appending body: (inout [UInt8]) -> Void) throws {
    let colored = Terminal.current.colored
    try StandardOutput.append { bytes in
        let start = bytes.count
        body(&bytes)
        Terminal.makeVisible(&bytes, from: start, colored: colored, keepNewlines: false)
        bytes.append(UInt8(ascii: "\n"))
    }
}

/// Writes a line of JSON to standard output. The encoder escapes C0 control characters; DEL, C1 controls and
/// bidirectional overrides (which only occur inside strings) are written as `\uXXXX` escapes too: the same JSON
/// value, and nothing a terminal would act on.
func writeJSONLine(_ text: String) throws {
    try write(terminalSafeJSON(text) + "\n")
}

/// JSON text with DEL, C1 controls and bidirectional overrides written as `\uXXXX` escapes: the same value.
func terminalSafeJSON(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 >= 0x7F }) else { return text }
    var bytes = Array(text.utf8)
    escapeTerminalControls(in: &bytes, from: 0)
    return String(decoding: bytes, as: UTF8.self)
}

/// Escapes DEL, C1 controls and bidirectional overrides in the JSON text at `out[start...]` (in JSON they occur only
/// inside strings, where `\uXXXX` is the same character): nothing a terminal would act on.
func escapeTerminalControls(in out: inout [UInt8], from start: Int) {
    guard out[start...].contains(where: { $0 >= 0x7F }) else { return }
    let json = Array(out[start...])
    out.removeSubrange(start...)
    for scalar in String(decoding: json, as: UTF8.self).unicodeScalars {
        switch scalar.value {
        case 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: JSONText.appendEscape(UInt16(scalar.value), to: &out)
        default: out.append(contentsOf: String(scalar).utf8)
        }
    }
}

private func write(_ text: String) throws {
    try StandardOutput.write(text)
}

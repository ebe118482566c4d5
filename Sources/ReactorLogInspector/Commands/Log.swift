import ArgumentParser
import EventLogKit
import Foundation

/// `reactorlog log`.
struct Log: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List entries, one per line, mutations indented under the action that caused them.")

    @OptionGroup var log: LogArgument
    @Option(name: .long, help: "Only this stream.") var stream: String?
    @Option(name: .long, help: "From this sequence number.") var from: UInt64 = 1
    @Option(name: .long, help: "Up to this sequence number.") var to: UInt64?
    @Option(name: .long, help: "Only entries of this kind: action, mutation, error, opened, resumed or closed.") var kind: [String] = []
    @Option(name: .customLong("case"), help: "Only entries with this case name, such as updateQuery.") var caseName: String?
    @Option(name: .long, help: "Only entries since this time: ISO 8601 (2026-11-21T22:37:55Z) or HH:MM[:SS] today, local time.") var since: String?
    @Option(name: .long, help: "At most this many entries.") var limit: Int?
    @OptionGroup var output: OutputOptions

    func validate() throws {
        try StepRange.validate(from: from, to: to)
    }

    func run() async throws {
        try await inspect(opening: log.log) { session in
            let query = try EntryQuery(
                from: from, through: to ?? .max, limit: try EntryFilters.count(limit, option: "--limit"), stream: stream, kinds: EntryFilters.kinds(kind),
                caseName: caseName, since: since.map(EntryFilters.time))
            if let stream, try session.log.stream(named: stream) == nil { throw EventLogError.unknownStream(name: stream) }
            let width = try session.log.streams().map(\.name.count).max() ?? 0
            let formatter = EntryFormatter(terminal: session.terminal, streamWidth: width, sequenceWidth: "#\(try session.log.highestSequence())".count)
            var json = output.json ? try EntryJSONWriter(log: session.log, stream: stream, following: false) : nil
            var printed = false
            try Self.forEachReadable(in: session.log, query) { entry in
                printed = true
                if json != nil {
                    try json?.write(entry)
                } else {
                    try printLine(formatter.line(entry))
                }
            }
            try json?.requireCallSites()
            if !printed, let caseName { try Self.requireCase(caseName, stream: stream, in: session.log) }
        }
    }

    /// Calls `body` with each entry `query` selects, going on past damage, so that a damaged log still lists all that
    /// is intact: an entry or block of entries that cannot be read is passed over (``EntryIterator/skip(past:)``),
    /// and then one error says so (exit 5). (A damaged stream index costs nothing: the iterator reads the stream's
    /// entries from the whole log.) Damage that cannot be read past ends the listing there.
    static func forEachReadable(in log: EventLog, _ query: EntryQuery, _ body: (LogEntry) throws -> Void) throws {
        var iterator = log.entries(query)
        var skipped: [ClosedRange<UInt64>] = []
        var firstDamage: EventLogError?
        while true {
            let entry: LogEntry?
            do {
                entry = try iterator.next()
            } catch {
                firstDamage = firstDamage ?? error
                guard let stretch = try iterator.skip(past: error) else { throw error }
                skipped.append(stretch)
                continue
            }
            guard let entry else { break }
            try body(entry)
        }
        guard let firstDamage, let first = skipped.first else { return }
        let what = if first.upperBound == .max {
            "#\(first.lowerBound) and every entry after it were"
        } else if first.lowerBound == first.upperBound {
            "#\(first.lowerBound) was"
        } else {
            "#\(first.lowerBound)…#\(first.upperBound) were"
        }
        let more = skipped.count == 1 ? "" : " (and \(counted(skipped.count - 1, "more stretch", "more stretches")))"
        throw InspectorFailure.readPast(["\(what) left out\(more), the rest listed"], damage: firstDamage)
    }

    /// Refuses a case name no entry has (a typo, `setQery`), which would otherwise read as a case with no entries in
    /// range, naming the cases there are. A case found outside the range is an answer: none in range. Only run when
    /// nothing was listed, so a match costs nothing.
    static func requireCase(_ caseName: String, stream: String?, in log: EventLog) throws {
        var anywhere = log.entries(EntryQuery(limit: 1, stream: stream, caseName: caseName))
        if try anywhere.next() != nil { return }
        var names = Set<String>()
        var all = log.entries(EntryQuery(stream: stream))
        while let entry = try all.next() {
            if !entry.caseName.isEmpty { names.insert(entry.caseName) }
        }
        let owner = stream.map { "stream '\($0)'" } ?? "the log"
        let known = names.isEmpty ? "it has no named cases" : "its cases are \(names.sorted().joined(separator: ", "))"
        throw InspectorFailure("No entry of \(owner) has the case '\(caseName)': \(known).", exit: .invalidArgument)
    }
}

/// Parsing of the filters `log`, `tail` and `export` share.
enum EntryFilters {
    static func kinds(_ names: [String]) throws -> Set<EntryKind>? {
        guard !names.isEmpty else { return nil }
        return Set(try names.map { name in
            guard let kind = EntryKind(name: name) else {
                throw InspectorFailure("'\(name)' is not an entry kind. Use action, mutation, error, opened, resumed or closed (or effectError, streamOpened, streamResumed, streamClosed).", exit: .invalidArgument)
            }
            return kind
        })
    }

    /// ISO 8601, or a time of day today in the local time zone; nanoseconds since 1970.
    static func time(_ text: String) throws -> Int64 {
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = iso.date(from: text) { return try nanoseconds(date.timeIntervalSince1970, text) }
        iso.formatOptions = [.withInternetDateTime]
        if let date = iso.date(from: text) { return try nanoseconds(date.timeIntervalSince1970, text) }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Double($0) }
        if (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil }) {
            let values = parts.compactMap { $0 }
            let limits: [Double] = [24, 60, 60]
            guard zip(values, limits).allSatisfy({ $0 >= 0 && $0 < $1 }), values.dropLast().allSatisfy({ $0 == $0.rounded() }) else {
                throw InspectorFailure("'\(text)' is not a time of day. Use HH:MM[:SS] with hours 0 to 23 and minutes and seconds 0 to 59.", exit: .invalidArgument)
            }
            let seconds = values[0] * 3600 + values[1] * 60 + (values.count == 3 ? values[2] : 0)
            let midnight = Calendar.current.startOfDay(for: Date())
            return try nanoseconds(midnight.timeIntervalSince1970 + seconds, text)
        }
        throw InspectorFailure("'\(text)' is not a time. Use ISO 8601 (2026-11-21T22:37:55Z) or HH:MM[:SS] for today.", exit: .invalidArgument)
    }

    /// Seconds since 1970 as nanoseconds, which a log's times are; refuses times a log cannot hold.
    private static func nanoseconds(_ seconds: Double, _ text: String) throws -> Int64 {
        guard let value = Int64(exactly: (seconds * 1e9).rounded()) else {
            throw InspectorFailure("'\(text)' is out of range: a log holds times from 1678 to 2262.", exit: .invalidArgument)
        }
        return value
    }

    /// A `--limit` or `--lines` count, which cannot be negative.
    static func count(_ value: Int?, option: String) throws -> Int? {
        guard let value else { return nil }
        guard value >= 0 else {
            throw InspectorFailure("\(option) is \(value), but it counts entries: use 0 or more.", exit: .invalidArgument)
        }
        return value
    }
}

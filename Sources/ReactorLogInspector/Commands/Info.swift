import ArgumentParser
import EventLogKit
import Foundation

/// `reactorlog info`.
struct Info: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show a log's format, durability, streams and size.")

    @OptionGroup var log: LogArgument
    @OptionGroup var output: OutputOptions

    struct StreamJSON: Codable {
        let name: String
        let reactorType: String
        let schemaFingerprint: String
        let entries: Int
        let actions: Int
        let mutations: Int
        let errors: Int
        let first: UInt64?
        let last: UInt64?
        let firstTime: String?
        let lastTime: String?
        let snapshots: Int
        /// Stretches retention removed from the middle of the stream.
        let gaps: [ExportRange]
        /// The stream's finished schema eras, oldest first: which earlier types wrote which numbers.
        let schemaEras: [ExportSchemaEra]
    }

    struct PinJSON: Codable {
        let from: UInt64
        let through: UInt64
        /// Empty for a damaged pin.
        let reason: String
        /// Absent for a damaged pin.
        let createdAt: String?
        /// True for a pin whose record is damaged (``LogPin/isDamaged``); absent otherwise.
        let damaged: Bool?

        init(_ pin: LogPin) {
            (from, through, reason) = (pin.range.lowerBound, pin.range.upperBound, pin.reason)
            createdAt = pin.isDamaged ? nil : EntryLine.iso8601(nanoseconds: pin.createdAt)
            damaged = pin.isDamaged ? true : nil
        }

        /// The entries it keeps: `#40…#45`, `#40…end` for one open to the future, `#40` for one entry.
        var window: String { (from...through).window }

        /// Its reason, or for a damaged pin what is known of it.
        var said: String { damaged == true ? "a damaged pin record: its reason is lost; its window is kept (reactorlog verify)" : reason }
    }

    struct InfoJSON: Codable {
        let path: String
        let formatVersion: Int
        let codec: String
        let durability: String?
        let snapshotPolicy: String?
        /// `nil` where the log's record of it is lost.
        let createdAt: String?
        let createdBy: String
        let writtenBy: String
        /// Whether the path is an export or a pack rather than a log directory.
        let export: Bool
        /// The entries the log holds, in every stream.
        let entries: Int
        /// The highest sequence number given: above the last entry's after a trim, or in a pack of a longer log.
        let highestSequence: UInt64
        /// The log's files, or the export's file.
        let sizeBytes: Int
        /// Whether the log was read without LMDB's lock file, which this user may not write or the disk has no room for
        /// (`EventLog.readsWithoutLockFile`).
        let readWithoutLockFile: Bool
        let streams: [StreamJSON]
        /// The streams whose descriptors are damaged, left out of `streams` and `entries`; absent when none is.
        let damagedStreams: [DamagedStreamJSON]?
        let pins: [PinJSON]
        /// Why the metadata above (`formatVersion` to `writtenBy`) is as stored, unvouched: what is wrong with the
        /// checksum that seals it, such as "the metadata's checksum does not match its keys and values, so one of them
        /// is damaged", or that an import carried the values over so. Absent when the checksum vouches for them.
        let metadataDamage: String?
    }

    /// A stream whose descriptor cannot be read (`EventLog.damagedStreams()`).
    struct DamagedStreamJSON: Codable {
        /// Its id, as its entries name it; 0 for a descriptor whose key is not an id either.
        let id: UInt32
        /// What is wrong with the descriptor.
        let reason: String
    }

    func run() async throws {
        try await inspect(opening: log.log) { session in
            // A broken seal leaves the values shown as stored, marked, and named after the report.
            let (meta, sealDamage) = try session.log.storedMetadata()
            let damaged = try session.log.damagedStreams()
            var streams: [StreamJSON] = []
            // A stream's first or last entry in a damaged block leaves its time out, not the whole report.
            var unreadable = DamageTally()
            // Each stream's first and last times, for the table: local, as `log` lists them, with the date where it is not today.
            var clocks: [(first: String, last: String)] = []
            func time(_ sequence: UInt64?) throws -> Int64? {
                guard let sequence else { return nil }
                do {
                    return try session.log.entry(at: sequence)?.timestamp
                } catch {
                    guard case .corruptEntry = error else { throw error }
                    unreadable.add(error)
                    return nil
                }
            }
            // Each stream's snapshots, counted past keys that cannot be read, which the report then names.
            var uncounted = DamageTally()
            func snapshots(of stream: String) throws -> Int {
                let listing = try session.log.snapshotListing(stream: stream)
                if let damage = listing.damage { uncounted.add(damage) }
                return listing.sequences.count
            }
            for info in try session.log.streams() {
                let statistics = try session.log.statistics(stream: info.name)
                let firstTime = try time(statistics.first), lastTime = try time(statistics.last)
                clocks.append((firstTime.map(ClockTime.dated) ?? "-", lastTime.map(ClockTime.dated) ?? "-"))
                streams.append(StreamJSON(
                    name: info.name, reactorType: info.reactorType, schemaFingerprint: info.schemaFingerprint,
                    entries: statistics.entries, actions: statistics.kinds[.action] ?? 0,
                    mutations: statistics.kinds[.mutation] ?? 0, errors: statistics.kinds[.effectError] ?? 0,
                    first: statistics.first, last: statistics.last, firstTime: firstTime.map(EntryLine.iso8601), lastTime: lastTime.map(EntryLine.iso8601),
                    snapshots: try snapshots(of: info.name),
                    gaps: try session.log.gaps(stream: info.name).map { ExportRange(from: $0.removed.lowerBound, through: $0.removed.upperBound) },
                    schemaEras: try session.log.schemaHistory(stream: info.name).eras.map { ExportSchemaEra(fingerprint: $0.fingerprint, through: $0.through) }))
            }
            let pins = try session.log.pins()
            let report = InfoJSON(
                path: log.log, formatVersion: meta.formatVersion, codec: meta.codec, durability: meta.durability?.rawValue,
                snapshotPolicy: meta.snapshotPolicy?.description,
                createdAt: meta.createdAt.map(EntryLine.iso8601(nanoseconds:)),
                createdBy: meta.createdBy, writtenBy: meta.writtenBy, export: session.isExport,
                entries: streams.reduce(0) { $0 + $1.entries }, highestSequence: try session.log.highestSequence(),
                sizeBytes: session.sizeOnDisk,
                readWithoutLockFile: session.log.readsWithoutLockFile, streams: streams,
                damagedStreams: damaged.isEmpty ? nil : damaged.compactMap { damage in
                    guard case .corruptStream(let id, let reason) = damage else { return nil }
                    return DamagedStreamJSON(id: id, reason: reason)
                },
                pins: pins.map(PinJSON.init),
                metadataDamage: sealDamage?.unvouchedClause)
            if output.json {
                try printJSON(report)
                return try Self.requireReadable(unreadable, damaged: damaged, uncounted: uncounted, sealDamage: sealDamage)
            }
            let t = session.terminal
            let kind = report.export ? "an export of a log of format" : "format"
            try printLine("\(t.paint(log.log, .bold))  \(kind) \(report.formatVersion), codec \(report.codec), durability \(report.durability ?? "unknown"), snapshots \(report.snapshotPolicy ?? "unknown")")
            // Times in local time, as the table and listings print them; JSON's are UTC.
            let created = meta.createdAt.map(ClockTime.dateTime(nanoseconds:))
            try printLine("created \(created ?? "at a time the log no longer records") by ReactorLog \(report.createdBy), last written by \(report.writtenBy)")
            if let reason = report.metadataDamage {
                try printLine(t.paint("the two lines above are as stored, unvouched: \(reason)", .yellow))
            }
            // The count held, and the highest number given where the two differ (a trimmed log, a pack of a range).
            let numbered = UInt64(report.entries) == report.highestSequence ? "" : " (numbered up to #\(report.highestSequence))"
            try printLine("\(counted(report.entries, "entry", "entries"))\(numbered), \(Self.size(report.sizeBytes)) \(report.export ? "in the file" : "on disk")")
            if report.readWithoutLockFile {
                try printLine("read without LMDB's lock file, which this user may not write or the disk has no room for: a process that begins recording into the log ends the read")
            }
            try printLine("")
            let rows = [["stream", "reactor", "entries", "actions", "mutations", "errors", "range", "first", "last", "snapshots"]] + zip(streams, clocks).map { s, clock in
                [s.name, Self.shortType(s.reactorType), "\(s.entries)", "\(s.actions)", "\(s.mutations)", "\(s.errors)",
                 s.first.map { "#\($0)…#\(s.last ?? $0)" } ?? "-", clock.first, clock.last, "\(s.snapshots)"]
            }
            for line in Table.render(rows) { try printLine(line) }
            let gaps = streams.flatMap { stream in stream.gaps.map { [stream.name, "#\($0.from)…#\($0.through)"] } }
            if !gaps.isEmpty {
                try printLine("")
                try printLine("gaps (stretches retention removed; the states inside them are gone):")
                for line in Table.render(gaps) { try printLine("  " + line) }
            }
            let eras = streams.filter { !$0.schemaEras.isEmpty }
            if !eras.isEmpty {
                try printLine("")
                try printLine("schema changes (which types wrote which entries; older ones are read through migrations):")
                let rows = eras.flatMap { stream in
                    var start: UInt64 = 0
                    return stream.schemaEras.map { era in
                        defer { start = era.through + 1 }
                        return [stream.name, start == 0 ? "up to #\(era.through)" : "#\(start)…#\(era.through)", era.fingerprint]
                    } + [[stream.name, "from #\(start)", stream.schemaFingerprint]]
                }
                for line in Table.render(rows) { try printLine("  " + line) }
            }
            if !report.pins.isEmpty {
                try printLine("")
                try printLine("pins (windows retention keeps):")
                let rows = zip(report.pins, pins).map { json, pin in
                    [json.window, json.said, pin.isDamaged ? "" : ClockTime.dateTime(nanoseconds: pin.createdAt)]
                }
                for line in Table.render(rows) {
                    try printLine("  " + line)
                }
            }
            try Self.requireReadable(unreadable, damaged: damaged, uncounted: uncounted, sealDamage: sealDamage)
        }
    }

    /// After the report: the damage that left a time, a stream or a stream's snapshots (`uncounted`, their keys) out
    /// of it, or its metadata unvouched (`sealDamage`), as the command's error (exit 5).
    private static func requireReadable(_ unreadable: DamageTally, damaged: [EventLogError], uncounted: DamageTally, sealDamage: EventLogError?) throws {
        var done: [String] = []
        if sealDamage != nil { done.append("the metadata was shown as stored") }
        var leftOut: [String] = []
        if !damaged.isEmpty {
            leftOut.append(damaged.count == 1 ? "a stream whose descriptor is damaged was" : "\(damaged.count) streams whose descriptors are damaged were")
        }
        switch unreadable.count {
        case 0: break
        case 1: leftOut.append("a stream's first or last time was")
        case let count: leftOut.append("\(count) first or last times were")
        }
        switch uncounted.count {
        case 0: break
        case 1: leftOut.append("a stream's snapshots whose keys are damaged were")
        case let count: leftOut.append("snapshots whose keys are damaged, of \(count) streams, were")
        }
        if !leftOut.isEmpty { done.append(leftOut.joined(separator: " and ") + " left out, the rest shown") }
        guard let damage = sealDamage ?? damaged.first ?? unreadable.first ?? uncounted.first else { return }
        throw InspectorFailure.readPast(done, damage: damage)
    }

    static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? String(format: "%.1f MiB", Double(bytes) / Double(1 << 20)) : String(format: "%.1f KiB", Double(bytes) / 1024)
    }

    /// The size of the file at `path` in bytes; 0 when it cannot be read.
    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    static func shortType(_ type: String) -> String {
        type.split(separator: ".").last.map(String.init) ?? type
    }
}

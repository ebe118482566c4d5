import EventLogKit

/// The call sites of the actions a listing, an export or a timeline writes, also as JSON strings ready to copy into
/// their lines.
///
/// They are read from the streams' indexes a window of 65,536 steps at a time, each distinct site escaped once;
/// one action at a time when following a log being written (a window read now would miss later sites), and after a
/// window met a damaged index block, since a lookup per action then reads only the action's own block. Call sites
/// are kept in the index alone: an action whose block is damaged, or whose site's record is, is written without its
/// site and counted (``leftOut``), and ``require(_:rest:)`` ends the command with exit 5, so that a line without its
/// site is never mistaken for an action that recorded none.
struct CallSiteLookup {
    private let log: EventLog
    private let streams: [String]
    private let following: Bool
    private let hasCallSites: Bool
    private var windowed: Bool
    private var end: UInt64 = 0
    private var window: [UInt64: String] = [:]
    private var escaped: [String: [UInt8]] = [:]
    private(set) var leftOut = DamageTally()

    /// A lookup for the actions of `streams`; `following` when entries keep coming from a log being written.
    init(log: EventLog, streams: [String], following: Bool) throws {
        self.log = log
        self.streams = streams
        self.following = following
        hasCallSites = try log.hasCallSites()
        windowed = !following
    }

    /// The JSON string of the call site of the action at `sequence`, or `nil`: none recorded, or left out for damage.
    mutating func json(at sequence: UInt64) throws -> [UInt8]? {
        try site(at: sequence).map { site in
            if let bytes = escaped[site] { return bytes }
            var bytes: [UInt8] = []
            EntryLine.appendString(site, to: &bytes)
            escaped[site] = bytes
            return bytes
        }
    }

    /// The call site of the action at `sequence` (`File.swift:42`), or `nil`: none recorded, or left out for damage.
    mutating func site(at sequence: UInt64) throws -> String? {
        guard following || hasCallSites else { return nil }
        do {
            if windowed {
                do {
                    return try fromWindow(at: sequence)
                } catch let error as EventLogError {
                    guard Self.losesSites(error) else { throw error }
                    windowed = false
                }
            }
            return try log.callSite(at: sequence)
        } catch let error as EventLogError {
            guard Self.losesSites(error) else { throw error }
            leftOut.add(error)
            return nil
        }
    }

    /// Whether `damage`, thrown by a lookup of call sites, costs actions their sites and nothing else: a damaged
    /// stream index, where the sites' numbers are kept, or a site record damaged or missing (which the lookup
    /// reports against the entry that names it).
    private static func losesSites(_ damage: EventLogError) -> Bool {
        switch damage {
        case .corruptIndex, .corruptEntry: true
        default: false
        }
    }

    /// Throws, after the lines are written, the damage that left `leftOut`'s call sites out of them (exit 5), or
    /// nothing when none was; `rest` says what was done with the others ("listed", "written").
    static func require(_ leftOut: DamageTally, rest: String) throws {
        guard let damage = leftOut.first else { return }
        throw InspectorFailure.readPast(["\(leftOutClause(leftOut.count)), the rest \(rest)"], damage: damage)
    }

    /// What `count` actions left without their call sites are, as a clause: `an action's call site was left out`.
    static func leftOutClause(_ count: Int) -> String {
        count == 1 ? "an action's call site was left out" : "\(count) actions' call sites were left out"
    }

    private mutating func fromWindow(at sequence: UInt64) throws -> String? {
        if sequence > end {
            end = sequence &+ 65_535
            window = [:]
            for stream in streams {
                window.merge(try log.callSites(stream: stream, from: sequence, through: end)) { first, _ in first }
            }
        }
        return window[sequence]
    }
}

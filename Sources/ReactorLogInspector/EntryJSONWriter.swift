import EventLogKit

/// Writes entries to standard output as the lines of `log --json` and `tail --json`: ``EntryLine``'s hand-written
/// line with the payload's members sorted, the values Foundation's `JSONEncoder` writes for ``EntryJSON`` with sorted
/// keys (spelled as `export` spells numbers and strings), in a sixth of its time. An action's call site is read from the log a window of steps at a time
/// (``CallSiteWindow``) when the listing has a known end, and one entry at a time when it follows a log being
/// written, whose later call sites a window read now would miss.
struct EntryJSONWriter {
    private let log: EventLog
    private var window: CallSiteWindow?
    private let following: Bool
    private let hasCallSites: Bool

    /// A writer for a listing of `stream`, or of every stream; `following` when entries keep coming from a log being
    /// written.
    init(log: EventLog, stream: String?, following: Bool) throws {
        self.log = log
        self.following = following
        hasCallSites = try log.hasCallSites()
        window = following || !hasCallSites
            ? nil : CallSiteWindow(log: log, streams: try stream.map { [$0] } ?? log.streams().map(\.name))
    }

    /// Writes `entry`'s line.
    mutating func write(_ entry: LogEntry) throws {
        let site = entry.kind == .action ? try callSiteJSON(entry) : nil
        try StandardOutput.append { out in
            entry.withView { EntryLine.append($0, wrapped: false, callSiteJSON: site, sortingPayload: true, to: &out) }
            out.append(UInt8(ascii: "\n"))
        }
    }

    /// The first damage of a stream index that left an action's call site out of a line, and how many were left out.
    private(set) var leftOutSites: (damage: EventLogError, count: Int)?

    /// Throws, after the listing, the damage that left call sites out of it (exit 5), so that a line without its
    /// call site is never mistaken for an action that recorded none.
    func requireCallSites() throws {
        guard let (damage, count) = leftOutSites else { return }
        let what = count == 1 ? "an action's call site was" : "\(count) actions' call sites were"
        throw InspectorFailure.readPast(["\(what) left out, the rest listed"], damage: damage)
    }

    private mutating func callSiteJSON(_ action: LogEntry) throws -> [UInt8]? {
        do {
            // A window that meets a damaged index gives way to a lookup per action, which reads only its own block.
            if window != nil {
                do {
                    return try window?.json(at: action.sequence)
                } catch let error as EventLogError {
                    guard case .corruptIndex = error else { throw error }
                    window = nil
                }
            }
            guard following || hasCallSites, let site = try log.callSite(of: action) else { return nil }
            var bytes: [UInt8] = []
            EntryLine.appendString(site, to: &bytes)
            return bytes
        } catch let error as EventLogError {
            guard case .corruptIndex = error else { throw error }
            leftOutSites = (leftOutSites?.damage ?? error, (leftOutSites?.count ?? 0) + 1)
            return nil
        }
    }
}

import EventLogKit

/// Writes entries to standard output as the lines of `log --json` and `tail --json`: ``EntryLine``'s hand-written
/// line with the payload's members sorted, the values Foundation's `JSONEncoder` writes for ``EntryJSON`` with sorted
/// keys (spelled as `export` spells numbers and strings), in a sixth of its time; each action's call site from a
/// ``CallSiteLookup``.
struct EntryJSONWriter {
    private var sites: CallSiteLookup

    /// A writer for a listing of `stream`, or of every stream; `following` when entries keep coming from a log being
    /// written.
    init(log: EventLog, stream: String?, following: Bool) throws {
        sites = try CallSiteLookup(log: log, streams: try stream.map { [$0] } ?? log.streams().map(\.name), following: following)
    }

    /// Writes `entry`'s line, with the members `log --changes` adds (``EntryLine/append(_:wrapped:callSiteJSON:redaction:sortingPayload:changes:to:)``).
    mutating func write(_ entry: LogEntry, changes: String? = nil) throws {
        let site = entry.kind == .action ? try sites.json(at: entry.sequence) : nil
        try StandardOutput.append { out in
            entry.withView { EntryLine.append($0, wrapped: false, callSiteJSON: site, sortingPayload: true, changes: changes, to: &out) }
            out.append(UInt8(ascii: "\n"))
        }
    }

    /// Throws, after the listing, the damage that left call sites out of it (exit 5), so that a line without its
    /// call site is never mistaken for an action that recorded none.
    func requireCallSites() throws {
        try CallSiteLookup.require(sites.leftOut, rest: "listed")
    }
}

/// What a log stopped by a write failure (a full disk) reports when it writes again
/// (``EventLogConfiguration/onWriteResumed``): the failure it got past, and for each stream whose appends it refused
/// meanwhile, how many it refused, when, and the `unwritten` entry that stands for them in the log. The log keeps
/// that entry and a pin of it whose reason counts them (``RefusedAppends/pinReason``; docs/DURABILITY.md, "When the
/// disk fills"): this is where an app gets the counts as values, for its own telemetry.
public struct WriteResumption: Sendable, Equatable {
    /// The failure that had stopped writing, as ``EventLog/writeFailure`` held it last.
    public let failure: EventLogError
    /// The appends refused while writing was stopped, one item a stream, in the order of each stream's first refusal;
    /// empty when nothing was appended meanwhile.
    public let refused: [RefusedAppends]

    /// The appends of one stream refused while writing was stopped.
    public struct RefusedAppends: Sendable, Equatable {
        /// The stream's name.
        public let stream: String
        /// How many entries were refused (an append of a batch counts each of its entries).
        public let entries: Int
        /// How many of them were mutations: while any was, the stream's states from ``unwrittenEntry`` to its next
        /// snapshot are not in the log.
        public let mutations: Int
        /// When the first and the last were refused: nanoseconds since 1970-01-01 UTC.
        public let firstRefusedAt: Int64
        /// See ``firstRefusedAt``.
        public let lastRefusedAt: Int64
        /// The sequence number of the `unwritten` entry that stands for them in the stream, queued as writing
        /// resumed and committed with the next commit (the log's `flush()` waits for it).
        public let unwrittenEntry: UInt64

        /// The reason of the pin the log gives the `unwritten` entry (``EventLog/pins()``), which keeps these counts
        /// in the log: `write failure: 'search' lost 22 entries (18 mutations) over 3.215 s`.
        public var pinReason: String {
            let milliseconds = max(0, lastRefusedAt - firstRefusedAt) / 1_000_000
            let fraction = String(milliseconds % 1000)
            let span = "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) s"
            return "write failure: '\(stream)' lost \(entries) \(entries == 1 ? "entry" : "entries") "
                + "(\(mutations) \(mutations == 1 ? "mutation" : "mutations")) over \(span)"
        }

        /// A stream's refused appends; the log makes them.
        public init(stream: String, entries: Int, mutations: Int, firstRefusedAt: Int64, lastRefusedAt: Int64, unwrittenEntry: UInt64) {
            self.stream = stream
            self.entries = entries
            self.mutations = mutations
            self.firstRefusedAt = firstRefusedAt
            self.lastRefusedAt = lastRefusedAt
            self.unwrittenEntry = unwrittenEntry
        }
    }

    /// A resumption; the log makes them.
    public init(failure: EventLogError, refused: [RefusedAppends]) {
        self.failure = failure
        self.refused = refused
    }
}

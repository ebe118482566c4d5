/// Which entries to read: a sequence range, optionally narrowed to a stream, kinds, a case or a time.
/// All bounds are inclusive; an empty range (`from > through`) or a limit of 0 reads nothing.
public struct EntryQuery: Sendable, Hashable {
    /// The lowest sequence number to read.
    public var from: UInt64
    /// The highest sequence number to read.
    public var through: UInt64
    /// The most entries to return, or `nil` for all.
    public var limit: Int?
    /// Only this stream's entries; reading one stream does not scan the others.
    public var stream: String?
    /// Only entries of these kinds.
    public var kinds: Set<EntryKind>? {
        didSet { kindMask = kinds.map(KindMask.init) }
    }
    /// ``kinds`` as a bit per kind, tested for every entry a query reads: a set's `contains` hashes, which showed in
    /// profiles of replay at 5% of its instructions.
    private var kindMask: KindMask?
    /// Only entries with this case name.
    public var caseName: String?
    /// Only entries appended at or after this time (nanoseconds since 1970).
    public var since: Int64?
    /// Only entries appended at or before this time (nanoseconds since 1970). A filter, as ``since`` is: a log's times
    /// follow its wall clock, which may step back, so the read does not stop at the first entry after it.
    public var until: Int64?

    /// Creates a query; the defaults read every entry.
    public init(
        from: UInt64 = 1, through: UInt64 = .max, limit: Int? = nil, stream: String? = nil,
        kinds: Set<EntryKind>? = nil, caseName: String? = nil, since: Int64? = nil,
        until: Int64? = nil
    ) {
        self.from = from
        self.through = through
        self.limit = limit
        self.stream = stream
        self.kinds = kinds
        kindMask = kinds.map(KindMask.init)
        self.caseName = caseName
        self.since = since
        self.until = until
    }

    /// Whether entries of kind `kind` are read: every kind when ``kinds`` is `nil`.
    func admits(_ kind: EntryKind) -> Bool {
        kindMask?.contains(kind.rawValue) ?? true
    }

    func matches(_ header: EntryRecord.Header, caseBytes: UnsafeRawBufferPointer) -> Bool {
        matches(kind: header.kind, timestamp: header.timestamp, caseBytes: caseBytes)
    }

    /// Whether `entry`'s kind, case name and time are ones the query selects, its range, stream and limit aside: for a
    /// reader that walks entries another way (the inspector's `log --changes` walks a stream's states).
    public func matches(_ entry: LogEntry) -> Bool {
        var name = entry.caseName
        return name.withUTF8 { matches(kind: entry.kind, timestamp: entry.timestamp, caseBytes: UnsafeRawBufferPointer($0)) }
    }

    @inline(__always)
    private func matches(kind: EntryKind, timestamp: Int64, caseBytes: UnsafeRawBufferPointer) -> Bool {
        if !admits(kind) { return false }
        if let since, timestamp < since { return false }
        if let until, timestamp > until { return false }
        if let caseName, !caseBytes.elementsEqual(caseName.utf8) { return false }
        return true
    }
}

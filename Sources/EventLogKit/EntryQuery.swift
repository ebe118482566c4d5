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
    public var kinds: Set<EntryKind>?
    /// Only entries with this case name.
    public var caseName: String?
    /// Only entries appended at or after this time (nanoseconds since 1970).
    public var since: Int64?

    /// Creates a query; the defaults read every entry.
    public init(
        from: UInt64 = 1, through: UInt64 = .max, limit: Int? = nil, stream: String? = nil,
        kinds: Set<EntryKind>? = nil, caseName: String? = nil, since: Int64? = nil
    ) {
        self.from = from
        self.through = through
        self.limit = limit
        self.stream = stream
        self.kinds = kinds
        self.caseName = caseName
        self.since = since
    }

    func matches(_ header: EntryRecord.Header, caseBytes: UnsafeRawBufferPointer) -> Bool {
        if let kinds, !kinds.contains(header.kind) { return false }
        if let since, header.timestamp < since { return false }
        if let caseName, !caseBytes.elementsEqual(caseName.utf8) { return false }
        return true
    }
}

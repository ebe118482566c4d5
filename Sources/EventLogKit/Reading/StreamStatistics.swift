/// A stream's size, read from its index: see ``EventLog/statistics(stream:)``.
public struct StreamStatistics: Sendable, Hashable {
    /// How many entries the stream holds.
    public internal(set) var entries = 0
    /// Its first sequence number, if it has entries.
    public internal(set) var first: UInt64?
    /// Its last sequence number, if it has entries.
    public internal(set) var last: UInt64?
    /// How many entries of each kind.
    public internal(set) var kinds: [EntryKind: Int] = [:]
}

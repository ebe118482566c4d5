/// How much of its history a log keeps. Beyond any bound, the writer thread removes the oldest entries in the
/// background, a few thousand per step between commits, so appends never wait for it; removed pages are reused,
/// so the data file stops growing. Sequence numbers are never reused, and every remaining entry stays
/// replayable: each stream keeps the snapshot its remaining entries replay from. Windows pinned with
/// ``EventLog/pin(_:reason:)`` are kept, with the state they start from; retention removes around them.
///
/// Retention removes whole stretches between a stream's snapshots, so a stream that writes no snapshots (the
/// ``SnapshotPolicy/never`` policy) is never shortened.
public struct RetentionPolicy: Sendable, Hashable {
    /// The most the data file should take on disk, in bytes. Removal starts when the log's live pages reach 60 %
    /// of it and brings them back to 50 %; the rest is room for LMDB's copy-on-write pages, so the file stays
    /// within the budget.
    public var maxBytes: Int?
    /// The oldest entry to keep, by its time.
    public var maxAge: Duration?
    /// The most entries to keep (pinned windows may add to it).
    public var maxEntries: Int?
    /// Pins this many entries before and after every effect error, so that an incident and what led to it
    /// survive retention (``EventLog/pins()`` lists them).
    public var pinAroundErrors: Int?

    /// A policy; `nil` bounds are not enforced.
    public init(maxBytes: Int? = nil, maxAge: Duration? = nil, maxEntries: Int? = nil, pinAroundErrors: Int? = nil) {
        self.maxBytes = maxBytes
        self.maxAge = maxAge
        self.maxEntries = maxEntries
        self.pinAroundErrors = pinAroundErrors
    }
}

/// How to open a log for writing. The defaults suit an app: grouped durability, a snapshot every
/// 256 mutations, binary payloads.
public struct EventLogConfiguration: Sendable {
    /// When appends count as safe.
    public var durability: Durability = .grouped
    /// When streams should write snapshots.
    public var snapshotPolicy: SnapshotPolicy = .default
    /// How much history the log keeps; `nil` (the default) keeps everything.
    public var retention: RetentionPolicy?
    /// The codec for new payloads: ``BinaryLogCodec`` by default; ``JSONLogCodec`` writes payloads any JSON tool
    /// reads as they are stored.
    public var codec: any LogCodec = BinaryLogCodec()
    /// The initial size of LMDB's memory map; it doubles whenever it fills, so a small value is safe.
    public var initialMapSize: Int = 64 << 20
    /// The largest the map may grow to; a log that needs more stops with ``EventLogError/writeFailed(path:lastCommitted:unwritten:underlying:)``.
    public var maxMapSize: Int = 1 << 40
    /// How many entries may wait for the writer thread before appends wait (backpressure). While commits write to
    /// many streams, up to four times as many may wait (64 for each stream the last commit wrote to): a commit
    /// rewrites a page of each such stream's index, so larger commits cost a server's many sessions far less.
    public var queueCapacity: Int = 16_384
    /// How many payload bytes may wait for the writer thread before appends wait (backpressure).
    public var queueByteCapacity: Int = 64 << 20
    /// The least time from the start of one commit to the start of the next, in ``Durability/grouped`` and
    /// ``Durability/noSync`` durability; `.zero` (the default) commits as soon as the last commit ends. Every commit
    /// rewrites a few pages whatever it holds (about 20 KiB), so a steady trickle of appends, a commit each, costs
    /// the disk far more than the entries themselves: a longer interval lets them gather into fewer commits, and a
    /// crash may then take the last interval's entries too (docs/DURABILITY.md). Whatever waits for a commit —
    /// `flush()`, an append in ``Durability/sync`` durability, closing — does not wait for the interval,
    /// nor does a queue half full.
    public var commitInterval: Duration = .zero
    /// Called from the writer thread when a write fails and the log stops accepting appends until a retry writes
    /// again (``writeRetryInterval``): once a stop, however many retries fail after it.
    public var onWriteFailure: (@Sendable (EventLogError) -> Void)?
    /// Called from the writer thread when a log stopped by a write failure writes again (a retry, or
    /// ``EventLog/resumeWriting()``): with the failure, and how many appends of each stream were refused meanwhile
    /// and which `unwritten` entry stands for them (the log keeps the counts as the reason of a pin of that entry).
    public var onWriteResumed: (@Sendable (WriteResumption) -> Void)?
    /// How long a log stopped by a write failure (a full disk) waits before it tries again, and again after each
    /// retry that fails; `nil` for never (``EventLog/resumeWriting()`` still does). A retry writes what was queued
    /// when writing stopped, then takes appends again; each stream whose appends were refused meanwhile gets an
    /// `unwritten` entry there (docs/DURABILITY.md, "When the disk fills"). Default 10 seconds.
    public var writeRetryInterval: Duration? = .seconds(10)

    /// The defaults documented on each property.
    public init() {}

    /// The defaults with the given durability.
    public init(durability: Durability) {
        self.durability = durability
    }
}

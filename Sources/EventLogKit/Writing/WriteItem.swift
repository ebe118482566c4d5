import Foundation

/// One unit of work for the writer thread. Items are committed in queue order; the entries of one
/// item always go into the same transaction, which makes a batch atomic.
enum WriteItem: Sendable {
    /// One entry (the common case, kept apart to spare an array per append).
    case entry(EntryRecord.Pending)
    /// Entries that must be committed together.
    case batch([EntryRecord.Pending])
    /// An entry whose payload the writer thread encodes (``LogStream/append(_:cause:callSite:encoding:)``).
    case deferred(DeferredEntry)
    /// A snapshot, committed after the entries queued before it.
    case snapshot(Snapshot)
    /// A snapshot whose state the writer thread encodes (``LogStream/writeSnapshot(at:encoding:)``).
    case deferredSnapshot(DeferredSnapshot)
    /// A request to sync to disk after the commit, for ``EventLog/flush()`` in `noSync` mode.
    case sync
    /// A new stream's descriptor with its `opened` marker, if it has one, committed in one transaction: the stream is
    /// on disk with its first entry, never before or after it. Boxed: inline, its 193 bytes were the size of every item
    /// of the queue, which the sender writes and the writer reads an entry at a time, and a stream opens once.
    indirect case stream(StreamInfo, opened: EntryRecord.Pending?)

    var entryCount: Int {
        switch self {
        case .entry, .deferred: 1
        case .batch(let entries): entries.count
        case .stream(_, let opened): opened == nil ? 0 : 1
        case .snapshot, .deferredSnapshot, .sync: 0
        }
    }

    var byteCount: Int {
        switch self {
        case .entry(let entry): entry.size
        case .batch(let entries): entries.reduce(0) { $0 + $1.size }
        case .snapshot(let snapshot): SnapshotRecord.size(stateBytes: snapshot.state.count)
        case .deferred, .deferredSnapshot: DeferredEntry.estimatedSize
        case .sync: 0
        case .stream(let info, let opened): StreamRecord.size(info) + (opened?.size ?? 0)
        }
    }
}

/// An entry whose sequence number, stream, kind, time and cause are fixed when it is appended, and whose
/// case name and payload the writer thread makes with its encoder.
struct DeferredEntry: Sendable {
    /// What a deferred item counts for in the queue's byte budget before it is encoded.
    static let estimatedSize = 128

    // In this order the fields leave one gap, of a byte: 88 bytes. The call site is two fields, not an optional of
    // a `StaticString` and a `UInt` (33 bytes, which made the entry 105 and a queue item 112): the file's 17 bytes
    // leave room for kind and codec before a 4-byte line, and "no call site" is a line no source has.
    let sequence: UInt64
    let streamID: UInt32
    let encoder: EncoderID
    let timestamp: Int64
    let cause: UInt64
    /// The value as the sender handed it over, which the encoder registered as ``encoder`` turns into the case name
    /// and payload.
    let value: any Sendable
    /// The `send` call's file, read only when ``siteLine`` says there is a call site.
    private let siteFile: StaticString
    let kind: EntryKind
    let codec: CodecID
    /// The `send` call's line, up to `UInt32.max - 1`; ``noSite`` for none.
    private let siteLine: UInt32
    private static let noSite = UInt32.max

    init(
        sequence: UInt64, streamID: UInt32, encoder: EncoderID, timestamp: Int64, cause: UInt64, kind: EntryKind,
        codec: CodecID, value: any Sendable, callSite: (fileID: StaticString, line: UInt)?
    ) {
        (self.sequence, self.streamID, self.encoder, self.timestamp, self.cause) = (sequence, streamID, encoder, timestamp, cause)
        (self.kind, self.codec, self.value) = (kind, codec, value)
        siteFile = callSite?.fileID ?? ""
        siteLine = callSite.map { UInt32(min($0.line, UInt(Self.noSite - 1))) } ?? Self.noSite
    }

    /// The `send` call's file and line, formatted on the writer thread.
    var callSite: (fileID: StaticString, line: UInt)? {
        siteLine == Self.noSite ? nil : (siteFile, UInt(siteLine))
    }

    /// The entry to write, its payload encoded by `encoding` at the end of `payloads` (a mutation's size counted in
    /// its tally), or, when encoding fails, an entry that keeps the sequence gapless and says so (case name
    /// `unencodable`, codec none, no payload; docs/FORMAT.md).
    func encoded(_ encoding: DeferredEncoding?, into payloads: inout ByteBuffer, tallying tallied: inout Int) -> EntryRecord.Encoded {
        // A registration outlives every entry that names it (LogWriter.unregister): its absence is a bug to catch.
        assert(encoding != nil, "entry #\(sequence) names encoder \(encoder.number), which is not registered")
        let start = payloads.count
        // Called through the optional, not on a binding of it, which counted a reference for every entry.
        if let caseName = encoding?.encode(self, into: &payloads, tallying: &tallied) {
            return EntryRecord.Encoded(
                sequence: sequence, streamID: streamID, kind: kind, codec: codec, timestamp: timestamp,
                cause: cause, caseName: caseName, payload: start..<payloads.count, callSite: site)
        }
        // A mutation without its value leaves the states after it unknown until a snapshot: the stream's owner is
        // asked for one at its next mutation.
        if kind == .mutation { encoding?.tally.requestSnapshot() }
        return EntryRecord.Encoded(
            sequence: sequence, streamID: streamID, kind: kind, codec: .none, timestamp: timestamp,
            cause: cause, caseName: MissingValue.unencodable.rawValue, payload: start..<start, callSite: site)
    }

    private var site: EntryRecord.Site? {
        callSite.map { .source(fileID: $0.fileID, line: $0.line) }
    }
}

/// A snapshot whose state the writer thread encodes; one whose state cannot be encoded is not written.
struct DeferredSnapshot: Sendable {
    let streamID: UInt32
    let sequence: UInt64
    let timestamp: Int64
    let codec: CodecID
    let encode: @Sendable () throws -> Data

    func snapshot() -> Snapshot? {
        guard let state = try? encode() else { return nil }
        return Snapshot(streamID: streamID, sequence: sequence, timestamp: timestamp, codec: codec, state: state)
    }
}

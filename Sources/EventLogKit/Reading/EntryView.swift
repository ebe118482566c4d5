import Foundation

/// An entry read in place, inside a read transaction: its case name and payload point into the log's memory map,
/// so reading millions of entries copies nothing. Valid only during the call that receives it
/// (``EventLog/forEachEntry(_:undescribed:_:)``); copy what must outlive it.
public struct EntryView {
    /// The entry's sequence number.
    public let sequence: UInt64
    /// The id of the entry's stream.
    public let streamID: UInt32
    /// The stream's name.
    public let stream: String
    /// What the entry records.
    public let kind: EntryKind
    /// The payload's codec.
    public let codec: CodecID
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    public let timestamp: Int64
    /// The action that caused it, if any.
    public let cause: UInt64?
    /// The case name's UTF-8 bytes (checked to be valid UTF-8).
    public let caseName: UnsafeRawBufferPointer
    /// The payload's bytes.
    public let payload: UnsafeRawBufferPointer

    /// Whether the entry is in the log without its value (its value could not be encoded; see
    /// ``EntryKind/lacksValue(codec:)``): for a mutation, replay cannot go through it.
    public var lacksValue: Bool { kind.lacksValue(codec: codec) }

    /// Why the entry has no value, or `nil` when it has one (``lacksValue``).
    public var missingValue: MissingValue? {
        lacksValue ? MissingValue(caseName: String(decoding: caseName, as: UTF8.self)) : nil
    }
}

extension EventLog {
    /// Calls `body` with every entry `query` selects, in sequence order, read in place (see ``EntryView``): the
    /// fast path for passing a whole log on (`reactorlog export`). Entries are read in chunks of short read
    /// transactions, as ``entries(_:)`` reads them, so a live log's writer is never held up; `body` runs inside
    /// them and should not block.
    ///
    /// A query of one stream walks the stream's index (the path of replay and time travel); a query with a limit
    /// goes through ``entries(_:)`` and its copies.
    ///
    /// An entry of a stream whose descriptor is damaged (``damagedStreams()``) ends the walk with
    /// ``EventLogError/corruptEntry(sequence:reason:)``; given `undescribed`, it is passed over instead and handed to
    /// `undescribed` with its number and the descriptor's damage (`reactorlog export` writes the other streams).
    public func forEachEntry(
        _ query: EntryQuery = EntryQuery(), undescribed: ((UInt64, EventLogError) -> Void)? = nil, _ body: (EntryView) throws -> Void
    ) throws {
        guard query.limit == nil else {
            var iterator = entries(query)
            while true {
                do {
                    guard let entry = try iterator.next() else { return }
                    try entry.withView(body)
                } catch let error as EventLogError {
                    guard let undescribed, let (sequence, damage) = try iterator.passOverUndescribed(error) else { throw error }
                    undescribed(sequence, damage)
                }
            }
        }
        var iterator = entries(query)
        try iterator.forEachInPlace(undescribed: undescribed, body)
    }
}

extension LogEntry {
    /// A copy of `view` that outlives it.
    public init(copying view: EntryView) {
        self.init(
            sequence: view.sequence, streamID: view.streamID, stream: view.stream, kind: view.kind, timestamp: view.timestamp,
            cause: view.cause, caseName: String(decoding: view.caseName, as: UTF8.self), codec: view.codec, payload: Data(view.payload))
    }

    /// This entry as an ``EntryView`` for the duration of `body`.
    public func withView<R>(_ body: (EntryView) throws -> R) rethrows -> R {
        var name = caseName
        return try name.withUTF8 { caseBytes in
            try payload.withUnsafeBytes { payloadBytes in
                try body(EntryView(
                    sequence: sequence, streamID: streamID, stream: stream, kind: kind, codec: codec, timestamp: timestamp, cause: cause,
                    caseName: UnsafeRawBufferPointer(caseBytes), payload: payloadBytes))
            }
        }
    }
}

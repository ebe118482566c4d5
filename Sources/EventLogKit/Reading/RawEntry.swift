import Foundation

/// A record copied out of a read transaction, its stream not yet named: how the entry iterator and the lookups by
/// number both make a ``LogEntry`` (a view read in place is copied by `LogEntry(copying:)` instead). The copy is
/// made inside the transaction; naming the stream may need a transaction of its own, so it comes after.
struct RawEntry {
    let header: EntryRecord.Header
    let caseName: String
    let payload: Data

    /// Copies the record `record`, whose header is `header`.
    init(_ header: EntryRecord.Header, _ record: UnsafeRawBufferPointer) throws(EventLogError) {
        let reader = ByteReader(bytes: record)
        guard let caseName = reader.string(header.caseRange) else {
            throw .corruptEntry(sequence: header.sequence, reason: "its case name is not valid UTF-8")
        }
        self.header = header
        self.caseName = caseName
        self.payload = reader.data(header.payloadRange)
    }

    /// The entry, its stream named from `names`, which are reloaded from `storage` when the stream is new to them
    /// (another process made it since).
    func entry(names: inout [UInt32: StreamInfo], storage: LogStorage) throws(EventLogError) -> LogEntry {
        var found = names[header.streamID]
        if found == nil {
            // A stream made since the descriptors were read: the new ones are read. The cache's copy is let go of
            // first, so that adding them changes the cache in place instead of copying every descriptor.
            names = [:]
            found = try storage.stream(id: header.streamID)
            names = storage.cachedStreams
        }
        guard let info = found else {
            throw .corruptEntry(sequence: header.sequence, reason: "it names stream id \(header.streamID), \(storage.undescribed(header.streamID))")
        }
        return LogEntry(
            sequence: header.sequence, streamID: header.streamID, stream: info.name, kind: header.kind,
            timestamp: header.timestamp, cause: header.cause == 0 ? nil : header.cause,
            caseName: caseName, codec: header.codec, payload: payload)
    }
}

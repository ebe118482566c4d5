import Foundation

extension EventLog {
    /// Creates stream `name` exactly as it was recorded in another log, with no marker entry: what
    /// `reactorlog import` and `reactorlog pack` use to rebuild a log whose entries keep their numbers.
    ///
    /// A stream restored from the middle of its history has a `sequenceFloor` above 0 and its starting state
    /// as a snapshot at that number (``restoreSnapshot(stream:sequence:timestamp:state:codec:)``), as a trimmed
    /// stream has. Raise the log's floor to at least `sequenceFloor` (``raiseSequenceFloor(to:)``).
    public func restoreStream(_ info: StreamInfo) throws(EventLogError) {
        let writer = try requireWriter()
        // The name is checked where the id is given, under the writer's lock.
        guard try writer.createStream(info, opened: nil) != nil else {
            throw .invalidArgument("Stream '\(info.name)' cannot be restored: the log already has a stream of that name.")
        }
        // On disk before what is restored in transactions of its own names it (its gaps, its schema eras).
        try writer.flush()
    }

    /// Appends `draft` to restored stream `name` under the number it was recorded with, its time and cause
    /// as they are in the draft. Numbers must rise from one entry to the next; a number it skips must be at
    /// or below the log's floor (``raiseSequenceFloor(to:)``), or ``verify(progress:)`` reports the gap.
    public func restoreEntry(_ draft: EntryDraft, sequence: UInt64, stream name: String) throws(EventLogError) {
        let writer = try requireWriter()
        try writer.restore(draft, sequence: sequence, streamID: try restoredStream(name).id)
    }

    /// Records `state` as restored stream `name`'s state right after entry `sequence`, with the time it was
    /// recorded at. It is committed after every entry restored before it.
    public func restoreSnapshot(stream name: String, sequence: UInt64, timestamp: Int64, state: Data, codec: CodecID) throws(EventLogError) {
        let writer = try requireWriter()
        guard sequence >= 1 else { throw .invalidArgument("A snapshot describes an entry; #0 is none.") }
        try writer.write(Snapshot(streamID: try restoredStream(name).id, sequence: sequence, timestamp: timestamp, codec: codec, state: state))
    }

    /// Records `gap` of a restored stream, as retention recorded it in the source log; the log becomes format
    /// version 2. Its snapshot (at the gap's upper bound) is restored as any other.
    public func restoreGap(_ gap: StreamGap) throws(EventLogError) {
        _ = try requireWriter()
        let id = try restoredStream(gap.stream).id
        try storage.write { txn in try storage.recordGap(txn, stream: id, removed: gap.removed) }
    }

    /// Records a finished schema era of restored stream `name`, as its source log recorded it (``SchemaHistory``);
    /// the log becomes format version 3.
    public func restoreSchemaEra(_ era: SchemaHistory.Era, stream name: String) throws(EventLogError) {
        _ = try requireWriter()
        let id = try restoredStream(name).id
        try storage.write { txn in try storage.recordSchemaEra(txn, stream: id, era: era) }
    }

    /// Records when the source log was created (nanoseconds since 1970) and, when known, by which ReactorLog
    /// version, so that a rebuilt log tells its source's creation, not its own.
    public func restoreCreation(at createdAt: Int64, by library: String?) throws(EventLogError) {
        _ = try requireWriter()
        var values = [LogLayout.MetaKey.createdAt: String(createdAt)]
        if let library { values[LogLayout.MetaKey.createdBy] = library }
        try storage.write { txn in try storage.putMetadata(txn, values) }
    }

    /// Records that the log's metadata values came to it unvouched, `reason` saying why (the damage the metadata of the
    /// log an export was written from had): from then on ``metadata()`` refuses them, ``storedMetadata()`` gives them
    /// with that damage, and an export carries it on. The import's path, after ``restoreCreation(at:by:)``.
    package func markMetadataUnvouched(because reason: String) throws(EventLogError) {
        _ = try requireWriter()
        try storage.write { txn in try storage.putMetadata(txn, [LogLayout.MetaKey.unvouched: reason]) }
    }

    /// Raises the log's sequence floor to `floor` (it never goes down): numbers at or below it may be missing,
    /// as after a trim, and new entries are numbered above it.
    public func raiseSequenceFloor(to floor: UInt64) throws(EventLogError) {
        let writer = try requireWriter()
        writer.skip(through: floor)
        guard floor > (try storage.storedMetadata().metadata.sequenceFloor) else { return }
        try storage.write { txn in
            try storage.putMetadata(txn, [LogLayout.MetaKey.sequenceFloor: String(floor)])
        }
    }

    private func restoredStream(_ name: String) throws(EventLogError) -> StreamInfo {
        guard let info = try storage.stream(named: name) else { throw .unknownStream(name: name) }
        guard !isStreamOpen(info.id) else { throw .streamInUse(name: name) }
        return info
    }
}

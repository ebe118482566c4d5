import LMDB

extension EventLog {
    /// Records that stream `name` is from now on written with types of fingerprint `fingerprint`: for a schema
    /// change the stream's entries still decode with, directly or through migrations (the owner checked). What
    /// the stream holds so far becomes a finished era of its ``SchemaHistory``, so readers keep decoding it as
    /// the old types wrote it. The stream must not be open for writing.
    public func updateSchemaFingerprint(_ fingerprint: String, stream name: String) throws(EventLogError) {
        guard let existing = try storage.stream(named: name) else { throw .unknownStream(name: name) }
        guard existing.schemaFingerprint != fingerprint else { return }
        // The era ends at the stream's last entry, queued ones included.
        try requireWriter().flush()
        let era = SchemaHistory.Era(fingerprint: existing.schemaFingerprint, through: try highestSequence(stream: name))
        try rewriteStream(name, alsoIn: { txn, info in try storage.recordSchemaEra(txn, stream: info.id, era: era) }) { info in
            info.schemaFingerprint = fingerprint
        }
    }

    /// Which types wrote which numbers of stream `name`: its finished eras and its current fingerprint. An era
    /// whose record is damaged has the fingerprint ``SchemaHistory/unknownFingerprint``
    /// (``verify(progress:)`` names it).
    public func schemaHistory(stream name: String) throws(EventLogError) -> SchemaHistory {
        guard let info = try storage.stream(named: name) else { throw .unknownStream(name: name) }
        return SchemaHistory(eras: try storage.read { txn in try storage.schemaEras(txn, stream: info.id) }, current: info.schemaFingerprint)
    }

    /// Renames stream `name` to `name@N`, the first such name free (N from 1), so that a new stream can be made
    /// under `name` while the old one's entries stay readable: a new *generation* after a schema change the old
    /// entries cannot be read with. Returns the new name. The stream must not be open for writing.
    @discardableResult
    public func retireStream(named name: String) throws(EventLogError) -> String {
        let names = Set(try streams().map(\.name))
        var generation = 1
        while names.contains("\(name)@\(generation)") { generation += 1 }
        let retired = "\(name)@\(generation)"
        guard retired.utf8.count <= 255 else {
            throw .invalidArgument("Stream '\(name)' cannot be retired: '\(retired)' is longer than 255 bytes.")
        }
        try rewriteStream(name) { info in info.name = retired }
        return retired
    }

    /// Replaces stream `name`'s descriptor with `change(descriptor)`, in one transaction with `alsoIn`.
    private func rewriteStream(
        _ name: String, alsoIn more: (Transaction, StreamInfo) throws -> Void = { _, _ in }, _ change: (inout StreamInfo) -> Void
    ) throws(EventLogError) {
        let writer = try requireWriter()
        guard let info = try storage.stream(named: name) else { throw .unknownStream(name: name) }
        guard !isStreamOpen(info.id) else { throw .streamInUse(name: name) }
        // A new stream's descriptor may still wait in the queue: committed first, it is not committed over the change.
        if storage.isPending(info.id) { try writer.flush() }
        var updated = info
        change(&updated)
        try storage.write { txn in
            try more(txn, info)
            try txn.put(storage.streams, key: KeyCoding.stream(info.id), value: StreamRecord.encode(updated))
        }
        storage.cache(updated)
    }
}

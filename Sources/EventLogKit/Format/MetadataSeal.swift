import LMDB

/// The checksum that seals a log's `meta` database (format version 6).
///
/// Every other record of a log carries a CRC-32C; the metadata is plain text, so a damaged digit of `created-at`
/// or `sequence-floor` would read as a valid value. The seal is a CRC-32C over every other key and value of `meta`,
/// in key order, each preceded by its length as a `u32` (little-endian), stored under `metadata-checksum` as 8
/// lowercase hexadecimal digits (docs/FORMAT.md, "Metadata"). Every transaction that writes metadata seals it again.
enum MetadataSeal {
    /// What a log's seal says about its metadata.
    enum Status: Equatable {
        /// The log has no seal (written before format version 6).
        case missing
        /// The seal matches the metadata.
        case intact
        /// The seal does not match: a key or a value, or the seal itself, is damaged.
        case broken(stored: String, computed: String)
    }

    /// `meta`'s records in `txn`, in key order, as stored.
    static func records(_ txn: Transaction, _ meta: Database) throws -> [(key: [UInt8], value: [UInt8])] {
        var records: [(key: [UInt8], value: [UInt8])] = []
        try txn.withCursor(meta) { cursor in
            var item = try cursor.first()
            while let current = item {
                records.append((Array(current.key), Array(current.value)))
                item = try cursor.next()
            }
        }
        return records
    }

    /// The seal `meta`'s other keys and values call for, as stored.
    static func computed(_ txn: Transaction, _ meta: Database) throws -> String {
        computed(try records(txn, meta))
    }

    /// The seal `records`, keys and values in key order, call for; the seal's own record is passed over.
    static func computed(_ records: [(key: [UInt8], value: [UInt8])]) -> String {
        let sealKey = Array(LogLayout.MetaKey.checksum.utf8)
        var covered: [UInt8] = []
        for record in records where record.key != sealKey {
            for field in [record.key, record.value] {
                withUnsafeBytes(of: UInt32(field.count).littleEndian) { covered.append(contentsOf: $0) }
                covered.append(contentsOf: field)
            }
        }
        let hex = String(CRC32C.checksum(covered), radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// Whether `meta`'s seal is missing, intact or broken.
    static func status(_ txn: Transaction, _ meta: Database) throws -> Status {
        status(of: try records(txn, meta))
    }

    /// Whether the seal among `records` (in key order) is missing, intact or broken.
    static func status(of records: [(key: [UInt8], value: [UInt8])]) -> Status {
        let sealKey = Array(LogLayout.MetaKey.checksum.utf8)
        guard let stored = records.first(where: { $0.key == sealKey }) else { return .missing }
        let (text, computed) = (String(decoding: stored.value, as: UTF8.self), computed(records))
        return text == computed ? .intact : .broken(stored: text, computed: computed)
    }

    /// Seals `meta` again, after a write to it in `txn`.
    static func seal(_ txn: Transaction, _ meta: Database) throws {
        try txn.put(meta, key: Array(LogLayout.MetaKey.checksum.utf8), value: Array(try computed(txn, meta).utf8))
    }
}

import LMDB

/// The records of a log's `meta` database, read by walking its page in order rather than by LMDB's search, with one
/// damaged record put back where the seal vouches for exactly one value for it.
///
/// A record whose node a zeroed sector wiped tells no key (0 bytes, below every other), and LMDB's search within the
/// page can then miss a sound key beside it: with the seal's record wiped, the format version went unfound and nothing
/// of the log was read. The walk finds every sound record. A wiped record's value is lost, a damaged value of a key
/// whose values are few (the format version, the codec, the durability) reads as another (a format version 9, which
/// said "upgrade ReactorLog", or one that is not a number), and a damaged key is none of ReactorLog's (the format
/// version's lost); but where the seal is broken, or missing through its own key, and vouches for exactly one record in
/// place of the wiped or damaged one (a value of few, a key the metadata lacks), that one is put back (``mended``).
struct MetaRecords {
    /// A record put back in place of a damaged one, which the seal vouches for.
    enum Mending: Equatable {
        /// A record a zeroed sector wiped, whose key and value are put back.
        case wiped(key: String, value: String)
        /// A record whose value a bad bit changed: it read `read`.
        case value(key: String, value: String, read: [UInt8])
        /// A record whose key a bad bit changed: it read `read`. Its value is sound (`value` is `nil`), or, where the bad
        /// bit was in the key's size, which moves where the value is read from, `value`, one of the key's few.
        case key(key: String, read: [UInt8], value: String?)
    }

    /// Each sound record's value, by key, and the record put back.
    private(set) var values: [String: String] = [:]
    /// How many records tell no key.
    private(set) var wiped = 0
    /// The record put back, which the seal vouches for.
    private(set) var mended: Mending?
    /// The seal's status over the records read, with the record put back.
    private(set) var seal: MetadataSeal.Status

    /// Walks `meta` in `txn`.
    init(_ txn: Transaction, _ meta: Database) throws {
        let all = try MetadataSeal.records(txn, meta)
        let records = all.filter { !$0.key.isEmpty }
        wiped = all.count - records.count
        for record in records { values[String(decoding: record.key, as: UTF8.self)] = String(decoding: record.value, as: UTF8.self) }
        seal = MetadataSeal.status(of: records)
        switch seal {
        case .intact:
            return
        case .missing:
            // Perhaps lost to a bad bit in its own record's key.
            if wiped == 0 { mendSealKey(records, foreignKeys: Self.foreignKeys(records)) }
            return
        case .broken:
            guard wiped <= 1 else { return }
        }
        let missing = LogLayout.MetaKey.all.filter { values[$0] == nil }
        // Each record the seal may vouch for: a wiped one's key and value, a damaged value of a key of few values, a
        // damaged key's own.
        var trials: [Mending] = Self.candidates.compactMap { candidate in
            switch (wiped, values[candidate.key]) {
            case (1, nil): .wiped(key: candidate.key, value: candidate.value)
            case (0, let read?) where read != candidate.value:
                .value(key: candidate.key, value: candidate.value, read: records.first { $0.key == Array(candidate.key.utf8) }?.value ?? [])
            default: nil
            }
        }
        if wiped == 0 {
            trials += Self.foreignKeys(records).flatMap { read in
                let stored = values[String(decoding: read, as: UTF8.self)]
                return missing.flatMap { key in
                    [Mending.key(key: key, read: read, value: nil)]
                        + Self.candidates.filter { $0.key == key && $0.value != stored }.map { Mending.key(key: key, read: read, value: $0.value) }
                }
            }
        }
        let vouched = trials.filter { MetadataSeal.status(of: Self.records(records, with: $0)) == .intact }
        guard vouched.count == 1, let found = vouched.first else { return }
        apply(found)
    }

    /// A damaged key of the seal's own record, which leaves the seal missing: put back when the record it names is the
    /// only one whose key is not ReactorLog's and its value seals the rest.
    private mutating func mendSealKey(_ records: [(key: [UInt8], value: [UInt8])], foreignKeys: [[UInt8]]) {
        guard foreignKeys.count == 1, let read = foreignKeys.first else { return }
        let mending = Mending.key(key: LogLayout.MetaKey.checksum, read: read, value: nil)
        guard MetadataSeal.status(of: Self.records(records, with: mending)) == .intact else { return }
        apply(mending)
    }

    /// Takes `mending` into ``values`` and the seal, which vouches for it.
    private mutating func apply(_ mending: Mending) {
        switch mending {
        case .wiped(let key, let value), .value(let key, let value, _): values[key] = value
        case .key(let key, let read, let value):
            let stored = values.removeValue(forKey: String(decoding: read, as: UTF8.self))
            values[key] = value ?? stored
        }
        (mended, seal) = (mending, .intact)
    }

    /// The keys of `records`, as stored, that are not ReactorLog's: a bad bit in one of its own.
    private static func foreignKeys(_ records: [(key: [UInt8], value: [UInt8])]) -> [[UInt8]] {
        records.map(\.key).filter { !LogLayout.MetaKey.all.contains(String(decoding: $0, as: UTF8.self)) }
    }

    /// `records` with `mending` in place, in key order.
    private static func records(_ records: [(key: [UInt8], value: [UInt8])], with mending: Mending) -> [(key: [UInt8], value: [UInt8])] {
        var with = records
        switch mending {
        case .wiped(let key, let value):
            with.append((Array(key.utf8), Array(value.utf8)))
        case .value(let key, let value, _):
            with = with.map { $0.key == Array(key.utf8) ? ($0.key, Array(value.utf8)) : $0 }
        case .key(let key, let read, let value):
            with = with.map { $0.key == read ? (Array(key.utf8), value.map { Array($0.utf8) } ?? $0.value) : $0 }
        }
        with.sort { $0.key.lexicographicallyPrecedes($1.key) }
        return with
    }

    /// The format version the records hold; `nil` when they hold none or it is not a number.
    var formatVersion: Int? { values[LogLayout.MetaKey.formatVersion].flatMap { Int($0) } }

    /// The values a wiped or damaged record may be put back as: those of the keys whose values are few.
    private static var candidates: [(key: String, value: String)] {
        typealias Key = LogLayout.MetaKey
        return (1...EventLog.formatVersion).map { (Key.formatVersion, String($0)) }
            + [CodecID.json, .binary].map { (Key.codec, $0.description) }
            + Durability.allCases.map { (Key.durability, $0.rawValue) }
    }

    /// The damaged records, as an object of "has" (`a record that tells no key (…), whose value its seal vouches for as
    /// format-version 8`; `a format-version record that reads '9', …`); `nil` when none is damaged.
    var damagedRecords: String? {
        switch mended {
        case .value(let key, let value, let read):
            return "a \(key) record that reads '\(MendedRecord.shown(read))', a damaged value: its seal vouches for \(value)"
        case .key(let key, let read, nil):
            return "a record under key '\(MendedRecord.shown(read))', a damaged key: its seal vouches for it as \(key)"
        case .key(let key, let read, let value?):
            return "a record under key '\(MendedRecord.shown(read))', a damaged key size: its seal vouches for it as \(key) \(value)"
        case .wiped, nil:
            guard wiped > 0 else { return nil }
            let what = wiped == 1 ? "a record that tells no key" : "\(wiped) records that tell no key"
            let value = if case .wiped(let key, let value) = mended { ", whose value its seal vouches for as \(key) \(value)" } else { ", whose value is lost" }
            return "\(what) (a node a zeroed sector wiped)\(value)"
        }
    }
}

import LMDB

/// The records of a log's `meta` database, read by walking its page in order rather than by LMDB's search.
///
/// A record whose node a zeroed sector wiped tells no key (0 bytes, below every other), and LMDB's search within the
/// page can then miss a sound key beside it: with the seal's record wiped, the format version went unfound and nothing
/// of the log was read. The walk finds every sound record. A wiped record's value is lost, but where it is the one
/// wiped record and its key is one whose values are few (the format version, the codec, the durability), the seal
/// vouches for at most one of them: that one is put back (``restored``).
struct MetaRecords {
    /// Each sound record's value, by key, and the value put back.
    private(set) var values: [String: String] = [:]
    /// How many records tell no key.
    private(set) var wiped = 0
    /// The key and value put back in place of the wiped record, which the seal vouches for.
    private(set) var restored: (key: String, value: String)?
    /// The seal's status over the records read, with the value put back.
    private(set) var seal: MetadataSeal.Status

    /// Walks `meta` in `txn`.
    init(_ txn: Transaction, _ meta: Database) throws {
        let all = try MetadataSeal.records(txn, meta)
        let records = all.filter { !$0.key.isEmpty }
        wiped = all.count - records.count
        for record in records { values[String(decoding: record.key, as: UTF8.self)] = String(decoding: record.value, as: UTF8.self) }
        seal = MetadataSeal.status(of: records)
        guard wiped == 1, case .broken = seal else { return }
        let vouched = Self.candidates.filter { values[$0.key] == nil }.filter { candidate in
            var with = records + [(Array(candidate.key.utf8), Array(candidate.value.utf8))]
            with.sort { $0.key.lexicographicallyPrecedes($1.key) }
            return MetadataSeal.status(of: with) == .intact
        }
        guard vouched.count == 1, let found = vouched.first else { return }
        (restored, values[found.key], seal) = (found, found.value, .intact)
    }

    /// The values a wiped record may be put back as: those of the keys whose values are few.
    private static var candidates: [(key: String, value: String)] {
        typealias Key = LogLayout.MetaKey
        return (1...EventLog.formatVersion).map { (Key.formatVersion, String($0)) }
            + [CodecID.json, .binary].map { (Key.codec, $0.description) }
            + Durability.allCases.map { (Key.durability, $0.rawValue) }
    }

    /// The wiped records, as an object of "has" (`a record that tells no key (…), whose value its seal vouches for as
    /// format-version 8`); `nil` when none is wiped.
    var wipedRecords: String? {
        guard wiped > 0 else { return nil }
        let what = wiped == 1 ? "a record that tells no key" : "\(wiped) records that tell no key"
        let value = restored.map { ", whose value its seal vouches for as \($0.key) \($0.value)" } ?? ", whose value is lost"
        return "\(what) (a node a zeroed sector wiped)\(value)"
    }
}

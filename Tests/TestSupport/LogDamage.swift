import Foundation
import LMDB

/// Damage to a closed log made through LMDB, the file's structure untouched: what a bad disk does to one record.
public enum LogDamage {
    /// Flips bits `mask` of the middle byte of one record of database `name` of the closed log at `path`, under the
    /// record's checksum: the record `choose` picks from the database's keys, in order. Returns its key.
    @discardableResult
    public static func flipByte(of path: String, database name: String, mask: UInt8, choose: ([[UInt8]]) -> [UInt8]) throws -> [UInt8] {
        let environment = try Environment(path: path)
        let database = try environment.openDatabase(name)
        return try environment.write { txn in
            let keys = try txn.withCursor(database) { cursor in
                var keys: [[UInt8]] = []
                var item = try cursor.first()
                while let current = item {
                    keys.append(Array(current.key))
                    item = try cursor.next()
                }
                return keys
            }
            let key = choose(keys)
            guard let record = try txn.get(database, key: key) else { throw CocoaError(.fileReadCorruptFile) }
            var bytes = Array(record)
            bytes[bytes.count / 2] ^= mask
            try txn.put(database, key: key, value: bytes)
            return key
        }
    }

    /// Of the keys of a log's `entries` (each the first number of its block, big-endian in its last 8 bytes), the one
    /// nearest the middle whose block, once damaged, leaves states after it that are rebuilt through it: no snapshot
    /// from the block's fourth-last number to the next block's second. (A snapshot at the block's last mutation holds
    /// the states after it; in the demo's streams a mutation is never more than three entries from the next.)
    public static func blockBeforeUnreadableStates(_ keys: [[UInt8]], snapshots: [UInt64]) -> [UInt8] {
        let firsts = keys.map { $0.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        let middle = keys.count / 2
        let candidates = (0..<max(keys.count - 1, 0)).filter { index in
            let next = firsts[index + 1]
            return next > 4 && !snapshots.contains { $0 >= next - 4 && $0 <= next + 1 }
        }
        let chosen = candidates.min { abs($0 - middle) < abs($1 - middle) } ?? middle
        return keys[chosen]
    }
}

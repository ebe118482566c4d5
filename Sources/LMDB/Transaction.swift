import CLMDB

/// A transaction, valid only inside the ``Environment/read(_:)`` or ``Environment/write(_:)`` closure
/// that received it. Buffers it returns point into the map and are valid only until that closure returns.
public struct Transaction {
    let handle: OpaquePointer
    /// Whether writes are refused.
    public let isReadOnly: Bool

    /// The value stored under `key`, or `nil` when there is none.
    public func get(_ database: Database, key: UnsafeRawBufferPointer) throws(LMDBError) -> UnsafeRawBufferPointer? {
        var k = MDB_val(key)
        var v = MDB_val()
        let rc = mdb_get(handle, database.dbi, &k, &v)
        if rc == MDB_NOTFOUND { return nil }
        try LMDBError.check(rc, "mdb_get")
        return UnsafeRawBufferPointer(v)
    }

    /// The value stored under `key`, or `nil` when there is none.
    public func get(_ database: Database, key: [UInt8]) throws(LMDBError) -> UnsafeRawBufferPointer? {
        try withBytes(key) { (k) throws(LMDBError) in try get(database, key: k) }
    }

    /// Stores `value` under `key`.
    public func put(
        _ database: Database, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, flags: WriteFlags = []
    ) throws(LMDBError) {
        var k = MDB_val(key)
        var v = MDB_val(value)
        try LMDBError.check(mdb_put(handle, database.dbi, &k, &v, flags.rawValue), "mdb_put")
    }

    /// Stores `value` under `key`.
    public func put(_ database: Database, key: [UInt8], value: [UInt8], flags: WriteFlags = []) throws(LMDBError) {
        try withBytes(key) { (k) throws(LMDBError) in
            try withBytes(value) { (v) throws(LMDBError) in try put(database, key: k, value: v, flags: flags) }
        }
    }

    /// Reserves `size` bytes under `key` and lets `fill` write the value in place, saving a copy (`MDB_RESERVE`).
    public func reserve(
        _ database: Database, key: UnsafeRawBufferPointer, size: Int, flags: WriteFlags = [],
        fill: (UnsafeMutableRawBufferPointer) -> Void
    ) throws(LMDBError) {
        var k = MDB_val(key)
        var v = MDB_val(mv_size: size, mv_data: nil)
        try LMDBError.check(
            mdb_put(handle, database.dbi, &k, &v, flags.rawValue | UInt32(MDB_RESERVE)), "mdb_put(reserve)")
        fill(UnsafeMutableRawBufferPointer(start: v.mv_data, count: size))
    }

    /// Deletes `key`; returns whether it existed.
    @discardableResult
    public func delete(_ database: Database, key: UnsafeRawBufferPointer) throws(LMDBError) -> Bool {
        var k = MDB_val(key)
        let rc = mdb_del(handle, database.dbi, &k, nil)
        if rc == MDB_NOTFOUND { return false }
        try LMDBError.check(rc, "mdb_del")
        return true
    }

    /// Deletes `key`; returns whether it existed.
    @discardableResult
    public func delete(_ database: Database, key: [UInt8]) throws(LMDBError) -> Bool {
        try withBytes(key) { (k) throws(LMDBError) in try delete(database, key: k) }
    }

    /// Opens the existing named database `name` inside this transaction, or returns `nil` when there is none. A
    /// handle a transaction opens is the environment's once it commits, and closed if it aborts.
    public func openDatabase(_ name: String) throws(LMDBError) -> Database? {
        var dbi = MDB_dbi()
        let rc = mdb_dbi_open(handle, name, 0, &dbi)
        if rc == MDB_NOTFOUND { return nil }
        try LMDBError.check(rc, "mdb_dbi_open(\(name))")
        return Database(dbi: dbi, name: name)
    }

    /// Deletes `database` and its keys from the environment (`mdb_drop`). LMDB closes its handle at once, even if
    /// this transaction then fails: a transaction that may run again must open the database anew
    /// (``openDatabase(_:)``).
    public func drop(_ database: Database) throws(LMDBError) {
        try LMDBError.check(mdb_drop(handle, database.dbi, 1), "mdb_drop")
    }

    /// The number of keys in `database`.
    public func count(_ database: Database) throws(LMDBError) -> Int {
        var stat = MDB_stat()
        try LMDBError.check(mdb_stat(handle, database.dbi, &stat), "mdb_stat")
        return stat.ms_entries
    }

    /// The number of pages `database`'s tree holds (branch, leaf and overflow pages).
    public func pages(_ database: Database) throws(LMDBError) -> Int {
        var stat = MDB_stat()
        try LMDBError.check(mdb_stat(handle, database.dbi, &stat), "mdb_stat")
        return stat.ms_branch_pages + stat.ms_leaf_pages + stat.ms_overflow_pages
    }

    /// Runs `body` with a cursor over `database`; the cursor is closed when `body` returns.
    public func withCursor<R>(_ database: Database, _ body: (Cursor) throws -> R) throws -> R {
        var cursor: OpaquePointer?
        try LMDBError.check(mdb_cursor_open(handle, database.dbi, &cursor), "mdb_cursor_open")
        guard let cursor else { throw LMDBError(code: MDB_BAD_TXN, operation: "mdb_cursor_open") }
        defer { mdb_cursor_close(cursor) }
        return try body(Cursor(handle: cursor))
    }
}

extension MDB_val {
    init(_ buffer: UnsafeRawBufferPointer) {
        self.init(mv_size: buffer.count, mv_data: UnsafeMutableRawPointer(mutating: buffer.baseAddress))
    }
}

extension UnsafeRawBufferPointer {
    init(_ value: MDB_val) {
        self.init(start: value.mv_data, count: value.mv_size)
    }
}

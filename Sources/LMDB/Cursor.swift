import CLMDB

/// A key and its value, both pointing into the map: valid until the transaction's closure returns.
public struct KeyValue {
    /// The key's bytes.
    public let key: UnsafeRawBufferPointer
    /// The value's bytes.
    public let value: UnsafeRawBufferPointer
}

/// A position in a ``Database``, valid only inside ``Transaction/withCursor(_:_:)``.
///
/// Each move returns the ``KeyValue`` it lands on, or `nil` when there is none.
public struct Cursor {
    let handle: OpaquePointer

    /// Moves to the first key.
    public func first() throws(LMDBError) -> KeyValue? { try move(MDB_FIRST) }
    /// Moves to the last key.
    public func last() throws(LMDBError) -> KeyValue? { try move(MDB_LAST) }
    /// Moves to the next key.
    public func next() throws(LMDBError) -> KeyValue? { try move(MDB_NEXT) }
    /// Moves to the previous key.
    public func previous() throws(LMDBError) -> KeyValue? { try move(MDB_PREV) }
    /// The key the cursor is on.
    public func current() throws(LMDBError) -> KeyValue? { try move(MDB_GET_CURRENT) }

    /// Moves to the first key greater than or equal to `key`.
    public func seek(atOrAfter key: UnsafeRawBufferPointer) throws(LMDBError) -> KeyValue? {
        try move(MDB_SET_RANGE, key: key)
    }

    /// Moves to the first key greater than or equal to `key`.
    public func seek(atOrAfter key: [UInt8]) throws(LMDBError) -> KeyValue? {
        try withBytes(key) { (k) throws(LMDBError) in try seek(atOrAfter: k) }
    }

    /// Moves to the last key less than or equal to `key`: one seek and at most one step back.
    public func seek(atOrBefore key: UnsafeRawBufferPointer) throws(LMDBError) -> KeyValue? {
        if let found = try seek(atOrAfter: key) {
            if found.key.elementsEqual(key) { return found }
            return try previous()
        }
        return try last()
    }

    /// Moves to the last key less than or equal to `key`: one seek and at most one step back.
    public func seek(atOrBefore key: [UInt8]) throws(LMDBError) -> KeyValue? {
        try withBytes(key) { (k) throws(LMDBError) in try seek(atOrBefore: k) }
    }

    /// Deletes the key the cursor is on. To go on walking, seek again: after deleting the last key
    /// the cursor has no position.
    public func deleteCurrent() throws(LMDBError) {
        try LMDBError.check(mdb_cursor_del(handle, 0), "mdb_cursor_del")
    }

    /// Stores `size` bytes under `key` that `fill` writes in place, and leaves the cursor on them. Putting key
    /// after key through one cursor spares what ``Transaction/reserve(_:key:size:flags:fill:)`` pays for each:
    /// `mdb_put` sets up a cursor of its own every time, which looks the tree's pages up again in the write
    /// transaction's list of dirty pages (measured: that search disappears for appends through a kept cursor).
    public func reserve(
        key: UnsafeRawBufferPointer, size: Int, flags: WriteFlags = [], fill: (UnsafeMutableRawBufferPointer) -> Void
    ) throws(LMDBError) {
        var k = MDB_val(key)
        var v = MDB_val(mv_size: size, mv_data: nil)
        try LMDBError.check(mdb_cursor_put(handle, &k, &v, flags.rawValue | UInt32(MDB_RESERVE)), "mdb_cursor_put(reserve)")
        fill(UnsafeMutableRawBufferPointer(start: v.mv_data, count: size))
    }

    private func move(_ op: MDB_cursor_op, key: UnsafeRawBufferPointer? = nil) throws(LMDBError) -> KeyValue? {
        var k = key.map(MDB_val.init) ?? MDB_val()
        var v = MDB_val()
        let rc = mdb_cursor_get(handle, &k, &v, op)
        if rc == MDB_NOTFOUND { return nil }
        try LMDBError.check(rc, "mdb_cursor_get")
        return KeyValue(key: UnsafeRawBufferPointer(k), value: UnsafeRawBufferPointer(v))
    }
}

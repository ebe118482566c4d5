import CLMDB

/// An error returned by LMDB, with the operation that failed and LMDB's own message.
///
/// The description reads as a sentence, for example
/// `mdb_env_open failed: No such file or directory (code 2)`.
public struct LMDBError: Error, Sendable, Hashable, CustomStringConvertible {
    /// LMDB's return code: an `MDB_*` error or a system `errno`.
    public let code: Int32
    /// The LMDB call or wrapper operation that failed, such as `mdb_put`.
    public let operation: String

    /// Creates an error for `code` returned by `operation`.
    public init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
    }

    /// LMDB's message for the code (from `mdb_strerror`).
    public var message: String {
        String(cString: mdb_strerror(code))
    }

    /// `operation failed: message (code N)`.
    public var description: String {
        "\(operation) failed: \(message) (code \(code))"
    }

    /// The key was not found (`MDB_NOTFOUND`).
    public var isNotFound: Bool { code == MDB_NOTFOUND }
    /// The key exists and the write refused to overwrite it (`MDB_KEYEXIST`).
    public var isKeyExists: Bool { code == MDB_KEYEXIST }
    /// The memory map is full (`MDB_MAP_FULL`); growing the map and retrying the transaction fixes it.
    public var isMapFull: Bool { code == MDB_MAP_FULL }
    /// A database handle was closed, or its database dropped by another process (`MDB_BAD_DBI`).
    public var isBadHandle: Bool { code == MDB_BAD_DBI }

    /// The error of a database that another process dropped while this one held its handle (`MDB_BAD_DBI`), for
    /// a caller that learns of it another way than from LMDB.
    public static func dropped(_ name: String) -> LMDBError {
        LMDBError(code: MDB_BAD_DBI, operation: "reading '\(name)'")
    }
    /// Another process grew the map (`MDB_MAP_RESIZED`).
    public var isMapResized: Bool { code == MDB_MAP_RESIZED }
    /// The file is not an LMDB environment or has an incompatible version (`MDB_INVALID`, `MDB_VERSION_MISMATCH`).
    public var isInvalidFile: Bool { code == MDB_INVALID || code == MDB_VERSION_MISMATCH }
    /// A named database's record does not describe a database with the flags asked for (`MDB_INCOMPATIBLE`): in a
    /// file whose writer always used the same flags, a damaged record.
    public var isIncompatible: Bool { code == MDB_INCOMPATIBLE }
    /// The file is corrupted (`MDB_CORRUPTED`, `MDB_PAGE_NOTFOUND`, `MDB_PANIC`).
    public var isCorrupted: Bool { code == MDB_CORRUPTED || code == MDB_PAGE_NOTFOUND || code == MDB_PANIC }

    /// Throws an `LMDBError` when `code` is not `MDB_SUCCESS`.
    @inlinable
    static func check(_ code: Int32, _ operation: @autoclosure () -> String) throws(LMDBError) {
        if code != MDB_SUCCESS {
            throw LMDBError(code: code, operation: operation())
        }
    }
}

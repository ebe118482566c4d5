import CLMDB

/// A handle to a named database inside an ``Environment``.
///
/// Open each database once, right after opening the environment, with ``Environment/openDatabase(_:flags:)``,
/// and keep the handle for the environment's lifetime.
public struct Database: Sendable, Hashable {
    /// LMDB's database handle.
    public let dbi: MDB_dbi
    /// The database's name, or `nil` for the unnamed main database.
    public let name: String?
}

/// Options for opening a ``Database``.
public struct DatabaseFlags: OptionSet, Sendable, Hashable {
    /// The raw `MDB_*` flag bits.
    public let rawValue: UInt32
    /// Creates flags from raw `MDB_*` bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Create the database when it does not exist (`MDB_CREATE`); needs a writable environment.
    public static let create = DatabaseFlags(rawValue: UInt32(MDB_CREATE))
    /// Keys are native-endian unsigned integers of one size (`MDB_INTEGERKEY`).
    public static let integerKey = DatabaseFlags(rawValue: UInt32(MDB_INTEGERKEY))
}

/// Options for a single write.
public struct WriteFlags: OptionSet, Sendable, Hashable {
    /// The raw `MDB_*` flag bits.
    public let rawValue: UInt32
    /// Creates flags from raw `MDB_*` bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Fail with `MDB_KEYEXIST` rather than overwrite an existing key (`MDB_NOOVERWRITE`).
    public static let noOverwrite = WriteFlags(rawValue: UInt32(MDB_NOOVERWRITE))
    /// The key is greater than every key in the database (`MDB_APPEND`): faster, and pages are filled completely.
    /// A key that is not greater fails with `MDB_KEYEXIST`.
    public static let append = WriteFlags(rawValue: UInt32(MDB_APPEND))
    /// Through a cursor, replace the value of the key it is on, with the key given the same (`MDB_CURRENT`): no
    /// search of the tree, so a value is rewritten where its node lies even among keys damaged out of order.
    public static let current = WriteFlags(rawValue: UInt32(MDB_CURRENT))
}

import LMDB

/// Names of the log's LMDB databases and metadata keys (docs/FORMAT.md), and how its format version is read.
enum LogLayout {
    static let dataFile = "data.mdb"
    static let lockFile = "lock.mdb"
    static let writerLockFile = "writer.lock"
    /// The files a log directory holds beside its data: a directory of these alone holds no log yet.
    static let lockFiles = [lockFile, writerLockFile]
    /// The data file of a copy being written (``EventLog/copy(to:compact:claimed:)``), renamed `data.mdb` once it is whole.
    static let unfinishedCopyFile = "data.mdb.unfinished"

    static let metaDatabase = "meta"
    static let entriesDatabase = "entries"
    static let streamsDatabase = "streams"
    static let snapshotsDatabase = "snapshots"
    static let allDatabases = [metaDatabase, entriesDatabase, streamsDatabase, snapshotsDatabase]
    /// The stream index (``StreamIndex``): `stream-index` since format version 5, `stream-entries` before; a log
    /// has one of them.
    static let streamIndexDatabase = "stream-index"
    static let streamRecordsDatabase = "stream-entries"
    /// Databases a log gets when it is first opened for writing by a version that knows them: a log without them
    /// has no gaps, no pins, no call sites and no schema eras.
    static let gapsDatabase = "gaps"
    static let pinsDatabase = "pins"
    static let sitesDatabase = "sites"
    static let schemasDatabase = "schemas"
    static let optionalDatabases = [gapsDatabase, pinsDatabase, sitesDatabase, schemasDatabase]
    /// Every database a log's main database may name: a record there whose name is one bit from one of these that no
    /// record has is that database's, renamed by a bad bit (`PageTreeCheck.problem(inDataFile:forWriting:databases:passingOver:checkingCommits:)`).
    static let namedDatabases = Set(allDatabases + [streamIndexDatabase, streamRecordsDatabase] + optionalDatabases)

    /// The format version of a log without gaps or schema eras; a log whose retention removed entries from the
    /// middle of a stream is version 2 (or more), and one with a stream whose types changed is version 3: older
    /// readers refuse them rather than call gaps damage or read old payloads as new.
    static let baseFormatVersion = 1
    /// The version a log with gaps needs.
    static let gapsFormatVersion = 2
    /// The version a log with schema eras needs.
    static let schemaErasFormatVersion = 3
    /// The version of a log whose entries may be in the compact record layout.
    static let compactRecordsFormatVersion = 4
    /// The version of a log whose stream index is kept in blocks: every log a writer opens is raised to it, since
    /// the writer writes compact records and index blocks only.
    static let indexBlocksFormatVersion = 5
    /// The version of a log whose metadata is sealed by a checksum (``MetadataSeal``): every log a writer opens is
    /// raised to it, and sealed.
    static let sealedMetadataFormatVersion = 6
    /// The version of a log whose entries may be packed into blocks (``EntryBlock``): every log a writer opens is
    /// raised to it, since the writer appends blocks only; its older records stay as they are.
    static let entryBlocksFormatVersion = 7
    /// The version of a log whose stream index blocks are sealed with their keys (``StreamIndex/Seal``): every log a
    /// writer opens is raised to it, its blocks sealed again in the same transaction.
    static let sealedIndexKeysFormatVersion = 8

    /// The `format-version` that `meta` holds in `txn`, or `nil` when it holds none or not a number.
    static func formatVersion(_ txn: Transaction, meta: Database) throws -> Int? {
        try txn.get(meta, key: Array(MetaKey.formatVersion.utf8)).flatMap { Int(String(decoding: $0, as: UTF8.self)) }
    }

    enum MetaKey {
        static let formatVersion = "format-version"
        static let createdAt = "created-at"
        static let createdBy = "created-by"
        static let writtenBy = "written-by"
        static let codec = "codec"
        static let durability = "durability"
        static let snapshotPolicy = "snapshot-policy"
        static let sequenceFloor = "sequence-floor"
        static let checksum = "metadata-checksum"
        /// Why the log's other metadata values came to it unvouched (an import of an export whose source log's seal
        /// was broken): absent in a log whose values are its own.
        static let unvouched = "unvouched-metadata"
        /// Every key ReactorLog writes.
        static let all = [formatVersion, createdAt, createdBy, writtenBy, codec, durability, snapshotPolicy, sequenceFloor, checksum, unvouched]
    }
}

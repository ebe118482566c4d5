import LMDB

/// The numbers of a log's call sites (writer thread only): each action's call site goes into the stream index as the
/// number of a text interned in the `sites` database. A site already there costs one lookup and no formatting.
///
/// Sites first met in a transaction are kept apart until it commits (``keepNew()``): a transaction that runs again
/// (the map had to grow) or fails leaves the table as it was (``discardNew()``).
struct CallSiteTable {
    private let storage: LogStorage
    /// Committed sites by text.
    private var ids: [String: UInt32]
    /// Committed sites by the address of the compiler's file name and the line.
    private var sourceIDs: [SourceSite: UInt32] = [:]
    /// Committed sites by the address and line hashed to one of 64 slots, looked at before `sourceIDs`: hashing a site
    /// for the dictionary cost every action about 250 instructions, and an app sends from a few places.
    private var recent = [(site: SourceSite, id: UInt32)](repeating: (SourceSite(file: 0, line: 0), 0), count: 64)
    /// The number the next new site gets: one above every number in `sites`, damaged records included.
    private var nextID: UInt32
    /// Sites first met in the transaction being written.
    private var newIDs: [String: UInt32] = [:]
    private var newSourceIDs: [SourceSite: UInt32] = [:]

    private struct SourceSite: Hashable {
        let file: UInt
        let line: UInt
    }

    /// The sites of `storage`'s log as committed.
    init(storage: LogStorage) throws(EventLogError) {
        self.storage = storage
        ids = try storage.callSites().reduce(into: [:]) { $0[$1.value] = $1.key }
        nextID = try storage.highestSiteNumber() + 1
    }

    /// The number of `site`, written to `sites` in `txn` when it is new; `nil` in a log without that database.
    mutating func id(of site: EntryRecord.Site, _ txn: Transaction) throws -> UInt32? {
        guard case .source(let fileID, let line) = site, fileID.hasPointerRepresentation else {
            return try id(text: site.text, txn)
        }
        let key = SourceSite(file: UInt(bitPattern: fileID.utf8Start), line: line)
        let slot = Int(truncatingIfNeeded: (key.file >> 4) ^ (key.line &* 31)) & (recent.count - 1)
        // A file's address is never 0, so an empty slot matches nothing.
        if recent[slot].site == key { return recent[slot].id }
        if let id = sourceIDs[key] {
            recent[slot] = (key, id)
            return id
        }
        if let id = newSourceIDs[key] { return id }
        let id = try id(text: site.text, txn)
        newSourceIDs[key] = id
        return id
    }

    private mutating func id(text site: String, _ txn: Transaction) throws -> UInt32? {
        if let id = ids[site] ?? newIDs[site] { return id }
        guard let sites = storage.sites else { return nil }
        let id = nextID + UInt32(newIDs.count)
        try txn.put(sites, key: KeyCoding.stream(id), value: SiteRecord.encode(site))
        newIDs[site] = id
        return id
    }

    /// Forgets the sites first met in a transaction that did not commit.
    mutating func discardNew() {
        newIDs = [:]
        newSourceIDs = [:]
    }

    /// Keeps the sites first met in a transaction that committed.
    mutating func keepNew() {
        ids.merge(newIDs) { old, _ in old }
        nextID += UInt32(newIDs.count)
        sourceIDs.merge(newSourceIDs) { old, _ in old }
        discardNew()
    }
}

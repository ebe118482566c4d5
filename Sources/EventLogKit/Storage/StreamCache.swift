/// The stream descriptors a ``LogStorage`` has read, by id and by name.
///
/// A server with a reactor per session makes thousands of streams: looking one up by name is a dictionary's work,
/// and while this process writes the log (``isComplete``), a name it lacks is a new stream, not one another process
/// made since the descriptors were read, so making a stream no longer reads every descriptor again.
struct StreamCache: Sendable {
    /// Every descriptor read, by id.
    private(set) var byID: [UInt32: StreamInfo] = [:]
    /// Each descriptor's id, by its name.
    private var ids: [String: UInt32] = [:]
    /// The descriptors that could not be read, by the id of their key (0 for a key of the wrong length whose record
    /// is damaged too): their streams are missing from ``byID``, and their ids are never given again.
    private(set) var damaged: [UInt32: EventLogError] = [:]
    /// The descriptors ``noteLost(_:)`` kept, which a reload of the records cannot tell again.
    private var lost: [UInt32: EventLogError] = [:]
    /// The highest id read, a damaged descriptor's too: streams get ids in order and keep them, so every stream a
    /// lookup of an unknown id may find lies above it.
    private(set) var highestID: UInt32 = 0
    /// Whether this process holds the log's writer lock: it alone changes the descriptors, each change passes
    /// through ``insert(_:)``, and an id or a name missing here is no stream of the log.
    var isComplete = false {
        didSet { if isComplete { wasComplete = true } }
    }
    /// Whether ``isComplete`` was ever set: a storage a closed writer left behind, which another process may have
    /// written to since.
    private(set) var wasComplete = false
    /// The streams this process made whose descriptors wait in the writer's queue: they are committed with the
    /// first entries that name them, and until then a read of the log does not find them.
    private(set) var pending: Set<UInt32> = []

    /// Replaces every descriptor with `loaded`, as read from the log. Of two streams a damaged log gives one name, the
    /// name finds the first. While ``isComplete``, the descriptors read only replace those of their ids: a stream
    /// this process made may be pending, or committed after the read began, and the cache is what gives ids.
    /// The descriptors that could not be read replace those known before.
    mutating func replace(with loaded: [UInt32: StreamInfo], damaged: [UInt32: EventLogError]) {
        // The descriptors lost past the last record are known from the entries that named them, not from the records.
        self.damaged = damaged.merging(lost.filter { loaded[$0.key] == nil }) { read, _ in read }
        if isComplete {
            for info in loaded.values.sorted(by: { $0.id < $1.id }) { insert(info) }
            highestID = max(highestID, self.damaged.keys.max() ?? 0)
            return
        }
        byID = loaded
        ids = Dictionary(loaded.map { ($0.value.name, $0.key) }, uniquingKeysWith: min)
        highestID = max(loaded.keys.max() ?? 0, self.damaged.keys.max() ?? 0)
    }

    /// Adds descriptors read above ``highestID``: `found`, and the damage of those that could not be read.
    mutating func add(_ found: [StreamInfo], damaged: [UInt32: EventLogError]) {
        for info in found { insert(info) }
        self.damaged.merge(damaged) { $1 }
        highestID = max(highestID, damaged.keys.max() ?? 0)
    }

    /// Keeps stream `id`, which an entry names but no record gives, as a descriptor lost: its id is never given again.
    mutating func noteLost(_ id: UInt32) {
        guard damaged[id] == nil else { return }
        lost[id] = .corruptStream(id: id, reason: "its record is missing, though the log holds entries of it")
        damaged[id] = lost[id]
        highestID = max(highestID, id)
    }

    /// `template` with the next stream id, kept as pending; `nil` when a stream has its name. Only while ``isComplete``:
    /// then the highest id read is the log's highest. Throws where no id is left above it: the highest a stream can
    /// have is taken, by a descriptor whose key damage raised, say.
    mutating func reserve(_ template: StreamInfo) throws(EventLogError) -> StreamInfo? {
        guard named(template.name) == nil else { return nil }
        guard highestID < .max else {
            throw .corruptStream(id: highestID, reason: "it takes the highest id a stream can have, so no new stream can be given one; export the log and import it into a new one")
        }
        var info = template
        info.id = highestID + 1
        insert(info)
        pending.insert(info.id)
        return info
    }

    /// The pending descriptors `ids` are committed.
    mutating func committed(_ ids: some Sequence<UInt32>) {
        pending.subtract(ids)
    }

    /// Forgets the pending descriptors, which a writer that stopped on an error will never commit.
    mutating func dropPending() {
        guard !pending.isEmpty else { return }
        for id in pending {
            if let name = byID.removeValue(forKey: id)?.name, ids[name] == id { ids[name] = nil }
        }
        pending = []
        highestID = max(byID.keys.max() ?? 0, damaged.keys.max() ?? 0)
    }

    /// Adds `info`, or replaces the descriptor of its id, which may have had another name.
    mutating func insert(_ info: StreamInfo) {
        if let old = byID[info.id], old.name != info.name, ids[old.name] == info.id { ids[old.name] = nil }
        byID[info.id] = info
        ids[info.name] = info.id
        highestID = max(highestID, info.id)
    }

    /// The stream named `name`, when read.
    func named(_ name: String) -> StreamInfo? {
        ids[name].flatMap { byID[$0] }
    }
}

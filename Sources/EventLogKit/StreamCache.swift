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
    /// The highest id read: streams get ids in order and keep them, so every stream a lookup of an unknown id may
    /// find lies above it.
    private(set) var highestID: UInt32 = 0
    /// Whether this process holds the log's writer lock: it alone changes the descriptors, each change passes
    /// through ``insert(_:)``, and an id or a name missing here is no stream of the log.
    var isComplete = false {
        didSet { if isComplete { wasComplete = true } }
    }
    /// Whether ``isComplete`` was ever set: a storage a closed writer left behind, which another process may have
    /// written to since.
    private(set) var wasComplete = false

    /// Replaces every descriptor with `loaded`, as read from the log. Of two streams a damaged log gives one name, the
    /// name finds the first.
    mutating func replace(with loaded: [UInt32: StreamInfo]) {
        byID = loaded
        ids = Dictionary(loaded.map { ($0.value.name, $0.key) }, uniquingKeysWith: min)
        highestID = loaded.keys.max() ?? 0
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

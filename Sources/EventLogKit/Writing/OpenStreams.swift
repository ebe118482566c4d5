/// The streams open through one ``EventLog``, each with the handler its owner registered for the log's requests
/// (``LogStream/onLogRequest(_:)``). One table under one lock, so that a handler is only ever set for a stream that is
/// open and leaves with it when the stream is released.
struct OpenStreams: Sendable {
    typealias Handler = @Sendable (LogRequest) -> Void

    private var ids: Set<UInt32> = []
    private var handlers: [UInt32: Handler] = [:]

    /// Marks stream `id` open; `false` when it is open already.
    mutating func claim(_ id: UInt32) -> Bool {
        ids.insert(id).inserted
    }

    /// Whether stream `id` is open.
    func contains(_ id: UInt32) -> Bool {
        ids.contains(id)
    }

    /// Marks stream `id` closed, and forgets its handler.
    mutating func release(_ id: UInt32) {
        ids.remove(id)
        handlers[id] = nil
    }

    /// Sets what stream `id`'s owner does when the log asks, while the stream is open.
    mutating func setHandler(_ handler: @escaping Handler, forStream id: UInt32) {
        guard ids.contains(id) else { return }
        handlers[id] = handler
    }

    /// The handlers to ask for `request`, in the order the streams were made; at ``LogRequest/close`` for the last
    /// time: they are forgotten.
    mutating func handlers(for request: LogRequest) -> [Handler] {
        defer { if request == .close { handlers = [:] } }
        return handlers.sorted { $0.key < $1.key }.map(\.value)
    }
}

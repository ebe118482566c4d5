import Synchronization

/// Holds observations and cancels them all when released (ReactorKit's `DisposeBag`).
public final class LifetimeBag: Sendable {
    private let observations = Mutex<[Observation]>([])

    /// An empty bag.
    public init() {}

    /// Keeps `observation` until the bag is released.
    public func insert(_ observation: Observation) {
        observations.withLock { $0.append(observation) }
    }

    /// How many observations the bag holds.
    public var count: Int { observations.withLock { $0.count } }

    /// Cancels every observation in the bag and empties it.
    public func cancelAll() {
        let cancelled = observations.withLock { observations in
            defer { observations.removeAll() }
            return observations
        }
        for observation in cancelled { observation.cancel() }
    }

    deinit {
        cancelAll()
    }
}

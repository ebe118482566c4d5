import Synchronization

/// A running observation of a reactor's state. It stops when cancelled or released: keep it, for
/// example in a ``LifetimeBag``, for as long as you want updates.
public final class Observation: Sendable {
    private let stop: Mutex<(@Sendable () -> Void)?>

    init(stop: @escaping @Sendable () -> Void) {
        self.stop = Mutex(stop)
    }

    /// Stops the observation; no more values are delivered. Cancelling twice does nothing.
    public func cancel() {
        let body = stop.withLock { stop in
            defer { stop = nil }
            return stop
        }
        body?()
    }

    /// Keeps the observation alive as long as `bag`.
    public func store(in bag: LifetimeBag) {
        bag.insert(self)
    }

    deinit {
        cancel()
    }
}

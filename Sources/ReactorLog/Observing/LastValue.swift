import Synchronization

/// The last value an observation delivered, to skip repeats.
final class LastValue<Value: Equatable & Sendable>: Sendable {
    private let storage: Mutex<Value?>

    /// No value seen yet: the first always differs.
    init() {
        storage = Mutex(nil)
    }

    /// As if `value` had been seen: only a different one counts.
    init(_ value: Value) {
        storage = Mutex(value)
    }

    /// Stores `value`; returns whether it differs from the previous one (the first always does).
    func replace(with value: Value) -> Bool {
        storage.withLock { storage in
            defer { storage = value }
            return storage != value
        }
    }
}

import Synchronization

/// The last value an observation delivered, to skip repeats.
final class LastValue<Value: Equatable & Sendable>: Sendable {
    private let storage = Mutex<(value: Value?, count: Int)>((nil, 0))

    /// Stores `value`; returns whether it differs from the previous one (the first always does).
    func replace(with value: Value) -> Bool {
        storage.withLock { storage in
            storage.count += 1
            defer { storage.value = value }
            return storage.value != value
        }
    }

    /// Whether more than one value has been seen.
    var seenTwice: Bool { storage.withLock { $0.count > 1 } }
}

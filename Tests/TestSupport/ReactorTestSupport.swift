import Foundation
import ReactorLog
import Synchronization

/// A thread-safe list that tests append to from any thread.
public final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    /// An empty list.
    public init() {}
    /// Appends `value`.
    public func append(_ value: Value) { values.withLock { $0.append(value) } }
    /// Everything appended, in order.
    public var all: [Value] { values.withLock { $0 } }
    /// How many values were appended.
    public var count: Int { values.withLock { $0.count } }
}

/// A one-shot signal an effect fires and a test awaits.
public final class Signal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    /// A signal not yet fired.
    public init() {
        (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Fires the signal.
    public func fire() { continuation.yield() }

    /// Waits until the signal fires (at once if it already has).
    public func wait() async {
        for await _ in stream { return }
    }
}

extension Reactor {
    /// Waits until a published state satisfies `predicate` and returns it.
    public func state(where predicate: @Sendable (State) -> Bool) async -> State? {
        for await state in states where predicate(state) { return state }
        return nil
    }
}

import Foundation
import ReactorLog
import Synchronization

/// A thread-safe list that tests append to from any thread.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
    var count: Int { values.withLock { $0.count } }
}

/// A one-shot signal an effect fires and a test awaits.
final class Signal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    func fire() { continuation.yield() }

    func wait() async {
        for await _ in stream { return }
    }
}

extension Reactor {
    /// Waits until a published state satisfies `predicate` and returns it.
    func state(where predicate: @Sendable (State) -> Bool) async -> State? {
        for await state in states where predicate(state) { return state }
        return nil
    }
}

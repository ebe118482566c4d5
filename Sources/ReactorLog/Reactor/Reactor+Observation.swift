extension Reactor {
    /// Calls `observer` with the latest state now, then with every later state, until the returned
    /// ``Observation`` is cancelled or released.
    ///
    /// **Where it runs**: synchronously, inside dispatch (on the reactor's ``Reactor/scheduler``), right
    /// after `currentState` is updated and in the order the states were produced. For UI code on a reactor
    /// that is not scheduled on the main actor, use ``observeOnMainActor(_:)``.
    public func observe(_ observer: @escaping @Sendable (State) -> Void) -> Observation {
        runtime.observe(self, observer)
    }

    /// Calls `observer` with the value at `keyPath` now, then whenever it changes (equal values are skipped).
    public func observe<Value: Equatable & Sendable>(
        _ keyPath: KeyPath<State, Value> & Sendable, _ observer: @escaping @Sendable (Value) -> Void
    ) -> Observation {
        let last = LastValue<Value>()
        return observe { state in
            let value = state[keyPath: keyPath]
            if last.replace(with: value) { observer(value) }
        }
    }

    /// Calls `observer` with a ``Pulse``'s value every time it is assigned, even an equal value, starting
    /// with its current value when it was assigned since the reactor started. A pulse restored by a resume
    /// (from a log) does not fire again: only assignments after the start count.
    public func observe<Value: Sendable>(
        pulse keyPath: KeyPath<State, Pulse<Value>> & Sendable, _ observer: @escaping @Sendable (Value) -> Void
    ) -> Observation {
        let start = runtime.start(self).startState[keyPath: keyPath].valueUpdatedCount
        let last = LastValue<UInt>(start)
        return observe { state in
            let pulse = state[keyPath: keyPath]
            if last.replace(with: pulse.valueUpdatedCount) { observer(pulse.value) }
        }
    }

    /// Calls `observer` on the main actor with the latest state, then every later state, in order.
    /// States are handed over as they are produced and delivered asynchronously on the main actor.
    public func observeOnMainActor(_ observer: @escaping @MainActor @Sendable (State) -> Void) -> Observation {
        let (stream, continuation) = AsyncStream<State>.makeStream()
        let task = Task { @MainActor in
            for await state in stream { observer(state) }
        }
        let observation = observe { continuation.yield($0) }
        return Observation {
            observation.cancel()
            continuation.finish()
            task.cancel()
        }
    }

    /// The latest state, then every later state, as an async sequence. Nothing is dropped: a slow consumer
    /// gets every state, in order. The sequence ends when the reactor is released or the consuming task
    /// is cancelled.
    public var states: AsyncStream<State> {
        AsyncStream { continuation in
            let observation = runtime.observe(self, { continuation.yield($0) }, finish: { continuation.finish() })
            continuation.onTermination = { _ in observation.cancel() }
        }
    }

    /// The value at `keyPath` now, then each time it changes, as an async sequence. It ends when the
    /// reactor is released or the consuming task is cancelled.
    public func states<Value: Equatable & Sendable>(_ keyPath: KeyPath<State, Value> & Sendable) -> AsyncStream<Value> {
        AsyncStream { continuation in
            let last = LastValue<Value>()
            let observation = runtime.observe(self, { state in
                let value = state[keyPath: keyPath]
                if last.replace(with: value) { continuation.yield(value) }
            }, finish: { continuation.finish() })
            continuation.onTermination = { _ in observation.cancel() }
        }
    }
}

extension Reactor {
    /// Sends every action `actions` produces, as it comes, until the returned ``Observation`` is cancelled
    /// or released, or the reactor is released: an outside action source connected after creation
    /// (ReactorKit's `button.rx.tap.map { .follow }.bind(to: reactor.action)`). An error or the end of
    /// the sequence stops it and never reaches the reactor, as ReactorKit ignores them on `action`.
    ///
    /// ```swift
    /// reactor.send(contentsOf: taps.map { .follow(42) }).store(in: lifetime)
    /// ```
    public func send<S: AsyncSequence & Sendable>(contentsOf actions: S) -> Observation where S.Element == Action {
        runtime.start(self)
        let task = runtime.feeds.spawn { [weak runtime] in
            do {
                for try await action in actions { runtime?.receive(.action(action)) }
            } catch {
                // An error ends the source only.
            }
        }
        return Observation { task.cancel() }
    }
}

extension Reactor {
    /// How many of the reactor's effects are running now: the asynchronous parts of what `mutate`
    /// returned. Merged sources, timing operators and connected action sources live as long as the
    /// reactor and are not counted.
    public var runningEffectCount: Int { runtime.tasks.count }

    /// Returns once none of the reactor's effects is running (see ``runningEffectCount``), or when the
    /// calling task is cancelled.
    public func waitForEffects() async {
        await runtime.tasks.waitUntilIdle()
    }
}

extension Reactor {
    /// Returns once every timing operator in the reactor's transform hooks (`debounce`, `throttle`) has
    /// taken every value handed to it, so that advancing a test clock acts on all of them. The test store
    /// calls it after each `send`.
    public func waitForTimingOperators() async {
        guard let engine = runtime.startedEngineIfAny else { return }
        await engine.actions.waitUntilTaken()
        await engine.mutations.waitUntilTaken()
        await engine.states.waitUntilTaken()
    }
}

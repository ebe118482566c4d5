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
        let task = runtime.tasks.spawn { [weak runtime] in
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
    /// How many of the reactor's effect tasks are running now (asynchronous effects, merged sources and
    /// connected action sources).
    public var runningEffectCount: Int { runtime.tasks.count }

    /// Returns once none of the reactor's effect tasks is running, or when the calling task is cancelled.
    public func waitForEffects() async {
        await runtime.tasks.waitUntilIdle()
    }
}

/// What an effect's asynchronous part needs from its runtime: a weak reference, so that a running effect
/// never keeps a released reactor's runtime alive, and the sequence number of the action that caused it.
struct EffectContext<R: Reactor>: Sendable {
    weak var runtime: ReactorRuntime<R>?
    let cause: UInt64?

    var send: Send<R.Mutation> {
        Send { [weak runtime, cause] mutation in runtime?.receive(.mutation(mutation, cause: cause)) }
    }

    /// Runs an effect from inside a task: every mutation goes through dispatch.
    func run(_ operation: Effect<R.Mutation>.Operation) async throws {
        switch operation {
        case .mutations(let mutations):
            let send = send
            for mutation in mutations { send(mutation) }
        case .run(let work):
            try await work(send)
        case .concat(let effects):
            for effect in effects { try await run(effect.operation) }
        case .merge(let effects):
            try await withThrowingTaskGroup(of: Void.self) { group in
                for effect in effects { group.addTask { try await run(effect.operation) } }
                try await group.waitForAll()
            }
        case .cancellable(let id, let cancelInFlight, let effect):
            // The runtime is only borrowed to start the child: holding it while waiting would keep it alive.
            if cancelInFlight { runtime?.cancelEffects(id: id) }
            guard let child = runtime?.spawn(id: id, { try await run(effect.operation) }) else { throw CancellationError() }
            try await Self.wait(for: child)
        case .cancel(let id):
            runtime?.cancelEffects(id: id)
        case .takeUntil(let isLast, let effect):
            guard let child = runtime?.spawn(until: isLast, { try await run(effect.operation) }) else { throw CancellationError() }
            try await Self.wait(for: child)
        }
    }

    /// Waits for a child effect. A cancelled child counts as finished (like RxSwift's `takeUntil`
    /// completing); when the waiting task itself is cancelled, the child is cancelled and waiting stops.
    static func wait(for child: Task<Void, any Error>) async throws {
        try await withTaskCancellationHandler {
            do {
                try await child.value
            } catch is CancellationError {
                // The child was cancelled by its id or by a later action: it is finished.
            }
        } onCancel: {
            child.cancel()
        }
        try Task.checkCancellation()
    }
}

/// What a running effect needs from its reactor: where its mutations go and the books of its tasks.
///
/// A driver is synchronous while the effect starts inside dispatch (mutations are reduced on the spot),
/// and ``later`` for the asynchronous rest (mutations are dispatched like any other work). It never holds
/// the runtime strongly, so a running effect never keeps a released reactor alive.
@usableFromInline struct EffectDriver<Action: Sendable, Mutation: Sendable>: Sendable {
    /// Reduces a mutation right away; only valid inside dispatch.
    let emitNow: @Sendable (Mutation) -> Void
    /// Dispatches a mutation from anywhere.
    let emitLater: @Sendable (Mutation) -> Void
    /// Whether the effect is starting inside dispatch.
    let isSynchronous: Bool
    /// The reactor's effect tasks.
    let tasks: EffectTasks<Action>

    @usableFromInline init(
        emitNow: @escaping @Sendable (Mutation) -> Void, emitLater: @escaping @Sendable (Mutation) -> Void,
        isSynchronous: Bool, tasks: EffectTasks<Action>
    ) {
        (self.emitNow, self.emitLater, self.isSynchronous, self.tasks) = (emitNow, emitLater, isSynchronous, tasks)
    }

    /// Emits a mutation the way this driver's phase requires.
    func emit(_ mutation: Mutation) {
        if isSynchronous { emitNow(mutation) } else { emitLater(mutation) }
    }

    /// The driver for the asynchronous rest of the effect.
    var later: EffectDriver {
        EffectDriver(emitNow: emitNow, emitLater: emitLater, isSynchronous: false, tasks: tasks)
    }

    /// The `send` that asynchronous work calls.
    var send: Send<Mutation> { Send(emitLater) }

    /// A driver for an effect whose mutations become this driver's through `transform`.
    func pulling<Source: Sendable>(_ transform: @escaping @Sendable (Source) -> Mutation) -> EffectDriver<Action, Source> {
        let now = emitNow, later = emitLater
        return EffectDriver<Action, Source>(
            emitNow: { now(transform($0)) }, emitLater: { later(transform($0)) },
            isSynchronous: isSynchronous, tasks: tasks)
    }
}

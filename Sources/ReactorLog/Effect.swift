/// What `mutate(action:)` returns: the mutations an action produces, now and over time.
///
/// Synchronous parts (``just(_:)``, ``none``) are reduced before `send` returns; asynchronous parts
/// (``run(_:)``, ``sequence(_:)``) run in tasks the reactor owns and cancels when it is released.
/// Compose in order with ``concat(_:)`` and concurrently with ``merge(_:)``:
///
/// ```swift
/// case let .updateQuery(query):
///     return .concat(
///         .just(.setQuery(query)),
///         .run { send in
///             let (repos, nextPage) = try await self.search(query: query, page: 1)
///             send(.setRepos(repos, nextPage: nextPage))
///         }
///         .take(until: Self.isUpdateQueryAction)    // cancelled when a newer query arrives
///     )
/// ```
public struct Effect<Mutation: Sendable>: Sendable {
    indirect enum Operation: Sendable {
        case mutations([Mutation])
        case run(@Sendable (Send<Mutation>) async throws -> Void)
        case concat([Effect])
        case merge([Effect])
        case cancellable(id: AnyHashableSendable, cancelInFlight: Bool, Effect)
        case cancel(id: AnyHashableSendable)
        case takeUntil(@Sendable (Any) -> Bool, Effect)
    }

    let operation: Operation

    init(_ operation: Operation) {
        self.operation = operation
    }

    /// No mutation.
    public static var none: Effect { Effect(.mutations([])) }

    /// These mutations, in order, reduced before `send` returns.
    public static func just(_ mutations: Mutation...) -> Effect { Effect(.mutations(mutations)) }

    /// These mutations, in order, reduced before `send` returns.
    public static func just(_ mutations: [Mutation]) -> Effect { Effect(.mutations(mutations)) }

    /// Async work that emits any number of mutations through `send` over time. Each mutation is reduced
    /// as soon as it is sent. A thrown error ends the work: the mutations sent before it are kept and the
    /// error is recorded (in the log, when one is attached); the reactor keeps working.
    public static func run(_ work: @escaping @Sendable (Send<Mutation>) async throws -> Void) -> Effect {
        Effect(.run(work))
    }

    /// Every element of an async sequence, as a mutation.
    public static func sequence<S: AsyncSequence & Sendable>(_ sequence: S) -> Effect where S.Element == Mutation {
        Effect(.run { send in
            for try await mutation in sequence { send(mutation) }
        })
    }

    /// The effects one after another: each starts when the previous one has finished (like `concat`).
    public static func concat(_ effects: Effect...) -> Effect { Effect(.concat(effects)) }

    /// The effects one after another.
    public static func concat(_ effects: [Effect]) -> Effect { Effect(.concat(effects)) }

    /// The effects at the same time; it finishes when all have (like `merge`).
    public static func merge(_ effects: Effect...) -> Effect { Effect(.merge(effects)) }

    /// The effects at the same time.
    public static func merge(_ effects: [Effect]) -> Effect { Effect(.merge(effects)) }

    /// This effect, cancellable with ``cancel(id:)``. With `cancelInFlight`, starting it first cancels
    /// any running effect with the same id. A cancelled effect stops sending and counts as finished, so a
    /// ``concat(_:)`` it is part of goes on with the next effect.
    public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Effect {
        Effect(.cancellable(id: AnyHashableSendable(id), cancelInFlight: cancelInFlight, self))
    }

    /// Cancels the running effects made ``cancellable(id:cancelInFlight:)`` with `id`.
    public static func cancel(id: some Hashable & Sendable) -> Effect {
        Effect(.cancel(id: AnyHashableSendable(id)))
    }

    /// This effect until an action for which `isLast` is true is sent (ReactorKit's
    /// `takeUntil(self.action.filter(isLast))`). It is checked against every action after
    /// `transform(action:)`, before that action's `mutate` runs. Cancelled, the effect stops sending and
    /// counts as finished, so an enclosing ``concat(_:)`` goes on.
    public func take<Action>(until isLast: @escaping @Sendable (Action) -> Bool) -> Effect {
        Effect(.takeUntil({ ($0 as? Action).map(isLast) ?? false }, self))
    }

    /// The same effect emitting transformed mutations.
    public func map<Other: Sendable>(_ transform: @escaping @Sendable (Mutation) -> Other) -> Effect<Other> {
        switch operation {
        case .mutations(let mutations): .init(.mutations(mutations.map(transform)))
        case .run(let work): .init(.run { send in try await work(Send { send(transform($0)) }) })
        case .concat(let effects): .init(.concat(effects.map { $0.map(transform) }))
        case .merge(let effects): .init(.merge(effects.map { $0.map(transform) }))
        case .cancellable(let id, let cancelInFlight, let effect): .init(.cancellable(id: id, cancelInFlight: cancelInFlight, effect.map(transform)))
        case .cancel(let id): .init(.cancel(id: id))
        case .takeUntil(let predicate, let effect): .init(.takeUntil(predicate, effect.map(transform)))
        }
    }
}

/// A type-erased hashable and sendable identifier for cancellable effects.
struct AnyHashableSendable: Hashable, @unchecked Sendable {
    // `AnyHashable` is not Sendable, but it only ever wraps values that are (see the initializer).
    let value: AnyHashable

    init(_ value: some Hashable & Sendable) {
        self.value = AnyHashable(value)
    }
}

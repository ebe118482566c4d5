/// What `mutate(action:)` returns: the mutations an action produces, now and over time. Inside a reactor,
/// write it as `Effect`; elsewhere it is `MyReactor.Effect` or `ReactorEffect<Action, Mutation>`.
///
/// Synchronous parts (``just(_:)-(Mutation...)``, ``none``, ``deferred(_:)``) are reduced inside dispatch, before
/// `send` returns; asynchronous parts (``run(_:)``, ``sequence(_:)``) run in tasks the reactor owns and
/// cancels when it is released. Compose in order with ``concat(_:)-(ReactorEffect<Action,Mutation>...)`` and concurrently with
/// ``merge(_:)-(ReactorEffect<Action,Mutation>...)``:
///
/// ```swift
/// case let .updateQuery(query):
///     return .concat(
///         .just(.setQuery(query)),
///         .run { send in
///             let (repos, nextPage) = try await self.search(query: query, page: 1)
///             send(.setRepos(repos, nextPage: nextPage))
///         }
///         .take(until: { if case .updateQuery = $0 { true } else { false } })   // a newer query cancels it
///     )
/// ```
///
/// **Errors.** An error thrown inside ``run(_:)`` ends that work; the mutations sent before it are kept.
/// Inside ``concat(_:)-(ReactorEffect<Action,Mutation>...)`` it also ends the effects after it, and inside ``merge(_:)-(ReactorEffect<Action,Mutation>...)`` it cancels
/// the others (RxSwift's `concat` and `merge` do the same). ``catch(_:)`` turns an error into an effect,
/// for cleanup such as clearing a loading flag. An error nothing catches is recorded (in the log, when the
/// reactor is recorded) and the reactor keeps working.
public struct ReactorEffect<Action: Sendable, Mutation: Sendable>: Sendable {
    /// The effect's program. Plain mutations get cases of their own: they are most effects, and
    /// need no driver.
    @usableFromInline enum Body: Sendable {
        case none
        case one(Mutation)
        case many([Mutation])
        case program(@Sendable (EffectDriver<Action, Mutation>) -> EffectRemainder?)
    }

    @usableFromInline let body: Body

    @usableFromInline init(body: Body) {
        self.body = body
    }

    /// The one interpreter: runs the synchronous part now through `driver` and returns the asynchronous
    /// rest, or `nil` when the effect is already finished.
    @usableFromInline func start(_ driver: EffectDriver<Action, Mutation>) -> EffectRemainder? {
        switch body {
        case .none:
            return nil
        case .one(let mutation):
            driver.emit(mutation)
            return nil
        case .many(let mutations):
            for mutation in mutations { driver.emit(mutation) }
            return nil
        case .program(let program):
            return program(driver)
        }
    }

    /// No mutation.
    @inlinable public static var none: ReactorEffect { ReactorEffect(body: .none) }

    /// These mutations, in order, reduced before `send` returns.
    @inlinable public static func just(_ mutations: Mutation...) -> ReactorEffect { just(mutations) }

    /// These mutations, in order, reduced before `send` returns.
    // Inlinable, as are `none` and the variadic form: specialized in the reactor's module, making an effect
    // costs no metadata lookup of `Body` (about 330 instructions a call otherwise).
    @inlinable public static func just(_ mutations: [Mutation]) -> ReactorEffect {
        switch mutations.count {
        case 0: ReactorEffect(body: .none)
        case 1: ReactorEffect(body: .one(mutations[0]))
        default: ReactorEffect(body: .many(mutations))
        }
    }

    /// The effect `make` returns, made when this effect starts: inside dispatch, synchronously, after the
    /// mutations before it in a ``concat(_:)-(ReactorEffect<Action,Mutation>...)`` have been reduced (ReactorKit's `Observable.deferred`
    /// and `Observable.create`). Read `currentState` here to compute mutations from the latest state:
    ///
    /// ```swift
    /// case .increase:
    ///     return .deferred { [unowned self] in .just(.setValue(currentState.value + 1)) }
    /// ```
    public static func deferred(_ make: @escaping @Sendable () -> ReactorEffect) -> ReactorEffect {
        ReactorEffect(body: .program { driver in make().start(driver) })
    }

    /// Async work that emits any number of mutations through `send` over time. Each mutation is reduced
    /// as soon as it is sent. A thrown error ends the work: the mutations sent before it are kept.
    public static func run(_ work: @escaping @Sendable (Send<Mutation>) async throws -> Void) -> ReactorEffect {
        ReactorEffect(body: .program { driver in
            let send = driver.send
            return { try await work(send) }
        })
    }

    /// Every element of an async sequence, as a mutation.
    public static func sequence<S: AsyncSequence & Sendable>(_ sequence: S) -> ReactorEffect where S.Element == Mutation {
        run { send in
            for try await mutation in sequence { send(mutation) }
        }
    }

    /// The effects one after another: each starts when the previous one has finished (like `concat`).
    public static func concat(_ effects: ReactorEffect...) -> ReactorEffect { concat(effects) }

    /// The effects one after another.
    public static func concat(_ effects: [ReactorEffect]) -> ReactorEffect {
        ReactorEffect(body: .program { driver in
            for (index, effect) in effects.enumerated() {
                guard let rest = effect.start(driver) else { continue }
                let remaining = effects[(index + 1)...], later = driver.later
                return {
                    try await rest()
                    for effect in remaining {
                        if let rest = effect.start(later) { try await rest() }
                    }
                }
            }
            return nil
        })
    }

    /// The effects at the same time; it finishes when all have (like `merge`).
    public static func merge(_ effects: ReactorEffect...) -> ReactorEffect { merge(effects) }

    /// The effects at the same time.
    public static func merge(_ effects: [ReactorEffect]) -> ReactorEffect {
        ReactorEffect(body: .program { driver in
            let rests = effects.compactMap { $0.start(driver) }
            switch rests.count {
            case 0: return nil
            case 1: return rests[0]
            default:
                return {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for rest in rests {
                            if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
                                group.addImmediateTask { try await rest() }
                            } else {
                                group.addTask { try await rest() }
                            }
                        }
                        try await group.waitForAll()
                    }
                }
            }
        })
    }

    /// This effect, cancellable with ``cancel(id:)``. With `cancelInFlight`, starting it first cancels
    /// any running effect with the same id (latest wins). A cancelled effect stops sending and counts as
    /// finished, so a ``concat(_:)-(ReactorEffect<Action,Mutation>...)`` it is part of goes on with the next effect.
    public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> ReactorEffect {
        let id = AnyHashableSendable(id)
        return ReactorEffect(body: .program { driver in
            if cancelInFlight { driver.tasks.cancel(id: id) }
            guard let rest = start(driver) else { return nil }
            let ticket = driver.tasks.reserve(id: id)
            return { try await EffectTasks<Action>.wait(for: driver.tasks.launch(ticket, rest)) }
        })
    }

    /// Cancels the running effects made ``cancellable(id:cancelInFlight:)`` with `id`.
    public static func cancel(id: some Hashable & Sendable) -> ReactorEffect {
        let id = AnyHashableSendable(id)
        return ReactorEffect(body: .program { driver in
            driver.tasks.cancel(id: id)
            return nil
        })
    }

    /// This effect until an action for which `isLast` is true is sent (ReactorKit's
    /// `takeUntil(self.action.filter(isLast))`). It is checked against every action after
    /// `transform(action:)`, before that action's `mutate` runs. Cancelled, the effect stops sending and
    /// counts as finished, so an enclosing ``concat(_:)-(ReactorEffect<Action,Mutation>...)`` goes on.
    public func take(until isLast: @escaping @Sendable (Action) -> Bool) -> ReactorEffect {
        ReactorEffect(body: .program { driver in
            guard let rest = start(driver) else { return nil }
            let ticket = driver.tasks.reserve(until: isLast)
            return { try await EffectTasks<Action>.wait(for: driver.tasks.launch(ticket, rest)) }
        })
    }

    /// This effect, and when it throws, the effect `handler` makes from the error (for cleanup, such as
    /// `.just(.setLoading(false))`). A caught error is not recorded as an effect error; cancellation is
    /// never caught.
    public func `catch`(_ handler: @escaping @Sendable (any Error) -> ReactorEffect) -> ReactorEffect {
        ReactorEffect(body: .program { driver in
            guard let rest = start(driver) else { return nil }
            let later = driver.later
            return {
                do {
                    try await rest()
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    if let rest = handler(error).start(later) { try await rest() }
                }
            }
        })
    }

    /// The same effect emitting transformed mutations.
    public func map<Other: Sendable>(_ transform: @escaping @Sendable (Mutation) -> Other) -> ReactorEffect<Action, Other> {
        ReactorEffect<Action, Other>(body: .program { driver in start(driver.pulling(transform)) })
    }
}

/// The asynchronous rest of a started effect.
@usableFromInline typealias EffectRemainder = @Sendable () async throws -> Void

/// A type-erased hashable and sendable identifier for cancellable effects.
@usableFromInline struct AnyHashableSendable: Hashable, @unchecked Sendable {
    // `AnyHashable` is not Sendable, but it only ever wraps values that are (see the initializer).
    let value: AnyHashable

    init(_ value: some Hashable & Sendable) {
        self.value = AnyHashable(value)
    }
}

import AsyncAlgorithms

/// What a `transform` hook works on: the actions, mutations or states flowing through a reactor.
///
/// Steps (`map`, `filter`, `onEach`, `debug`) run synchronously on every value, so transforms keep
/// synchronous dispatch. Timing operators (`debounce`, `throttle`) hold values back: a value they let
/// through later goes on through the rest of the pipeline then, as new work. The three uses ReactorKit
/// users know, and a debounced search:
///
/// ```swift
/// func transform(action: Pipeline<Action>) -> Pipeline<Action> {
///     action.debug("action")                                  // log every action
/// }
/// func transform(mutation: Pipeline<Mutation>) -> Pipeline<Mutation> {
///     mutation.merge(currentUser.map(Mutation.setUser))       // merge a global event stream
/// }
/// func transform(state: Pipeline<State>) -> Pipeline<State> {
///     state.map { var s = $0; s.title = s.title.capitalized; return s }
/// }
/// func transform(action: Pipeline<Action>) -> Pipeline<Action> {
///     action.debounce(for: .milliseconds(300), clock: clock, where: \.isQueryUpdate)
/// }
/// ```
public struct Pipeline<Value: Sendable>: Sendable {
    /// One stage: a synchronous step, or a timing operator over the values it `selects` (all when `nil`).
    @usableFromInline enum Stage: Sendable {
        case step(@Sendable (Value) -> Value?)
        case timing(Timing, selects: (@Sendable (Value) -> Bool)?)
    }

    /// A timing operator: reads the values handed to it and emits what it lets through.
    @usableFromInline typealias Timing = @Sendable (Inlet<Value>, _ emit: @escaping @Sendable (Value) -> Void) async -> Void

    @usableFromInline var stages: [Stage] = []
    /// Sources merged into the pipeline, started when the reactor starts and stopped when it is released.
    var sources: [@Sendable (@escaping @Sendable (Value) -> Void) async throws -> Void] = []

    /// The pipeline that passes every value through unchanged.
    public init() {}

    /// Values transformed by `transform`.
    public func map(_ transform: @escaping @Sendable (Value) -> Value) -> Pipeline {
        adding { transform($0) }
    }

    /// Only the values for which `isIncluded` is true.
    public func filter(_ isIncluded: @escaping @Sendable (Value) -> Bool) -> Pipeline {
        adding { isIncluded($0) ? $0 : nil }
    }

    /// Calls `body` with every value, passing it on unchanged.
    public func onEach(_ body: @escaping @Sendable (Value) -> Void) -> Pipeline {
        adding {
            body($0)
            return $0
        }
    }

    /// Prints every value with a timestamp, like RxSwift's `debug()`:
    /// `2026-11-21 22:37:55.383: action -> updateQuery("swift")`.
    /// The log keeps these lines forever; this is for the console.
    public func debug(_ label: String = "\(Value.self)", print: @escaping @Sendable (String) -> Void = { Swift.print($0) }) -> Pipeline {
        onEach { value in print("\(DebugClock.now()): \(label) -> \(value)") }
    }

    /// Values from `source` too, as they come, from when the reactor starts until it is released.
    /// Merged actions go through `mutate`; merged mutations are reduced with no causing action; merged
    /// states are published as they are (they bypass `reduce` and the log, so replay cannot rebuild them).
    public func merge<S: AsyncSequence & Sendable>(_ source: S) -> Pipeline where S.Element == Value {
        var copy = self
        copy.sources.append { emit in
            for try await value in source { emit(value) }
        }
        return copy
    }

    /// Values that stop for `interval` on `clock`, the latest only (swift-async-algorithms' `debounce`):
    /// the search box's "until the user stops typing". With `selects`, only the values it selects are
    /// debounced; the others pass at once, and may overtake a held value. A value that comes out later
    /// carries no cause in the log.
    @available(macOS 13.0, iOS 16.0, watchOS 9.0, tvOS 16.0, *)
    public func debounce<C: Clock>(
        for interval: C.Instant.Duration, clock: C, where selects: (@Sendable (Value) -> Bool)? = nil
    ) -> Pipeline where C: Sendable {
        adding(.timing({ values, emit in
            for await value in values.debounce(for: interval, clock: clock) { emit(value) }
        }, selects: selects))
    }

    /// Values that stop for `interval` on the continuous clock (see ``debounce(for:clock:where:)``).
    @available(macOS 13.0, iOS 16.0, watchOS 9.0, tvOS 16.0, *)
    public func debounce(for interval: Duration, where selects: (@Sendable (Value) -> Bool)? = nil) -> Pipeline {
        debounce(for: interval, clock: ContinuousClock(), where: selects)
    }

    /// At most one value per `interval` on `clock` (swift-async-algorithms' throttle): the first value passes,
    /// and later ones are held until a value arrives once `interval` has passed since the last one let
    /// through; then the latest held value wins (with `latest`) or the first held one. With `selects`, only
    /// the values it selects are throttled; the others pass at once. A value that comes out later carries
    /// no cause in the log.
    @available(macOS 13.0, iOS 16.0, watchOS 9.0, tvOS 16.0, *)
    public func throttle<C: Clock>(
        for interval: C.Instant.Duration, clock: C, latest: Bool = true,
        where selects: (@Sendable (Value) -> Bool)? = nil
    ) -> Pipeline where C: Sendable {
        adding(.timing({ values, emit in
            for await value in values._throttle(for: interval, clock: clock, latest: latest) { emit(value) }
        }, selects: selects))
    }

    /// At most one value per `interval` on the continuous clock (see ``throttle(for:clock:latest:where:)``).
    @available(macOS 13.0, iOS 16.0, watchOS 9.0, tvOS 16.0, *)
    public func throttle(
        for interval: Duration, latest: Bool = true, where selects: (@Sendable (Value) -> Bool)? = nil
    ) -> Pipeline {
        throttle(for: interval, clock: ContinuousClock(), latest: latest, where: selects)
    }

    private func adding(_ step: @escaping @Sendable (Value) -> Value?) -> Pipeline {
        adding(.step(step))
    }

    private func adding(_ stage: Stage) -> Pipeline {
        var copy = self
        copy.stages.append(stage)
        return copy
    }
}

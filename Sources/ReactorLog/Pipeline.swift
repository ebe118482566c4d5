/// What a `transform` hook works on: the actions, mutations or states flowing through a reactor.
///
/// Each step runs synchronously on every value, so transforms keep synchronous dispatch. The three uses
/// ReactorKit users know:
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
/// ```
public struct Pipeline<Value: Sendable>: Sendable {
    private var steps: [@Sendable (Value) -> Value?] = []
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

    /// Runs the steps on `value`; `nil` when a step filtered it out.
    func apply(_ value: Value) -> Value? {
        var current = value
        for step in steps {
            guard let next = step(current) else { return nil }
            current = next
        }
        return current
    }

    private func adding(_ step: @escaping @Sendable (Value) -> Value?) -> Pipeline {
        var copy = self
        copy.steps.append(step)
        return copy
    }
}

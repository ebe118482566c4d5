/// A reactor's stub, for testing views: while enabled, `mutate` and `reduce` never run, every sent action
/// is recorded in ``actions``, and setting ``state`` replaces what observers and `currentState` see.
/// A stubbed reactor starts from its raw `initialState` (not through `transform(state:)`), as
/// ReactorKit's stub does.
///
/// ```swift
/// reactor.isStubEnabled = true
/// view.reactor = reactor
/// view.followButton.tap()
/// #expect(reactor.stub.actions.last == .follow(42))
/// reactor.stub.state = State(isFollowing: true)
/// ```
public struct Stub<R: Reactor>: Sendable {
    let reactor: R

    /// Whether the stub is on.
    public var isEnabled: Bool {
        get { reactor.runtime.shared.withLock { $0.isStubEnabled } }
        nonmutating set {
            reactor.runtime.shared.withLock { $0.isStubEnabled = newValue }
            reactor.runtime.isStubEnabled.store(newValue, ordering: .releasing)
        }
    }

    /// Every action sent while the stub was on, in order.
    public var actions: [R.Action] {
        reactor.runtime.shared.withLock { $0.stubActions }
    }

    /// The state views see. Setting it publishes the state to every observer, bypassing `reduce`.
    public var state: R.State {
        get { reactor.currentState }
        nonmutating set {
            let runtime = reactor.runtime
            let engine = runtime.start(reactor)
            runtime.shared.withLock { $0.stubState = newValue }
            runtime.dispatch(.state(newValue), engine: engine, from: nil)
        }
    }
}

extension Reactor {
    /// The reactor's stub, for view tests.
    public var stub: Stub<Self> { Stub(reactor: self) }

    /// Turns the stub on or off (``Stub/isEnabled``).
    public var isStubEnabled: Bool {
        get { stub.isEnabled }
        set { stub.isEnabled = newValue }
    }
}

/// A reactor's stub, for testing views: while enabled, `mutate` and `reduce` never run, every sent action
/// is recorded in ``actions``, and setting ``state`` replaces what observers and `currentState` see.
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
        get { reactor.runtime.core.withLock { $0.stubEnabled } }
        nonmutating set { reactor.runtime.core.withLock { $0.stubEnabled = newValue } }
    }

    /// Every action sent while the stub was on, in order.
    public var actions: [R.Action] {
        reactor.runtime.core.withLock { $0.stubActions }
    }

    /// The state views see. Setting it publishes the state to every observer, bypassing `reduce`.
    public var state: R.State {
        get { reactor.currentState }
        nonmutating set {
            reactor.runtime.start(reactor)
            reactor.runtime.dispatch(.stubState(newValue), reactor: reactor)
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

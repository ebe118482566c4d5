/// A view driven by a reactor, on any platform: set its `reactor` property (declared with ``Bound``) from outside
/// and it binds itself.
///
/// ```swift
/// final class ProfileView: View {
///     var lifetime = LifetimeBag()
///     @Bound var reactor: ProfileViewReactor?
///
///     func bind(reactor: ProfileViewReactor) {
///         reactor.observeOnMainActor { [weak self] state in self?.followButton.isSelected = state.isFollowing }
///             .store(in: lifetime)
///     }
/// }
/// ```
///
/// Setting `reactor` cancels the bindings in ``lifetime``, replaces it with a fresh bag and calls
/// ``bind(reactor:)``; setting it to `nil` only cancels the old bindings. A ``DeferredBindingView`` binds
/// only once it has loaded.
public protocol View: AnyObject {
    /// The reactor type the view binds to.
    associatedtype Reactor: ReactorLog.Reactor
    /// The bag holding the current bindings; replaced each time the reactor is set.
    var lifetime: LifetimeBag { get set }
    /// Binds the view to `reactor`: observe its state, send its actions. Store observations in ``lifetime``.
    func bind(reactor: Reactor)
}

/// A view whose binding waits until it has loaded (ReactorKit's `StoryboardView`): a reactor assigned
/// before that is bound when the view calls `$reactor.viewDidLoad()`, and only the latest one assigned
/// meanwhile is bound, once.
///
/// ```swift
/// final class ProfileViewController: DeferredBindingView {
///     var lifetime = LifetimeBag()
///     @Bound var reactor: ProfileViewReactor?
///     func viewDidLoad() { $reactor.viewDidLoad() }
///     func bind(reactor: ProfileViewReactor) { … }
/// }
/// ```
public protocol DeferredBindingView: View {}

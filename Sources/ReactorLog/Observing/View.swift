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

/// Declares a ``View``'s reactor property: `@Bound var reactor: MyReactor?`.
@propertyWrapper
public struct Bound<R: Reactor> {
    private var reactor: R?
    private let slot = BindingSlot()

    /// No reactor yet.
    public init() {}

    /// The stored reactor, for use outside a ``View`` class (assigning it does not bind).
    public var wrappedValue: R? {
        get { reactor }
        set { reactor = newValue }
    }

    /// The binding's controls: `$reactor.viewDidLoad()` in a ``DeferredBindingView``.
    public var projectedValue: BindingSlot { slot }

    /// Reading and setting the property of a ``View``: setting replaces the view's lifetime bag and binds
    /// (at once, or when a ``DeferredBindingView`` loads).
    public static subscript<V: View>(
        _enclosingInstance view: V,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<V, R?>,
        storage storageKeyPath: ReferenceWritableKeyPath<V, Bound<R>>
    ) -> R? where V.Reactor == R {
        get { view[keyPath: storageKeyPath].reactor }
        set {
            view[keyPath: storageKeyPath].reactor = newValue
            view.lifetime.cancelAll()
            view.lifetime = LifetimeBag()
            let slot = view[keyPath: storageKeyPath].slot
            slot.pendingBinding = nil
            guard let newValue else { return }
            if view is any DeferredBindingView && !slot.isLoaded {
                slot.pendingBinding = { [unowned view] in view.bind(reactor: newValue) }
            } else {
                view.bind(reactor: newValue)
            }
        }
    }
}

/// The binding state of a ``Bound`` reactor property, reached as `$reactor`.
public final class BindingSlot {
    /// Whether the view said it has loaded.
    public private(set) var isLoaded = false
    var pendingBinding: (() -> Void)?

    init() {}

    /// Tells a ``DeferredBindingView``'s reactor property that the view has loaded: binds the latest
    /// reactor assigned before, once. Calling it again does nothing.
    public func viewDidLoad() {
        guard !isLoaded else { return }
        isLoaded = true
        let binding = pendingBinding
        pendingBinding = nil
        binding?()
    }
}

/// A view driven by a reactor, on any platform: set its ``reactor`` (declared with ``Bound``) from outside
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
/// ``bind(reactor:)``; setting it to `nil` only cancels the old bindings.
public protocol View: AnyObject {
    /// The reactor type the view binds to.
    associatedtype Reactor: ReactorLog.Reactor
    /// The bag holding the current bindings; replaced each time the reactor is set.
    var lifetime: LifetimeBag { get set }
    /// Binds the view to `reactor`: observe its state, send its actions. Store observations in ``lifetime``.
    func bind(reactor: Reactor)
}

/// Declares a ``View``'s reactor property: `@Bound var reactor: MyReactor?`.
@propertyWrapper
public struct Bound<R: Reactor> {
    private var reactor: R?

    /// No reactor yet.
    public init() {}

    /// The stored reactor, for use outside a ``View`` class (assigning it does not bind).
    public var wrappedValue: R? {
        get { reactor }
        set { reactor = newValue }
    }

    /// Reading and setting the property of a ``View``: setting replaces the view's lifetime bag and binds.
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
            if let newValue { view.bind(reactor: newValue) }
        }
    }
}

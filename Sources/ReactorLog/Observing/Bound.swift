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

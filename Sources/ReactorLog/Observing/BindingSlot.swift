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

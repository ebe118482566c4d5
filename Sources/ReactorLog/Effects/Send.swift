/// Sends mutations from an effect's async work into the reactor: `send(.setRepos(repos))`.
///
/// Each mutation is reduced as it is sent. Once the effect is cancelled, sending does nothing.
public struct Send<Mutation: Sendable>: Sendable {
    private let deliver: @Sendable (Mutation) -> Void

    /// Creates a sender that hands each mutation to `deliver`.
    public init(_ deliver: @escaping @Sendable (Mutation) -> Void) {
        self.deliver = deliver
    }

    /// Sends one mutation, unless the current task is cancelled.
    public func callAsFunction(_ mutation: Mutation) {
        guard !Task.isCancelled else { return }
        deliver(mutation)
    }
}

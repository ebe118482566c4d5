/// Where a reactor handles its actions and mutations and delivers its states (ReactorKit's `scheduler`).
///
/// - ``immediate`` (the default): on the thread that sends, when the reactor is idle; a send that arrives
///   while another thread is dispatching is queued and handled by that thread, so no sender ever waits.
/// - ``mainActor`` and ``actor(_:)``: always inside that actor. A send made from that actor is handled
///   before it returns; a send from anywhere else is queued and handled by one hop to the actor.
///
/// ```swift
/// final class ProfileViewReactor: Reactor {
///     var scheduler: ReactorScheduler { .mainActor }   // reduce and observers on the main actor
///     …
/// }
/// ```
public struct ReactorScheduler: Sendable {
    /// The actor every dispatch runs in, or `nil` for the sending thread.
    @usableFromInline let actor: (any Actor)?

    /// On the sending thread.
    public static var immediate: ReactorScheduler { ReactorScheduler(actor: nil) }

    /// On the main actor, where UI binds.
    public static var mainActor: ReactorScheduler { ReactorScheduler(actor: MainActor.shared) }

    /// On `actor`: for example one actor per server session.
    public static func actor(_ actor: any Actor) -> ReactorScheduler { ReactorScheduler(actor: actor) }

    /// Whether code running in `isolation` may dispatch right away.
    @inlinable func admits(_ isolation: (any Actor)?) -> Bool {
        guard let actor else { return true }
        guard let isolation else { return false }
        return ObjectIdentifier(actor) == ObjectIdentifier(isolation)
    }
}

/// A misuse of a reactor's runtime.
public enum ReactorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A recorder was installed after the reactor's first use.
    case alreadyStarted

    /// The error as a sentence with a hint.
    public var description: String {
        switch self {
        case .alreadyStarted:
            "The reactor has already started; record it before its first use (send, currentState or observe)."
        }
    }
}

/// One difference between two states.
public struct StateChange: Sendable, Hashable, CustomStringConvertible {
    /// Where it is.
    public let path: StatePath
    /// The value before; `nil` when it was added.
    public let old: JSONValue?
    /// The value after; `nil` when it was removed.
    public let new: JSONValue?

    /// `~ path: old → new`, `+ path: new` or `- path: old`.
    public var description: String {
        switch (old, new) {
        case (nil, let new?): "+ \(path): \(StateDiff.abbreviate(new))"
        case (let old?, nil): "- \(path): \(StateDiff.abbreviate(old))"
        case (let old?, let new?): "~ \(path): \(StateDiff.abbreviate(old)) → \(StateDiff.abbreviate(new))"
        case (nil, nil): "  \(path)"
        }
    }
}

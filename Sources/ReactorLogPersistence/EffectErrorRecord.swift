/// The payload of an effect-error entry.
public struct EffectErrorRecord: Codable, Sendable, Hashable {
    /// The error's type, such as `URLError`.
    public let type: String
    /// The error as text.
    public let message: String
}

/// A hand-written ``BinaryPayloadCodable`` conformance that disagrees with the type's `Codable` one
/// (``BinaryPayload/checkHandWrittenCoding(of:)``).
public struct HandWrittenCodingMismatch: Error, Sendable, CustomStringConvertible {
    /// The type whose conformances disagree.
    public let type: String
    /// How they disagree.
    public let problem: String
    /// The value as `Codable` writes it, as JSON.
    public let codable: String
    /// The value as the hand-written conformance writes it, as JSON.
    public let handWritten: String

    /// A sentence naming the type and the problem, with both forms.
    public var description: String {
        "The hand-written binary coding of \(type) \(problem): Codable writes \(codable), the conformance writes \(handWritten)."
    }
}

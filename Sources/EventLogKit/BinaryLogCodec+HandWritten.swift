extension BinaryLogCodec {
    /// Encoding of `Value` in the binary form, resolved once: through `Value`'s ``BinaryPayloadEncodable``
    /// conformance, keeping only what lies on a path when given one (``encode(_:keepingOnly:)``), or `nil` when it
    /// has none. For code that encodes one type again and again (a recorder, blame): the codec otherwise looks the
    /// conformance up for every value, which costs the runtime a few hundred instructions.
    package static func payloadEncoder<Value: Encodable & SendableMetatype>(
        for type: Value.Type
    ) -> (@Sendable (Value, _ keepingOnly: [BinaryPayload.PathStep]?) throws -> (payload: [UInt8], caseName: String?))? {
        guard let direct = Value.self as? any (BinaryPayloadEncodable & SendableMetatype).Type else { return nil }
        func encoder<Direct: BinaryPayloadEncodable & SendableMetatype>(
            _: Direct.Type
        ) -> @Sendable (Value, [BinaryPayload.PathStep]?) throws -> (payload: [UInt8], caseName: String?) {
            { value, path in try BinaryPayloadEncoder.encodeDirectly(value, as: Direct.self, keepingOnly: path) }
        }
        return encoder(direct)
    }

    /// Decoding of binary payloads as `Value`, resolved once: through `Value`'s ``BinaryPayloadDecodable``
    /// conformance (and `Codable` for what it refuses), or `nil` when it has none. For code that decodes one type
    /// again and again (replay, time travel): the codec otherwise looks the conformance up for every value, which
    /// costs the runtime a few hundred instructions.
    package static func payloadDecoder<Value: Decodable & SendableMetatype>(
        for type: Value.Type
    ) -> (@Sendable (UnsafeRawBufferPointer) throws -> Value)? {
        guard let direct = Value.self as? any (BinaryPayloadDecodable & SendableMetatype).Type else { return nil }
        func decoder<Direct: BinaryPayloadDecodable & SendableMetatype>(_: Direct.Type) -> @Sendable (UnsafeRawBufferPointer) throws -> Value {
            { bytes in try BinaryPayloadDecoder.decodeDirectly(Direct.self, as: Value.self, from: bytes) }
        }
        return decoder(direct)
    }

    /// Checks a hand-written ``BinaryPayloadCodable`` conformance against the type's `Codable` one for `value`:
    /// both must write the same bytes and name the same case, and the hand-written reading of the `Codable` bytes
    /// must give `value` back. Call it in a test, for a value of each case or shape; it throws a
    /// ``HandWrittenCodingMismatch`` that shows both forms as JSON.
    public static func checkHandWrittenCoding<Value: BinaryPayloadCodable & Equatable>(of value: Value) throws {
        let viaCodable = try BinaryPayloadEncoder.encode(value, direct: false)
        let direct = try BinaryPayloadEncoder.encode(value)
        func json(_ payload: [UInt8]) -> String {
            let text = payload.withUnsafeBytes { try? BinaryPayload.json($0) }
            return text.map { String(decoding: $0, as: UTF8.self) } ?? "the malformed bytes \(payload)"
        }
        func mismatch(_ problem: String) -> HandWrittenCodingMismatch {
            HandWrittenCodingMismatch(type: "\(Value.self)", problem: problem, codable: json(viaCodable.payload), handWritten: json(direct.payload))
        }
        guard direct.payload == viaCodable.payload else { throw mismatch("writes other bytes than Codable") }
        guard direct.caseName == viaCodable.caseName else {
            throw mismatch("names the case \(direct.caseName.map { "\"\($0)\"" } ?? "nil"), where Codable names \(viaCodable.caseName.map { "\"\($0)\"" } ?? "nil")")
        }
        let decoded = try viaCodable.payload.withUnsafeBytes { try BinaryPayloadDecoder.decode(Value.self, from: $0) }
        guard decoded == value else { throw mismatch("reads the Codable bytes as another value, \(decoded)") }
    }
}

/// A hand-written ``BinaryPayloadCodable`` conformance that disagrees with the type's `Codable` one
/// (``BinaryLogCodec/checkHandWrittenCoding(of:)``).
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

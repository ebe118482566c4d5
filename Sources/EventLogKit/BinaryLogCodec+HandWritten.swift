extension BinaryLogCodec {
    /// Encoding of `Value` in the binary form, resolved once: through `Value`'s `BinaryPayloadEncodable`
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

    /// Decoding of binary payloads as `Value`, resolved once: through `Value`'s `BinaryPayloadDecodable`
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
}

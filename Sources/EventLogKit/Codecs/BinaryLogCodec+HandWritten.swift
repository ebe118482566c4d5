extension BinaryLogCodec {
    /// How this codec encodes a `Value`, resolved once for the type: through its `BinaryPayloadEncodable`
    /// conformance when it has one (and the codec codes directly), else through `Codable`, keeping only what lies on
    /// a path when given one (``encode(_:keepingOnly:)``). The payload goes at the end of the buffer given, which is
    /// left as it was when encoding throws; the case name is returned. For code that encodes one type again and again
    /// (a log's writer, blame): the codec's generic entry points ask the runtime about the conformance for every
    /// value, a few hundred instructions whichever the answer.
    package func payloadEncoder<Value: Encodable & SendableMetatype>(for type: Value.Type) -> PayloadEncoder<Value> {
        guard directCoding, let direct = Value.self as? any (BinaryPayloadEncodable & SendableMetatype).Type else {
            let encoders = encoders
            return PayloadEncoder { value, path, buffer in
                try BinaryPayloadEncoder.encode(value, keepingOnly: path, reusing: encoders, direct: false, into: &buffer)
            }
        }
        // Made for `Direct` and cast to `Value`, which it is (``PayloadEncoder/cast(to:)``).
        func encoder<Direct: BinaryPayloadEncodable & SendableMetatype>(_: Direct.Type) -> PayloadEncoder<Value> {
            PayloadEncoder<Direct> { value, path, buffer in
                try BinaryPayloadWriter.write(value, keepingOnly: path, into: &buffer)
            }.cast(to: Value.self)
        }
        return encoder(direct)
    }

    /// How this codec decodes a `Value` from binary payloads, resolved once for the type: through its
    /// `BinaryPayloadDecodable` conformance when it has one (and `Codable` for what that refuses), else through
    /// `Codable`. For code that decodes one type again and again (replay, time travel), as ``payloadEncoder(for:)``.
    package func payloadDecoder<Value: Decodable & SendableMetatype>(
        for type: Value.Type
    ) -> @Sendable (UnsafeRawBufferPointer) throws -> Value {
        guard directCoding, let direct = Value.self as? any (BinaryPayloadDecodable & SendableMetatype).Type else {
            let decoders = decoders
            return { bytes in try BinaryPayloadDecoder.decode(Value.self, from: bytes, reusing: decoders, direct: false) }
        }
        func decoder<Direct: BinaryPayloadDecodable & SendableMetatype>(_: Direct.Type) -> @Sendable (UnsafeRawBufferPointer) throws -> Value {
            { bytes in try BinaryPayloadDecoder.decodeDirectly(Direct.self, as: Value.self, from: bytes) }
        }
        return decoder(direct)
    }
}

import Foundation

/// The binary codec (codec byte 2), the default for new logs: JSON's data model in a compact tagged form
/// (docs/FORMAT.md, "The binary codec"), several times faster than JSON both ways and readable without the
/// Swift types, since `BinaryPayload.json(_:)` renders any payload as JSON.
///
/// Values encode in the order their `Codable` conformance writes them; `Data` is a base64 string, `URL` its
/// absolute string and `Decimal` its decimal text, as Foundation's JSON coders write them. A value whose type
/// conforms to `BinaryPayloadEncodable` or `BinaryPayloadDecodable` is written or read by that conformance
/// instead, several times faster, to the same bytes.
public struct BinaryLogCodec: LogCodec {
    /// ``CodecID/binary``.
    public var id: CodecID { .binary }

    /// Whether values whose types conform to `BinaryPayloadEncodable` or `BinaryPayloadDecodable` are coded
    /// through those conformances; when `false`, every value goes through `Codable`.
    public let directCoding: Bool

    /// The encoder that this codec (and its copies) reuse from value to value.
    let encoders = Spare<BinaryPayloadEncoder>()
    /// The decoder that this codec (and its copies) reuse from value to value.
    @usableFromInline let decoders = Spare<BinaryPayloadDecoder>()

    /// Creates the codec. `directCoding: false` sets hand-written conformances aside and codes every value through
    /// `Codable`: to rule one out while chasing a bug, or to measure what it saves.
    public init(directCoding: Bool = true) {
        self.directCoding = directCoding
    }

    /// The codec that code without a codec of its own uses (``CodecID/decode(_:from:)-(_,Data)``, the replayer's
    /// path encodings), so that its coders are reused from value to value: a codec made for one value allocates
    /// and frees them each time.
    @usableFromInline package static let shared = BinaryLogCodec()

    /// Encodes `value`.
    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        try BinaryPayloadEncoder.encodeData(value, reusing: encoders, direct: directCoding)
    }

    /// Encodes `value` and names its case: the key of a top-level object of one member, learned as it is written.
    public func encodeNamingCase<Value: Encodable>(_ value: Value) throws -> (payload: Data, caseName: String?) {
        let encoded = try encodeBytesNamingCase(value)
        return (Data(encoded.payload), encoded.caseName)
    }

    /// ``encodeNamingCase(_:)`` with the payload as plain bytes, made without a `Data` in between.
    public func encodeBytesNamingCase<Value: Encodable>(_ value: Value) throws -> (payload: [UInt8], caseName: String?) {
        try BinaryPayloadEncoder.encode(value, reusing: encoders, direct: directCoding)
    }

    /// The binary form of the part of `value` that lies on `path`: members off the path are left out and array
    /// elements off it are nulls, so the JSON form of the result has at `path` exactly what the JSON form of
    /// `value` has there. Writing costs what the path leads through, not the whole value: how blame follows one
    /// field of a large state over millions of steps. Where the path asks for a size, use
    /// `BinaryPayload.PathStep.count`: it keeps the container's keys or elements, not what lies under them.
    public func encode<Value: Encodable>(_ value: Value, keepingOnly path: [BinaryPayload.PathStep]) throws -> Data {
        try BinaryPayloadEncoder.encodeData(value, keepingOnly: path, reusing: encoders)
    }

    /// Decodes a `Value` from `data`.
    @inlinable public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try data.withUnsafeBytes { try BinaryPayloadDecoder.decode(type, from: $0, reusing: decoders, direct: directCoding) }
    }

    /// Decodes a `Value` from bytes that stay where they are, such as a record in the log's map.
    ///
    /// Inlinable, as the decodings of ``CodecID`` are: where `Value` is a concrete type with a
    /// `BinaryPayloadDecodable` conformance, the compiler finds the conformance, so a loop that decodes
    /// value after value (a replay) does not ask the runtime for it each time.
    @inlinable public func decode<Value: Decodable>(_ type: Value.Type, from bytes: UnsafeRawBufferPointer) throws -> Value {
        try BinaryPayloadDecoder.decode(type, from: bytes, reusing: decoders, direct: directCoding)
    }
}

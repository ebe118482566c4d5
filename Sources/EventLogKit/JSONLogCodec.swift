import Foundation

/// The JSON codec (codec byte 1): payloads any JSON tool can read.
///
/// Enums with associated values use Swift's synthesized `Codable` form, for example
/// `{"updateQuery":{"_0":"swift"}}`. Object keys are sorted, so equal values always encode to equal bytes.
public struct JSONLogCodec: LogCodec {
    // One encoder and one decoder, shared: they are Sendable and keep no state between calls.
    private let encoder: JSONEncoder
    private let decoder = JSONDecoder()

    /// ``CodecID/json``.
    public var id: CodecID { .json }

    /// Creates the codec.
    public init() {
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
    }

    /// Encodes `value` with `JSONEncoder`, keys sorted.
    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        try encoder.encode(value)
    }

    /// Decodes `data` with `JSONDecoder`.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try decoder.decode(type, from: data)
    }
}

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

    /// Encodes `value` and reads its case name back from the JSON: the key of a top-level object of one member.
    public func encodeNamingCase<Value: Encodable>(_ value: Value) throws -> (payload: Data, caseName: String?) {
        let payload = try encoder.encode(value)
        return (payload, Self.singleKey(of: payload))
    }

    /// The key of a JSON object of exactly one member (`{"updateQuery":{...}}`), as Swift writes an enum case.
    static func singleKey(of json: Data) -> String? {
        json.withUnsafeBytes { bytes -> String? in
            guard bytes.count >= 2, bytes[0] == UInt8(ascii: "{"), bytes[1] == UInt8(ascii: "\""),
                  let end = bytes[2...].firstIndex(of: UInt8(ascii: "\"")), isSingleMemberObject(bytes) else { return nil }
            return String(validating: UnsafeRawBufferPointer(rebasing: bytes[2..<end]), as: UTF8.self)
        }
    }

    /// Whether a JSON object has one member: no comma at depth 1 outside strings.
    private static func isSingleMemberObject(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ","): if depth == 1 { return false }
            default: break
            }
        }
        return true
    }

    /// Decodes `data` with `JSONDecoder`.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try decoder.decode(type, from: data)
    }
}

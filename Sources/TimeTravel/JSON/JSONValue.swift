import BinaryPayloadKit
import EventLogKit
import Foundation

/// A JSON document as a tree: how time travel sees any `Codable` state, to diff it and to follow paths in it.
public enum JSONValue: Sendable, Hashable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number: an integer exactly, a longer decimal than a double holds as a `Decimal`, anything else as a double
    /// (``JSONNumber``).
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; its keys are sorted when it is rendered.
    case object([String: JSONValue])

    /// Parses a UTF-8 JSON document (fragments such as `42` or `"text"` included). Nothing is thrown unless the
    /// document is invalid; nesting deeper than 512 levels is refused.
    public init(parsing data: Data) throws {
        self = try JSONParser.parse(data)
    }

    /// The value of a payload written with `codec`, when that codec reads as JSON (`CodecID.isReadableAsJSON`):
    /// `nil` for another codec. Throws for a payload that is not well formed.
    public init?(payload: Data, codec: CodecID) throws {
        if codec == .binary {
            try self.init(binary: payload)
            return
        }
        guard let json = try codec.json(payload) else { return nil }
        try self.init(parsing: json)
    }

    /// The JSON form of an `Encodable` value, as the log's JSON codec writes it. Made through the binary codec,
    /// whose payloads have exactly Foundation's JSON form, and built from its bytes: no JSON text in between.
    public init<Value: Encodable>(encoding value: Value) throws {
        try self.init(binary: try BinaryLogCodec.shared.encode(value))
    }

    /// The value of a payload read in place (an `EntryView`'s), as ``init(payload:codec:)`` reads it: a binary one
    /// is decoded where it lies, without a copy.
    public init?(payload: UnsafeRawBufferPointer, codec: CodecID) throws {
        if codec == .binary {
            try self.init(binary: payload)
            return
        }
        guard let value = try JSONValue(payload: Data(payload), codec: codec) else { return nil }
        self = value
    }

    /// Compact JSON with sorted keys; integral numbers without a fraction.
    public var description: String {
        var out: [UInt8] = []
        appendJSON(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends ``description`` as UTF-8 to `out`: compact JSON, an object's members in the order of their keys'
    /// UTF-8 bytes (the order Foundation's `JSONEncoder` sorts keys in), numbers as ``JSONNumber`` spells them.
    public func appendJSON(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value): out.append(contentsOf: value.description.utf8)
        case .string(let value): JSONText.appendString(value, to: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.appendJSON(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in Self.sorted(members).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                member.value.appendJSON(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// An object's members in the order of their keys' UTF-8 bytes.
    private static func sorted(_ members: [String: JSONValue]) -> [(key: String, value: JSONValue)] {
        members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    /// The value as pretty-printed JSON, two spaces per level, keys sorted.
    public func pretty(indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .array(let values) where !values.isEmpty:
            return "[\n" + values.map { inner + $0.pretty(indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .object(let members) where !members.isEmpty:
            return "{\n" + Self.sorted(members).map { member in
                "\(inner)\(JSONText.quoted(member.key)): \(member.value.pretty(indent: inner))"
            }.joined(separator: ",\n") + "\n\(indent)}"
        default:
            return description
        }
    }

    /// Whether every number in it is finite, so that ``description`` is JSON (a decoder can hand over an infinity
    /// for `1e999`, which JSON cannot express).
    public var isExpressibleAsJSON: Bool {
        switch self {
        case .number(let value): value.isFinite
        case .array(let values): values.allSatisfy(\.isExpressibleAsJSON)
        case .object(let members): members.values.allSatisfy(\.isExpressibleAsJSON)
        default: true
        }
    }

    /// The text of the UTF-8 JSON document `data` without the whitespace between its tokens (so on one line),
    /// every token kept exactly as written; `nil` unless it is one valid JSON document whose numbers are finite.
    /// It builds no tree: the fast way to pass stored JSON on.
    public static func compactText(_ data: Data) -> String? {
        JSONCompactor.compact(data).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Appends ``compactText(_:)`` of `data` to `output` as UTF-8 and returns `true`; returns `false`, leaving
    /// `output` as it was, when `data` is not one valid JSON document with finite numbers.
    public static func appendCompactUTF8(_ data: Data, to output: inout [UInt8]) -> Bool {
        JSONCompactor.append(data, to: &output)
    }

    /// ``appendCompactUTF8(_:to:)-(Data,_)`` for bytes in memory, such as a payload read in place.
    public static func appendCompactUTF8(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) -> Bool {
        JSONCompactor.append(bytes, to: &output)
    }

    /// UTF-8 bytes of ``description``.
    public var data: Data { Data(description.utf8) }
}

extension JSONValue: Codable {
    /// Reads any JSON value; booleans and numbers stay apart, and an integer keeps every digit.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Decimal.self), value.isFinite {
            // Every digit, where the decoder reads a number's text as a decimal (Foundation's JSON decoder does:
            // asked for an `Int64`, it takes 12345678901234567.891 for 12345678901234567).
            self = .number(JSONNumber(value))
        } else if let value = try? container.decode(Int64.self) {
            self = .number(.integer(value))
        } else if let value = try? container.decode(UInt64.self) {
            self = .number(JSONNumber(value))
        } else if let value = try? container.decode(Double.self) {
            self = .number(.double(value))
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Writes the value as JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(.integer(let value)): try container.encode(value)
        case .number(.unsigned(let value)): try container.encode(value)
        case .number(.double(let value)): try container.encode(value)
        case .number(.decimal(let value)): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let members): try container.encode(members)
        }
    }
}

import BinaryPayloadKit
import Foundation

/// Parses UTF-8 JSON into a ``JSONValue`` in one pass, without Foundation's decoder: nothing is thrown
/// unless the input is invalid (test runners hook every throw, so trying each type in turn was slow), and
/// nesting deeper than the binary form holds (512 levels) is refused instead of exhausting the stack on hostile input.
/// Its tokens and containers come from `JSONScanner`, as the other readers' of JSON text do, so they all accept
/// exactly the same text.
struct JSONParser {
    /// Why the input is not JSON, and where.
    struct Failure: Error, CustomStringConvertible {
        let offset: Int
        let reason: String
        var description: String { "not valid JSON at byte \(offset): \(reason)" }
    }

    static func parse(_ data: Data) throws(Failure) -> JSONValue {
        let parsed = data.withUnsafeBytes { bytes in Result { () throws(JSONScanner.Failure) -> JSONValue in
            var scanner = JSONScanner(bytes)
            let value = try value(&scanner, depth: 0)
            scanner.skipSpace()
            guard scanner.isAtEnd else { throw scanner.failure("unexpected text after the value") }
            return value
        } }
        return try parsed.mapError { Failure(offset: $0.offset, reason: $0.reason) }.get()
    }

    /// The value `scanner` reads next, `depth` containers deep.
    private static func value(_ scanner: inout JSONScanner, depth: Int) throws(JSONScanner.Failure) -> JSONValue {
        switch try scanner.startValue(depth: depth) {
        case .object:
            var members: [String: JSONValue] = [:]
            try scanner.members { (scanner: inout JSONScanner, key: JSONScanner.StringToken, _: Int) throws(JSONScanner.Failure) in
                members[scanner.decoded(key)] = try value(&scanner, depth: depth + 1)
            }
            return .object(members)
        case .array:
            var values: [JSONValue] = []
            try scanner.elements { (scanner: inout JSONScanner, _: Int) throws(JSONScanner.Failure) in
                values.append(try value(&scanner, depth: depth + 1))
            }
            return .array(values)
        case .string: return .string(scanner.decoded(try scanner.string()))
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .null: return .null
        case .number:
            let start = scanner.offset
            // An integer exactly; finite otherwise: the scanner checked.
            guard let value = JSONNumber(text: scanner.text(try scanner.number())) else {
                throw JSONScanner.Failure(offset: start, reason: "the number is out of range")
            }
            return .number(value)
        }
    }
}

import Foundation

/// Parses UTF-8 JSON into a ``JSONValue`` in one pass, without Foundation's decoder: nothing is thrown
/// unless the input is invalid (test runners hook every throw, so trying each type in turn was slow), and
/// nesting deeper than ``maxDepth`` is refused instead of exhausting the stack on hostile input.
struct JSONParser {
    /// The deepest nesting accepted.
    static let maxDepth = 512

    /// Why the input is not JSON, and where.
    struct Failure: Error, CustomStringConvertible {
        let offset: Int
        let reason: String
        var description: String { "not valid JSON at byte \(offset): \(reason)" }
    }

    private let bytes: [UInt8]
    private var index = 0

    static func parse(_ data: Data) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: Array(data))
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.failure("unexpected text after the value") }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func failure(_ reason: String) -> Failure {
        Failure(offset: index, reason: reason)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= Self.maxDepth else { throw failure("nested more than \(Self.maxDepth) levels deep") }
        guard index < bytes.count else { throw failure("the input ends where a value should be") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw failure("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
              bytes[index..<index + count].elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: count)) else {
            throw failure("expected \(word)")
        }
        index += count
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            skipWhitespace()
            members[key] = try value(depth: depth + 1)
            skipWhitespace()
            guard index < bytes.count else { throw failure("the input ends inside an object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "}") else { throw failure("expected ',' or '}'") }
            index += 1
            return .object(members)
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        index += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(values)
        }
        while true {
            skipWhitespace()
            values.append(try value(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw failure("the input ends inside an array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "]") else { throw failure("expected ',' or ']'") }
            index += 1
            return .array(values)
        }
    }

    private mutating func number() throws(Failure) -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits() -> Int {
            let first = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - first
        }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0 else { throw failure("expected a digit") }
        guard integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else {
            throw Failure(offset: integerStart, reason: "a number with a leading zero")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw failure("expected a digit after '.'") }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw failure("expected a digit in the exponent") }
        }
        guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite else {
            throw Failure(offset: start, reason: "the number is out of range")
        }
        return value
    }

    private mutating func string() throws(Failure) -> String {
        index += 1
        var utf8: [UInt8] = []
        while true {
            guard index < bytes.count else { throw failure("the input ends inside a string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: utf8, as: UTF8.self) else { throw failure("a string is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw failure("the input ends inside an escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw failure("a high surrogate without its low half")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw failure("a high surrogate without its low half") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw failure("a lone surrogate") }
                    utf8.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw failure("an unknown escape")
                }
            case 0x00...0x1F:
                throw failure("a control character inside a string")
            default:
                utf8.append(byte)
            }
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        // Exactly four digits: `UInt32(_:radix:)` alone would also take a sign (`\u+00e`).
        let digits = bytes[min(index, bytes.count)..<min(index + 4, bytes.count)]
        guard digits.count == 4, digits.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) }),
              let value = UInt32(String(decoding: digits, as: UTF8.self), radix: 16) else {
            throw failure("expected four hexadecimal digits")
        }
        index += 4
        return value
    }
}

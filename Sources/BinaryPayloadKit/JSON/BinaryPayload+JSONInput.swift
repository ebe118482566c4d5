import Foundation

extension BinaryPayload {
    /// The binary form of JSON text: what the encoder falls back to for a type that writes its containers out of
    /// order (see ``BinaryEncoder``), after Foundation's `JSONEncoder` wrote it, and what an import writes for a
    /// payload given as JSON. Integers stay integers, other numbers become doubles when the double gives back the
    /// same text, and their text otherwise. Its tokens come from `JSONScanner`, as the log's other readers of JSON
    /// text take theirs, so it refuses what they refuse (containers nested deeper than the binary form holds too).
    package static func fromJSON(_ json: Data) throws(InvalidJSON) -> [UInt8] {
        try json.withUnsafeBytes { bytes in Result { () throws(JSONScanner.Failure) -> [UInt8] in
            var scanner = JSONScanner(bytes)
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            try value(&scanner, into: &out, depth: 0)
            scanner.skipSpace()
            guard scanner.isAtEnd else { throw scanner.failure("text follows the JSON value") }
            return out
        } }.mapError { InvalidJSON(offset: $0.offset, reason: $0.reason) }.get()
    }

    /// Writes the binary form of the value `scanner` reads next, `depth` containers deep.
    private static func value(_ scanner: inout JSONScanner, into out: inout [UInt8], depth: Int) throws(JSONScanner.Failure) {
        switch try scanner.startValue(depth: depth) {
        case .null: out.append(null)
        case .true: out.append(`true`)
        case .false: out.append(`false`)
        case .string: appendString(scanner.decoded(try scanner.string()), to: &out)
        case .array:
            out.append(array)
            try scanner.elements { (scanner: inout JSONScanner, _: Int) throws(JSONScanner.Failure) in
                try value(&scanner, into: &out, depth: depth + 1)
            }
            out.append(arrayEnd)
        case .object:
            out.append(object)
            try scanner.members { (scanner: inout JSONScanner, key: JSONScanner.StringToken, _: Int) throws(JSONScanner.Failure) in
                appendKey(scanner.decoded(key), to: &out)
                try value(&scanner, into: &out, depth: depth + 1)
            }
            out.append(0)
        case .number:
            appendNumber(scanner.text(try scanner.number()), to: &out)
        }
    }

    /// An integer as an integer when one fits, a double when it gives back the same text, the text otherwise (a
    /// number a double would round, such as 0.10 or a long decimal; finite, as the scanner checked).
    private static func appendNumber(_ text: String, to out: inout [UInt8]) {
        if let integer = Int64(text) {
            appendInteger(integer, to: &out)
        } else if let unsigned = UInt64(text) {
            appendUnsigned(unsigned, to: &out)
        } else if let double = Double(text), JSONText.number(double) == text {
            appendDouble(double, to: &out)
        } else {
            appendDecimal(text, to: &out)
        }
    }
}

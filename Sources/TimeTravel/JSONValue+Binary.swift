import EventLogKit
import Foundation

extension JSONValue {
    /// The value of a binary payload (docs/FORMAT.md), built in one pass over its bytes: exactly what rendering it
    /// as JSON text (`BinaryPayload.json`) and parsing that text would give, without making the text. Throws
    /// `BinaryPayload.Malformed` for anything that is not exactly one well-formed value, as rendering does.
    init(binary payload: UnsafeRawBufferPointer) throws(BinaryPayload.Malformed) {
        var reader = BinaryPayload.Reader(payload)
        self = try Self.value(&reader, depth: 0)
        guard reader.isAtEnd else { throw reader.malformed("bytes follow the payload's value") }
    }

    /// `init(binary:)` of a payload held in `Data`.
    init(binary payload: Data) throws(BinaryPayload.Malformed) {
        let built = payload.withUnsafeBytes { bytes in Result { () throws(BinaryPayload.Malformed) in try JSONValue(binary: bytes) } }
        self = try built.get()
    }

    private static func value(_ reader: inout BinaryPayload.Reader, depth: Int) throws(BinaryPayload.Malformed) -> JSONValue {
        try reader.checkDepth(depth)
        let tag = try reader.byte()
        switch tag {
        case BinaryPayload.null: return .null
        case BinaryPayload.false: return .bool(false)
        case BinaryPayload.true: return .bool(true)
        // The nearest double, as parsing the number's text gives.
        case BinaryPayload.integer: return .number(Double(try reader.integer()))
        case BinaryPayload.unsigned: return .number(Double(try reader.varint()))
        case BinaryPayload.double: return .number(try reader.double())
        case BinaryPayload.string: return .string(try reader.text(try reader.length()))
        case BinaryPayload.decimal:
            let start = reader.offset
            // Parsing the rendered text refuses a number a double cannot hold.
            guard let number = Double(try reader.decimalText()), number.isFinite else {
                reader.offset = start
                throw reader.malformed("a decimal number is out of a double's range")
            }
            return .number(number)
        case BinaryPayload.array:
            var values: [JSONValue] = []
            while try !reader.arrayEnds() { values.append(try value(&reader, depth: depth + 1)) }
            return .array(values)
        case BinaryPayload.object:
            var members: [String: JSONValue] = [:]
            while let length = try reader.keyLength() {
                let key = try reader.text(length)
                // The last of a repeated key wins, as in the parser.
                members[key] = try value(&reader, depth: depth + 1)
            }
            return .object(members)
        default:
            throw reader.notAValue(tag)
        }
    }
}

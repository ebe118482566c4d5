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
        guard depth < BinaryPayload.maximumDepth else {
            throw reader.malformed("containers nest deeper than \(BinaryPayload.maximumDepth)")
        }
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
            let text = try reader.text(try reader.length())
            guard BinaryPayload.isJSONNumber(text), let number = Double(text), number.isFinite else {
                reader.offset = start
                throw reader.malformed("a decimal number is not a finite JSON number")
            }
            return .number(number)
        case BinaryPayload.array:
            var values: [JSONValue] = []
            while true {
                guard !reader.isAtEnd else { throw reader.malformed("an array has no end mark") }
                if reader.bytes[reader.offset] == BinaryPayload.arrayEnd {
                    reader.offset += 1
                    return .array(values)
                }
                values.append(try value(&reader, depth: depth + 1))
            }
        case BinaryPayload.object:
            var members: [String: JSONValue] = [:]
            while let length = try reader.keyLength() {
                let key = try reader.text(length)
                // The last of a repeated key wins, as in the parser.
                members[key] = try value(&reader, depth: depth + 1)
            }
            return .object(members)
        default:
            reader.offset -= 1
            throw reader.malformed("tag 0x\(String(tag, radix: 16)) is not a value")
        }
    }
}

import Foundation

extension BinaryPayload {
    /// The binary form of JSON text: what the encoder falls back to for a type that writes its containers out of
    /// order (see ``BinaryEncoder``), after Foundation's `JSONEncoder` wrote it, and what an import writes for a
    /// payload given as JSON. Integers stay integers, other numbers become doubles. Text that is not JSON is refused,
    /// as the other readers refuse it: an unknown escape, a control character or a lone surrogate in a string, an
    /// escape without four hexadecimal digits.
    package static func fromJSON(_ json: Data) throws(InvalidJSON) -> [UInt8] {
        try json.withUnsafeBytes { bytes in Result { () throws(InvalidJSON) -> [UInt8] in
            var parser = JSONInput(bytes: bytes, offset: 0)
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            try parser.value(into: &out, depth: 0)
            parser.skipSpace()
            guard parser.offset == bytes.count else { throw parser.malformed("text follows the JSON value") }
            return out
        } }.get()
    }

    /// A small JSON reader that writes binary values as it goes.
    private struct JSONInput {
        let bytes: UnsafeRawBufferPointer
        var offset: Int

        func malformed(_ reason: String) -> InvalidJSON { InvalidJSON(offset: offset, reason: reason) }

        mutating func skipSpace() {
            while offset < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[offset]) { offset += 1 }
        }

        mutating func expect(_ literal: String) throws(InvalidJSON) {
            for byte in literal.utf8 {
                guard offset < bytes.count, bytes[offset] == byte else { throw malformed("expected '\(literal)'") }
                offset += 1
            }
        }

        mutating func value(into out: inout [UInt8], depth: Int) throws(InvalidJSON) {
            guard depth < BinaryPayload.maximumDepth else { throw malformed("containers nest too deep") }
            skipSpace()
            guard offset < bytes.count else { throw malformed("the text ends before a value") }
            switch bytes[offset] {
            case UInt8(ascii: "n"): try expect("null"); out.append(BinaryPayload.null)
            case UInt8(ascii: "t"): try expect("true"); out.append(BinaryPayload.true)
            case UInt8(ascii: "f"): try expect("false"); out.append(BinaryPayload.false)
            case UInt8(ascii: "\""): BinaryPayload.appendString(try string(), to: &out)
            case UInt8(ascii: "["):
                offset += 1
                out.append(BinaryPayload.array)
                skipSpace()
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") { offset += 1 } else {
                    while true {
                        try value(into: &out, depth: depth + 1)
                        skipSpace()
                        guard offset < bytes.count else { throw malformed("an array is not closed") }
                        offset += 1
                        if bytes[offset - 1] == UInt8(ascii: "]") { break }
                        guard bytes[offset - 1] == UInt8(ascii: ",") else { throw malformed("expected ',' or ']'") }
                    }
                }
                out.append(BinaryPayload.arrayEnd)
            case UInt8(ascii: "{"):
                offset += 1
                out.append(BinaryPayload.object)
                skipSpace()
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") { offset += 1 } else {
                    while true {
                        skipSpace()
                        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw malformed("expected a key") }
                        BinaryPayload.appendKey(try string(), to: &out)
                        skipSpace()
                        try expect(":")
                        try value(into: &out, depth: depth + 1)
                        skipSpace()
                        guard offset < bytes.count else { throw malformed("an object is not closed") }
                        offset += 1
                        if bytes[offset - 1] == UInt8(ascii: "}") { break }
                        guard bytes[offset - 1] == UInt8(ascii: ",") else { throw malformed("expected ',' or '}'") }
                    }
                }
                out.append(0)
            default: try number(into: &out)
            }
        }

        mutating func number(into out: inout [UInt8]) throws(InvalidJSON) {
            let start = offset
            while offset < bytes.count, "+-0123456789.eE".utf8.contains(bytes[offset]) { offset += 1 }
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
            guard BinaryPayload.isJSONNumber(text) else { throw InvalidJSON(offset: start, reason: "'\(text)' is not a number") }
            if let integer = Int64(text) {
                BinaryPayload.appendInteger(integer, to: &out)
            } else if let unsigned = UInt64(text) {
                BinaryPayload.appendUnsigned(unsigned, to: &out)
            } else if let double = Double(text), double.isFinite, BinaryPayload.jsonText(of: double) == text {
                BinaryPayload.appendDouble(double, to: &out)
            } else if Double(text)?.isFinite == true {
                // A number a double would round, such as 0.10 or a long decimal: kept as its text.
                out.append(BinaryPayload.decimal)
                BinaryPayload.appendVarint(UInt64(text.utf8.count), to: &out)
                out.append(contentsOf: text.utf8)
            } else {
                throw InvalidJSON(offset: start, reason: "'\(text)' is out of range")
            }
        }

        mutating func string() throws(InvalidJSON) -> String {
            offset += 1
            var scalars: [UInt8] = []
            while true {
                guard offset < bytes.count else { throw malformed("a string is not closed") }
                let byte = bytes[offset]
                offset += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = String(validating: scalars, as: UTF8.self) else { throw malformed("a string is not valid UTF-8") }
                    return text
                case UInt8(ascii: "\\"):
                    guard offset < bytes.count else { throw malformed("a string is not closed") }
                    let escape = bytes[offset]
                    offset += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                    case UInt8(ascii: "n"): scalars.append(0x0A)
                    case UInt8(ascii: "r"): scalars.append(0x0D)
                    case UInt8(ascii: "t"): scalars.append(0x09)
                    case UInt8(ascii: "b"): scalars.append(0x08)
                    case UInt8(ascii: "f"): scalars.append(0x0C)
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800..<0xDC00).contains(code) {
                            try expect("\\u")
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw malformed("a surrogate pair is broken") }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw malformed("an escape is not a character") }
                        scalars.append(contentsOf: String(Character(scalar)).utf8)
                    default: throw malformed("an unknown escape")
                    }
                case 0x00...0x1F: throw malformed("a control character inside a string")
                default: scalars.append(byte)
                }
            }
        }

        mutating func hex4() throws(InvalidJSON) -> UInt32 {
            guard bytes.count - offset >= 4 else { throw malformed("an escape is cut short") }
            let digits = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 4)])
            let text = String(decoding: digits, as: UTF8.self)
            // Exactly four digits: `UInt32(_:radix:)` alone would also take a sign (`\u+00e`).
            guard digits.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) }),
                  let code = UInt32(text, radix: 16) else { throw malformed("'\\u\(text)' is not an escape") }
            offset += 4
            return code
        }
    }
}

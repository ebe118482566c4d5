/// Writing JSON text: the one place a number and a string are spelled, for the binary form's rendering
/// (`BinaryPayload.json`), its conversion from JSON (which keeps a double only when it spells back the same) and
/// TimeTravel's values. The inspector's terminal-safe escapes use its `\u` escape.
package enum JSONText {
    /// A finite double as JSON: an integer below 10^15 without a fraction, otherwise Swift's shortest form that
    /// reads back as the same double.
    package static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// Appends the valid UTF-8 `utf8` as a JSON string, quotes included: `"`, `\` and the C0 control characters
    /// escaped (`\n`, `\r` and `\t` by letter, the others as `\u00XX`), everything else as it is.
    package static func appendString(_ utf8: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var run = 0
        for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[run..<index]))
            run = index + 1
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            default: appendEscape(UInt16(byte), to: &out)
            }
        }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[run...]))
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `string` as a JSON string, quotes included (``appendString(_:to:)-(UnsafeRawBufferPointer,_)``).
    package static func appendString(_ string: String, to out: inout [UInt8]) {
        var string = string
        string.withUTF8 { appendString(UnsafeRawBufferPointer($0), to: &out) }
    }

    /// `string` as a JSON string, quotes included (``appendString(_:to:)-(UnsafeRawBufferPointer,_)``).
    package static func quoted(_ string: String) -> String {
        var out: [UInt8] = []
        appendString(string, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `\uXXXX` for the UTF-16 unit `unit`, in lowercase hexadecimal.
    package static func appendEscape(_ unit: UInt16, to out: inout [UInt8]) {
        out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u")])
        for shift in stride(from: 12, through: 0, by: -4) {
            let digit = UInt8((unit >> UInt16(shift)) & 0xF)
            out.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
        }
    }
}

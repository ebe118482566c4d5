import Foundation

/// Checks a UTF-8 JSON document and copies it without whitespace, in one pass and without building a tree: the
/// fast path for writing millions of stored payloads as lines (`reactorlog export`). The copy keeps every token
/// exactly as stored (key order, number spelling, escapes); only whitespace between tokens is dropped, so the
/// result is one line.
enum JSONCompactor {
    /// The compact text of `data`, or `nil` when it is not one valid JSON document with finite numbers, nested at
    /// most ``JSONParser/maxDepth`` deep.
    static func compact(_ data: Data) -> [UInt8]? {
        var output: [UInt8] = []
        return append(data, to: &output) ? output : nil
    }

    /// Appends the compact text of `data` to `output` and returns `true`, or leaves `output` as it was and returns
    /// `false`.
    static func append(_ data: Data, to output: inout [UInt8]) -> Bool {
        data.withUnsafeBytes { append($0, to: &output) }
    }

    /// ``append(_:to:)-(Data,_)`` for bytes in memory (such as a record read in place).
    static func append(_ raw: UnsafeRawBufferPointer, to output: inout [UInt8]) -> Bool {
        let start = output.count
        var copier = Copier(input: raw.bindMemory(to: UInt8.self), output: output)
        output = []   // the copier holds the only reference, so it appends in place
        let valid = copier.value(depth: 0) && { copier.skipWhitespace(); return copier.index == copier.input.count }()
        output = copier.output
        if !valid { output.removeSubrange(start...) }
        return valid
    }

    private struct Copier {
        let input: UnsafeBufferPointer<UInt8>
        var index = 0
        var output: [UInt8]

        init(input: UnsafeBufferPointer<UInt8>, output: [UInt8]) {
            self.input = input
            self.output = output
        }

        mutating func skipWhitespace() {
            while index < input.count {
                switch input[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) -> Bool {
            skipWhitespace()
            guard index < input.count, depth <= JSONParser.maxDepth else { return false }
            switch input[index] {
            case UInt8(ascii: "{"): return container(close: UInt8(ascii: "}"), keyed: true, depth: depth)
            case UInt8(ascii: "["): return container(close: UInt8(ascii: "]"), keyed: false, depth: depth)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        mutating func container(close: UInt8, keyed: Bool, depth: Int) -> Bool {
            output.append(input[index])
            index += 1
            skipWhitespace()
            if index < input.count, input[index] == close {
                output.append(close)
                index += 1
                return true
            }
            while true {
                if keyed {
                    skipWhitespace()
                    guard index < input.count, input[index] == UInt8(ascii: "\""), string() else { return false }
                    skipWhitespace()
                    guard index < input.count, input[index] == UInt8(ascii: ":") else { return false }
                    output.append(UInt8(ascii: ":"))
                    index += 1
                }
                guard value(depth: depth + 1) else { return false }
                skipWhitespace()
                guard index < input.count else { return false }
                let separator = input[index]
                index += 1
                output.append(separator)
                if separator == close { return true }
                guard separator == UInt8(ascii: ",") else { return false }
            }
        }

        /// Copies a string as written, except `\/`, which becomes `/` (the same character; Foundation's encoder
        /// escapes slashes).
        mutating func string() -> Bool {
            let start = index
            var isASCII = true
            output.append(input[index])
            index += 1
            while index < input.count {
                let byte = input[index]
                switch byte {
                case UInt8(ascii: "\""):
                    output.append(byte)
                    index += 1
                    // Strings must be UTF-8; copied as they are (the caller escapes what a terminal would act on).
                    return isASCII || String(validating: UnsafeBufferPointer(rebasing: input[start..<index]), as: UTF8.self) != nil
                case UInt8(ascii: "\\"):
                    guard index + 1 < input.count else { return false }
                    let escaped = input[index + 1]
                    switch escaped {
                    case UInt8(ascii: "/"):
                        output.append(escaped)
                        index += 2
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        output.append(byte)
                        output.append(escaped)
                        index += 2
                    case UInt8(ascii: "u"):
                        // A surrogate must come as a pair, high then low, as the parser requires.
                        guard let unit = hexUnit(at: index + 2) else { return false }
                        var length = 6
                        if (0xD800...0xDBFF).contains(unit) {
                            guard index + 7 < input.count, input[index + 6] == UInt8(ascii: "\\"), input[index + 7] == UInt8(ascii: "u"),
                                  let low = hexUnit(at: index + 8), (0xDC00...0xDFFF).contains(low) else { return false }
                            length = 12
                        } else if (0xDC00...0xDFFF).contains(unit) {
                            return false
                        }
                        output.append(contentsOf: UnsafeBufferPointer(rebasing: input[index..<(index + length)]))
                        index += length
                    default:
                        return false
                    }
                case 0..<0x20:
                    return false
                default:
                    if byte >= 0x80 { isASCII = false }
                    output.append(byte)
                    index += 1
                }
            }
            return false
        }

        /// The four hexadecimal digits at `offset` as a UTF-16 unit.
        func hexUnit(at offset: Int) -> UInt16? {
            guard offset + 3 < input.count else { return nil }
            var unit: UInt16 = 0
            for byte in input[offset...(offset + 3)] {
                guard byte.isHexDigit else { return nil }
                unit = unit << 4 | UInt16(byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : (byte | 0x20) - UInt8(ascii: "a") + 10)
            }
            return unit
        }

        mutating func literal(_ word: String) -> Bool {
            let letters = Array(word.utf8), count = letters.count
            guard index + count <= input.count else { return false }
            for offset in 0..<count where input[index + offset] != letters[offset] { return false }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: input[index..<(index + count)]))
            index += count
            return true
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, and finite as a double.
        mutating func number() -> Bool {
            let start = index
            if index < input.count, input[index] == UInt8(ascii: "-") { index += 1 }
            guard index < input.count, input[index].isDigit else { return false }
            if input[index] == UInt8(ascii: "0") { index += 1 } else { skipDigits() }
            var isIntegral = true
            if index < input.count, input[index] == UInt8(ascii: ".") {
                index += 1
                guard index < input.count, input[index].isDigit else { return false }
                skipDigits()
                isIntegral = false
            }
            if index < input.count, input[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if index < input.count, input[index] == UInt8(ascii: "+") || input[index] == UInt8(ascii: "-") { index += 1 }
                guard index < input.count, input[index].isDigit else { return false }
                skipDigits()
                isIntegral = false
            }
            let text = UnsafeBufferPointer(rebasing: input[start..<index])
            // Short integers are always finite; anything else must parse to a finite double.
            if !(isIntegral && text.count <= 18) {
                guard let number = Double(String(decoding: text, as: UTF8.self)), number.isFinite else { return false }
            }
            output.append(contentsOf: text)
            return true
        }

        mutating func skipDigits() {
            while index < input.count, input[index].isDigit { index += 1 }
        }
    }
}

private extension UInt8 {
    var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    var isHexDigit: Bool { isDigit || (self | 0x20 >= UInt8(ascii: "a") && self | 0x20 <= UInt8(ascii: "f")) }
}

/// The tokens of JSON text (RFC 8259), checked as they are read: the one place the log's readers of JSON learn what
/// a string, a number or a literal is. `BinaryPayload.fromJSON` (JSON into the binary form), TimeTravel's parser (JSON
/// into values), its compactor (export's fast path, which copies tokens as written) and `verify`'s check of a JSON
/// payload (``isDocument(_:)``) each build their own output and take every token and container from here, so all
/// four accept exactly the same text and word a refusal alike.
///
/// A string's token is its bytes as written, checked: every escape known and complete (a `\u` escape four
/// hexadecimal digits, a high surrogate followed by its low half, never a lone half), no control character, valid
/// UTF-8. A number's token is its text, checked against the grammar and finite as a double.
@usableFromInline package struct JSONScanner {
    /// Why the text is not JSON, and the byte where it stops being so.
    @usableFromInline package struct Failure: Error {
        /// The offset of the byte in question.
        package let offset: Int
        /// What is wrong there, as a phrase: "an unknown escape".
        package let reason: String

        /// A failure at `offset`, for `reason`.
        package init(offset: Int, reason: String) {
            self.offset = offset
            self.reason = reason
        }
    }

    /// A string as written between its quotes.
    @usableFromInline package struct StringToken {
        /// Where its contents (without the quotes) lie in the text.
        package let contents: Range<Int>
        /// Whether it has a backslash escape (otherwise its contents are its UTF-8, as they are).
        package let hasEscapes: Bool
    }

    /// The text being read.
    @usableFromInline package let bytes: UnsafeRawBufferPointer
    /// The offset of the next byte to read.
    @usableFromInline package var offset: Int

    /// A scanner at the start of `bytes`.
    package init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        offset = 0
    }

    /// Whether every byte is read.
    @inlinable package var isAtEnd: Bool { offset >= bytes.count }

    /// The next byte, not read, or `nil` at the end.
    @inlinable package var next: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    /// A failure at the current offset.
    @usableFromInline package func failure(_ reason: String) -> Failure {
        Failure(offset: offset, reason: reason)
    }

    /// Steps over spaces, tabs and line breaks.
    @inlinable package mutating func skipSpace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    /// What a value is, from its first byte.
    @usableFromInline package enum Value {
        /// An object: read it with ``members(_:)``.
        case object
        /// An array: read it with ``elements(_:)``.
        case array
        /// A string: read it with ``string()``.
        case string
        /// A number: read it with ``number()``.
        case number
        /// `true`, `false` or `null`, already read.
        case `true`, `false`, null
    }

    /// Starts reading a value `depth` containers deep: refuses one nested deeper than the binary form holds, steps over
    /// space, and says what the value is by its first byte, reading it whole when it is a literal and otherwise not at
    /// all. Every reader starts each value here, so all of them refuse the same nesting, the same first bytes and the
    /// same end of text, in the same words.
    @inlinable package mutating func startValue(depth: Int) throws(Failure) -> Value {
        guard depth < BinaryPayload.maximumDepth else {
            throw failure("nested more than \(BinaryPayload.maximumDepth) levels deep")
        }
        skipSpace()
        guard let first = next else { throw failure("the text ends where a value should be") }
        switch first {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"): try literal("true"); return .true
        case UInt8(ascii: "f"): try literal("false"); return .false
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: throw failure("unexpected character")
        }
    }

    /// Reads `byte`, or fails saying `expected` was expected.
    @usableFromInline package mutating func read(_ byte: UInt8, expected: @autoclosure () -> String) throws(Failure) {
        guard offset < bytes.count, bytes[offset] == byte else { throw failure("expected \(expected())") }
        offset += 1
    }

    /// Reads an array, from its `[` (the next byte) through its `]`, calling `element` for each element with its
    /// index, the scanner at the element's first byte.
    @inlinable package mutating func elements(_ element: (inout JSONScanner, Int) throws(Failure) -> Void) throws(Failure) {
        try container(closedBy: UInt8(ascii: "]"), element)
    }

    /// Reads an object, from its `{` (the next byte) through its `}`, calling `member` for each member with its key
    /// and index, the scanner at the first byte of its value.
    @inlinable package mutating func members(_ member: (inout JSONScanner, StringToken, Int) throws(Failure) -> Void) throws(Failure) {
        try container(closedBy: UInt8(ascii: "}")) { (scanner: inout JSONScanner, index: Int) throws(Failure) in
            guard scanner.next == UInt8(ascii: "\"") else { throw scanner.failure("expected a key") }
            let key = try scanner.string()
            scanner.skipSpace()
            try scanner.read(UInt8(ascii: ":"), expected: "':'")
            scanner.skipSpace()
            try member(&scanner, key, index)
        }
    }

    /// Reads a container through `close`, from its opening bracket (the next byte), calling `element` for each.
    @inlinable mutating func container(
        closedBy close: UInt8, _ element: (inout JSONScanner, Int) throws(Failure) -> Void
    ) throws(Failure) {
        offset += 1
        skipSpace()
        if next == close {
            offset += 1
            return
        }
        var index = 0
        while true {
            skipSpace()
            try element(&self, index)
            skipSpace()
            guard let separator = next else { throw failure("the text ends inside a container") }
            guard separator == UInt8(ascii: ",") || separator == close else {
                throw failure("expected ',' or '\(Character(Unicode.Scalar(close)))'")
            }
            offset += 1
            if separator == close { return }
            index += 1
        }
    }

    /// Reads `word` (`true`, `false` or `null`).
    @usableFromInline mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - offset >= count,
              bytes[offset..<(offset + count)].elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: count)) else {
            throw failure("expected \(word)")
        }
        offset += count
    }

    /// Reads a number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, finite as a double. Returns where its
    /// text lies.
    package mutating func number() throws(Failure) -> Range<Int> {
        let start = offset
        if next == UInt8(ascii: "-") { offset += 1 }
        guard let first = next, first.isDigit else { throw failure("expected a digit") }
        offset += 1
        if first == UInt8(ascii: "0") {
            if let digit = next, digit.isDigit { throw Failure(offset: start, reason: "a number with a leading zero") }
        } else {
            skipDigits()
        }
        var isIntegral = true
        if next == UInt8(ascii: ".") {
            offset += 1
            guard let digit = next, digit.isDigit else { throw failure("expected a digit after '.'") }
            skipDigits()
            isIntegral = false
        }
        if let e = next, e | 0x20 == UInt8(ascii: "e") {
            offset += 1
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { offset += 1 }
            guard let digit = next, digit.isDigit else { throw failure("expected a digit in the exponent") }
            skipDigits()
            isIntegral = false
        }
        // Integers of up to 18 digits are always finite; anything else must parse to a finite double.
        if !(isIntegral && offset - start <= 18) {
            guard let value = Double(text(start..<offset)), value.isFinite else {
                throw Failure(offset: start, reason: "the number is out of range")
            }
        }
        return start..<offset
    }

    /// Whether `bytes` is one JSON document (space around it allowed) that the log's readers of JSON text accept:
    /// its tokens as this scanner reads them, its containers nested at most as deep as the binary form holds.
    package static func isDocument(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var scanner = JSONScanner(bytes)
        do throws(Failure) {
            try scanner.skipValue(depth: 0)
            scanner.skipSpace()
            return scanner.isAtEnd
        } catch {
            return false
        }
    }

    /// Reads a value and everything in it, `depth` containers deep.
    private mutating func skipValue(depth: Int) throws(Failure) {
        switch try startValue(depth: depth) {
        case .object: try members { (scanner: inout JSONScanner, _: StringToken, _: Int) throws(Failure) in try scanner.skipValue(depth: depth + 1) }
        case .array: try elements { (scanner: inout JSONScanner, _: Int) throws(Failure) in try scanner.skipValue(depth: depth + 1) }
        case .string: _ = try string()
        case .number: _ = try number()
        case .true, .false, .null: break
        }
    }

    /// Whether `text` is one JSON number, finite as a double, and nothing else.
    package static func isNumber(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            var scanner = JSONScanner(UnsafeRawBufferPointer(utf8))
            return (try? scanner.number()) != nil && scanner.isAtEnd
        }
    }

    /// Reads a string, from its opening quote (the next byte) through its closing one.
    @usableFromInline package mutating func string() throws(Failure) -> StringToken {
        guard next == UInt8(ascii: "\"") else { throw failure("expected a string") }
        offset += 1
        let start = offset
        var hasEscapes = false, isASCII = true
        while true {
            guard offset < bytes.count else { throw failure("the text ends inside a string") }
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                let contents = start..<offset
                offset += 1
                // Escapes are ASCII, so the text as written is valid UTF-8 exactly when what it stands for is.
                guard isASCII || String(validating: UnsafeRawBufferPointer(rebasing: bytes[contents]), as: UTF8.self) != nil else {
                    throw Failure(offset: start, reason: "a string is not valid UTF-8")
                }
                return StringToken(contents: contents, hasEscapes: hasEscapes)
            case UInt8(ascii: "\\"):
                hasEscapes = true
                try escape()
            case 0x00..<0x20:
                throw failure("a control character inside a string")
            default:
                if byte >= 0x80 { isASCII = false }
                offset += 1
            }
        }
    }

    /// Reads one escape, from its backslash.
    private mutating func escape() throws(Failure) {
        guard bytes.count - offset >= 2 else { throw failure("the text ends inside an escape") }
        switch bytes[offset + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            offset += 2
        case UInt8(ascii: "u"):
            let unit = try hexUnit(at: offset + 2)
            if (0xD800..<0xDC00).contains(unit) {
                guard bytes.count - offset >= 12, bytes[offset + 6] == UInt8(ascii: "\\"), bytes[offset + 7] == UInt8(ascii: "u"),
                      (0xDC00..<0xE000).contains(try hexUnit(at: offset + 8)) else {
                    throw failure("a high surrogate without its low half")
                }
                offset += 12
            } else if (0xDC00..<0xE000).contains(unit) {
                throw failure("a lone low surrogate")
            } else {
                offset += 6
            }
        default:
            throw failure("an unknown escape")
        }
    }

    /// The four hexadecimal digits at `position` as a UTF-16 unit (exactly four: no sign, as `UInt16(_:radix:)` takes).
    private func hexUnit(at position: Int) throws(Failure) -> UInt16 {
        guard bytes.count - position >= 4 else { throw failure("expected four hexadecimal digits") }
        var unit: UInt16 = 0
        for byte in bytes[position..<(position + 4)] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): digit = (byte | 0x20) - UInt8(ascii: "a") + 10
            default: throw failure("expected four hexadecimal digits")
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    /// The text a read string stands for.
    package func decoded(_ token: StringToken) -> String {
        let raw = UnsafeRawBufferPointer(rebasing: bytes[token.contents])
        guard token.hasEscapes else { return String(decoding: raw, as: UTF8.self) }
        var utf8: [UInt8] = []
        utf8.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                index += 1
                continue
            }
            let letter = raw[index + 1]
            index += 2
            switch letter {
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                // Checked when read: four digits, and a high surrogate followed by its low half.
                var scalar = UInt32(Self.hexValue(raw, at: index))
                index += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (UInt32(Self.hexValue(raw, at: index + 2)) - 0xDC00)
                    index += 6
                }
                utf8.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
            default: utf8.append(letter)
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    private static func hexValue(_ raw: UnsafeRawBufferPointer, at position: Int) -> UInt16 {
        raw[position..<(position + 4)].reduce(0) { unit, byte in
            unit << 4 | UInt16(byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : (byte | 0x20) - UInt8(ascii: "a") + 10)
        }
    }

    /// The bytes in `range` as text.
    package func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    private mutating func skipDigits() {
        while let byte = next, byte.isDigit { offset += 1 }
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
}

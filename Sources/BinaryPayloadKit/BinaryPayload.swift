import Foundation

/// The compact binary payload format (codec byte 2, docs/FORMAT.md, "The binary codec"): JSON's data model, one tag
/// byte per value, lengths as LEB128 varints, containers closed by an end mark instead of counted, so that an
/// encoder streams. Readable without the Swift types: `json(_:)` renders any payload as JSON text.
///
///     0x00 null        0x03 integer: zigzag varint      0x06 string: varint length, UTF-8
///     0x01 false       0x04 unsigned above Int64.max    0x07 array: values, then 0x0F
///     0x02 true        0x05 double: 8 bytes LE, finite  0x08 object: members, then a key length byte 0
///                                                       0x09 decimal number: varint length, its JSON text
///
/// An object member is its key (varint of the key's byte length + 1, then UTF-8) followed by its value.
public enum BinaryPayload {
    @usableFromInline package static let null: UInt8 = 0x00
    @usableFromInline package static let `false`: UInt8 = 0x01
    @usableFromInline package static let `true`: UInt8 = 0x02
    @usableFromInline package static let integer: UInt8 = 0x03
    @usableFromInline package static let unsigned: UInt8 = 0x04
    @usableFromInline package static let double: UInt8 = 0x05
    @usableFromInline package static let string: UInt8 = 0x06
    @usableFromInline package static let array: UInt8 = 0x07
    @usableFromInline package static let object: UInt8 = 0x08
    @usableFromInline package static let decimal: UInt8 = 0x09
    @usableFromInline package static let arrayEnd: UInt8 = 0x0F
    /// Containers nest at most this deep, so that a hostile payload cannot exhaust the stack of a reader.
    @usableFromInline package static let maximumDepth = 512

    /// One step of a path into a value's JSON form (EventLogKit's `BinaryLogCodec.encode(_:keepingOnly:)`).
    public enum PathStep: Hashable, Sendable {
        /// An object member, by key.
        case key(String)
        /// An array element, by index.
        case index(Int)
        /// What `count` names in a path: an object's member `count` where it has one, and otherwise the size of
        /// the object or array. So an object keeps every key, with a null for each value but `count`'s, and an
        /// array keeps a null for every element: the size stays, what lies under the members does not.
        case count
    }

    /// A payload that is not a well-formed binary value; `offset` is where reading stopped.
    public struct Malformed: Error, Sendable, CustomStringConvertible {
        /// The byte offset in the payload.
        public let offset: Int
        /// What is wrong there.
        public let reason: String

        /// A sentence.
        public var description: String { "The binary payload is malformed at byte \(offset): \(reason)." }
    }

    /// JSON text that ``BinaryPayload`` cannot take as a value: not valid JSON (RFC 8259), or a number no payload holds.
    public struct InvalidJSON: Error, Sendable, CustomStringConvertible {
        /// The byte offset in the text.
        public let offset: Int
        /// What is wrong there.
        public let reason: String

        /// A sentence.
        public var description: String { "The JSON text is not valid at byte \(offset): \(reason)." }
    }

    /// What a tag holds, for messages.
    @usableFromInline static func describe(_ tag: UInt8) -> String {
        switch tag {
        case BinaryPayload.null: "null"
        case BinaryPayload.false, BinaryPayload.true: "a Boolean"
        case BinaryPayload.integer, BinaryPayload.unsigned, BinaryPayload.double, BinaryPayload.decimal: "a number"
        case BinaryPayload.string: "a string"
        case BinaryPayload.array: "an array"
        case BinaryPayload.object: "an object"
        default: "tag 0x\(String(tag, radix: 16))"
        }
    }

    // MARK: Writing

    // Inlinable, so that hand-written conformances write through them in the app's module (`BinaryPayloadWriter`).

    @inlinable static func appendInteger<Sink: ByteSink & ~Copyable>(_ value: Int64, to bytes: inout Sink) {
        bytes.append(integer)
        Varint.append(UInt64(bitPattern: (value << 1) ^ (value >> 63)), to: &bytes)
    }

    /// An integer up to `Int64.max`, as the binary codec writes every number, otherwise an unsigned one.
    @inlinable static func appendUnsigned<Sink: ByteSink & ~Copyable>(_ value: UInt64, to bytes: inout Sink) {
        if value <= UInt64(Int64.max) { return appendInteger(Int64(value), to: &bytes) }
        bytes.append(unsigned)
        Varint.append(value, to: &bytes)
    }

    @inlinable static func appendDouble<Sink: ByteSink & ~Copyable>(_ value: Double, to bytes: inout Sink) {
        bytes.append(double)
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append($0) }
    }

    @inlinable static func appendString<Sink: ByteSink & ~Copyable>(_ value: String, to bytes: inout Sink) {
        bytes.append(string)
        appendText(value, lengthBias: 0, to: &bytes)
    }

    /// A number kept as its JSON text, `text`, because a double would round it.
    static func appendDecimal<Sink: ByteSink & ~Copyable>(_ text: String, to bytes: inout Sink) {
        bytes.append(decimal)
        appendText(text, lengthBias: 0, to: &bytes)
    }

    @inlinable static func appendKey<Sink: ByteSink & ~Copyable>(_ key: String, to bytes: inout Sink) {
        appendText(key, lengthBias: 1, to: &bytes)
    }

    /// The length of `text` in UTF-8 plus `lengthBias`, then its bytes: read in place, where `String.withUTF8` would
    /// need a copy of the string to call on, and count a reference to it. The length is read inside the contiguous
    /// bytes' closure: counting first, then appending, cost the writer thread 4% more instructions.
    @inlinable @inline(__always) static func appendText<Sink: ByteSink & ~Copyable>(_ text: String, lengthBias: UInt64, to bytes: inout Sink) {
        let appended: Void? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            let length = UInt64(utf8.count) + lengthBias
            if length < 0x80 { return bytes.append(UInt8(length), then: UnsafeRawBufferPointer(utf8)) }
            Varint.append(length, to: &bytes)
            bytes.append(UnsafeRawBufferPointer(utf8))
        }
        if appended == nil {
            Varint.append(UInt64(text.utf8.count) + lengthBias, to: &bytes)
            for byte in text.utf8 { bytes.append(byte) }
        }
    }

    // MARK: Reading

    /// Reads values of a payload, checking every bound.
    @usableFromInline package struct Reader {
        @usableFromInline package let bytes: UnsafeRawBufferPointer
        @usableFromInline package var offset: Int

        @usableFromInline package init(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0) {
            self.bytes = bytes
            self.offset = offset
        }

        @usableFromInline package var isAtEnd: Bool { offset >= bytes.count }

        @usableFromInline package func malformed(_ reason: String) -> Malformed { Malformed(offset: offset, reason: reason) }

        // The reads below are inlinable, for hand-written conformances read value after value through them; what
        // they throw is made out of line.

        @inlinable package mutating func byte() throws(Malformed) -> UInt8 {
            guard offset < bytes.count else { throw endsInsideValue() }
            defer { offset += 1 }
            return bytes[offset]
        }

        @inlinable package mutating func varint() throws(Malformed) -> UInt64 {
            guard let (value, next) = Varint.read(bytes, at: offset) else { throw badVarint() }
            offset = next
            return value
        }

        @inlinable package mutating func length() throws(Malformed) -> Int {
            let length = try varint()
            guard length <= UInt64(bytes.count - offset) else { throw malformed("a length runs past the payload's end") }
            return Int(length)
        }

        @usableFromInline func endsInsideValue() -> Malformed { malformed("the payload ends inside a value") }

        @usableFromInline func badVarint() -> Malformed {
            offset < bytes.count ? malformed("a varint is longer than 64 bits, or cut short") : endsInsideValue()
        }

        @usableFromInline package mutating func integer() throws(Malformed) -> Int64 {
            let zigzag = try varint()
            return Int64(bitPattern: (zigzag >> 1) ^ (0 &- (zigzag & 1)))
        }

        @usableFromInline package mutating func double() throws(Malformed) -> Double {
            guard bytes.count - offset >= 8 else { throw malformed("a double runs past the payload's end") }
            defer { offset += 8 }
            let value = Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            guard value.isFinite else { throw malformed("a double is not finite") }
            return value
        }

        /// The UTF-8 bytes of a string or key of `length` bytes.
        @usableFromInline package mutating func utf8(_ length: Int) throws(Malformed) -> UnsafeRawBufferPointer {
            defer { offset += length }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
        }

        @usableFromInline package mutating func text(_ length: Int) throws(Malformed) -> String {
            let start = offset
            let raw = try utf8(length)
            guard let text = String(validUTF8: raw) else {
                throw Malformed(offset: start, reason: "a string is not valid UTF-8")
            }
            return text
        }

        /// An object member's key length, or `nil` at the object's end mark.
        @inlinable package mutating func keyLength() throws(Malformed) -> Int? {
            let length = try varint()
            guard length > 0 else { return nil }
            guard length - 1 <= UInt64(bytes.count - offset) else { throw malformed("a key runs past the payload's end") }
            return Int(length - 1)
        }

        /// Throws when a value `depth` containers deep would pass the depth limit: every walk over a payload checks
        /// this before each value, so that hostile nesting cannot exhaust the stack.
        @usableFromInline package func checkDepth(_ depth: Int) throws(Malformed) {
            guard depth < BinaryPayload.maximumDepth else { throw malformed("containers nest deeper than \(BinaryPayload.maximumDepth)") }
        }

        /// Whether the array being read ends here, stepping over its end mark if so; throws when the payload ends first.
        @usableFromInline package mutating func arrayEnds() throws(Malformed) -> Bool {
            guard offset < bytes.count else { throw malformed("an array has no end mark") }
            guard bytes[offset] == BinaryPayload.arrayEnd else { return false }
            offset += 1
            return true
        }

        /// Steps over the elements of the array being read, `depth` containers deep, and returns how many it
        /// stepped over: all of them and the end mark, or the first `limit` when there are more.
        @usableFromInline package mutating func skipElements(upTo limit: Int = .max, depth: Int) throws(Malformed) -> Int {
            var count = 0
            while count < limit, try !arrayEnds() {
                try skipValue(depth: depth)
                count += 1
            }
            return count
        }

        /// A decimal number's text, after its tag, checked against JSON's number grammar.
        @usableFromInline package mutating func decimalText() throws(Malformed) -> String {
            let start = offset
            let text = try text(try length())
            // JSON's grammar and a double's finite range, as every number a reader here holds (a `Decimal`, the one type
            // written as a decimal number, always is): a renderer that printed `1e99999` would print JSON the readers refuse.
            guard JSONScanner.isNumber(text) else {
                throw Malformed(offset: start, reason: "a decimal number is not a JSON number within a double's range")
            }
            return text
        }

        /// The error for `tag`, just read, which starts no value; it points at the tag.
        package mutating func notAValue(_ tag: UInt8) -> Malformed {
            offset -= 1
            return malformed("tag 0x\(String(tag, radix: 16)) is not a value")
        }

        /// Steps over one value (checking its structure, not its text), `depth` containers deep.
        @usableFromInline package mutating func skipValue(depth: Int = 0) throws(Malformed) {
            try checkDepth(depth)
            let tag = try byte()
            switch tag {
            case BinaryPayload.null, BinaryPayload.false, BinaryPayload.true: return
            case BinaryPayload.integer, BinaryPayload.unsigned: _ = try varint()
            case BinaryPayload.double: _ = try double()
            case BinaryPayload.string, BinaryPayload.decimal: offset += try length()
            case BinaryPayload.array:
                _ = try skipElements(depth: depth + 1)
            case BinaryPayload.object:
                while let key = try keyLength() {
                    offset += key
                    try skipValue(depth: depth + 1)
                }
            default:
                throw notAValue(tag)
            }
        }
    }

    // MARK: Rendering

    /// `payload` as JSON text: objects keep their members' order, numbers their value, strings their text.
    /// Throws ``Malformed`` for anything that is not exactly one well-formed value.
    public static func json(_ payload: UnsafeRawBufferPointer) throws(Malformed) -> [UInt8] {
        var reader = Reader(payload)
        var out: [UInt8] = []
        out.reserveCapacity(payload.count * 2)
        try render(&reader, into: &out, depth: 0)
        guard reader.isAtEnd else { throw reader.malformed("bytes follow the payload's value") }
        return out
    }

    /// `json(_:)` of `payload`.
    public static func json(_ payload: Data) throws(Malformed) -> Data {
        let rendered = payload.withUnsafeBytes { bytes in Result { () throws(Malformed) in try json(bytes) } }
        return Data(try rendered.get())
    }

    /// The keys of the object inside a payload of one object member, in their recorded order: for an enum case with
    /// associated values as `Codable` writes it (`{"move":{"to":2,"from":1}}`), the case's labels as declared, which
    /// `JSONValue`'s dictionary does not keep. `nil` for a payload of any other shape, or not well formed there.
    package static func caseLabels(_ payload: UnsafeRawBufferPointer) -> [String]? {
        var reader = Reader(payload)
        do {
            guard try reader.byte() == object, let name = try reader.keyLength() else { return nil }
            reader.offset += name
            guard try reader.byte() == object else { return nil }
            var labels: [String] = []
            while let length = try reader.keyLength() {
                labels.append(try reader.text(length))
                try reader.skipValue(depth: 2)
            }
            return labels
        } catch {
            return nil
        }
    }

    /// Whether `payload` is exactly one well-formed value with valid UTF-8 text.
    public static func isWellFormed(_ payload: UnsafeRawBufferPointer) -> Bool {
        (try? json(payload)) != nil
    }

    private static func render(_ reader: inout Reader, into out: inout [UInt8], depth: Int) throws(Malformed) {
        try reader.checkDepth(depth)
        let tag = try reader.byte()
        switch tag {
        case null: out.append(contentsOf: "null".utf8)
        case `false`: out.append(contentsOf: "false".utf8)
        case `true`: out.append(contentsOf: "true".utf8)
        case integer: out.append(contentsOf: String(try reader.integer()).utf8)
        case unsigned: out.append(contentsOf: String(try reader.varint()).utf8)
        case double: out.append(contentsOf: JSONText.number(try reader.double()).utf8)
        case string: try renderString(try reader.length(), &reader, into: &out)
        case decimal: out.append(contentsOf: try reader.decimalText().utf8)
        case array:
            out.append(UInt8(ascii: "["))
            var first = true
            while try !reader.arrayEnds() {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                try render(&reader, into: &out, depth: depth + 1)
            }
            out.append(UInt8(ascii: "]"))
        case object:
            out.append(UInt8(ascii: "{"))
            var first = true
            while let key = try reader.keyLength() {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                try renderString(key, &reader, into: &out)
                out.append(UInt8(ascii: ":"))
                try render(&reader, into: &out, depth: depth + 1)
            }
            out.append(UInt8(ascii: "}"))
        default:
            throw reader.notAValue(tag)
        }
    }

    private static func renderString(_ length: Int, _ reader: inout Reader, into out: inout [UInt8]) throws(Malformed) {
        let start = reader.offset
        let bytes = try reader.utf8(length)
        guard String.isValidUTF8(bytes) else {
            throw Malformed(offset: start, reason: "a string is not valid UTF-8")
        }
        JSONText.appendString(bytes, to: &out)
    }
}

import Foundation

/// Reads one value of the binary payload format (``BinaryPayload``), for a ``BinaryPayloadDecodable``
/// conformance: scalars with `decode(_:)`, objects with ``decodeObject(_:)``, arrays with ``decodeArray(_:)``.
///
/// The bytes stay where they are (in the log's map, during replay) and every read is bounds-checked: damaged or
/// hostile bytes throw `DecodingError`, as the `Codable` path does, and never trap. Numbers convert as there: an
/// integer field accepts any number that it holds exactly; a `Double` field accepts integers.
///
/// The reader is not copyable, so that it cannot be kept past the decode it serves: the bytes it reads are valid
/// only until then. A ``Key`` is a view of those bytes too, for the closure it is handed to.
public struct BinaryPayloadReader: ~Copyable {
    @usableFromInline var reader: BinaryPayload.Reader
    /// How many containers deep the next value is.
    @usableFromInline var depth = 0

    /// A reader of the value at the start of `bytes`.
    @usableFromInline init(_ bytes: UnsafeRawBufferPointer) {
        reader = BinaryPayload.Reader(bytes)
    }

    /// Whether the whole payload has been read.
    @usableFromInline var isAtEnd: Bool { reader.isAtEnd }

    // MARK: Scalars

    /// Reads a null and returns `true` when the next value is one; otherwise returns `false` and reads nothing.
    @inlinable public mutating func decodeNil() throws -> Bool {
        guard try peek() == BinaryPayload.null else { return false }
        reader.offset += 1
        return true
    }

    /// Reads a Boolean.
    @inlinable public mutating func decode(_ type: Bool.Type) throws -> Bool {
        switch try peek() {
        case BinaryPayload.true: reader.offset += 1; return true
        case BinaryPayload.false: reader.offset += 1; return false
        case let tag: throw mismatch(type, tag)
        }
    }

    /// Reads a string.
    @inlinable public mutating func decode(_ type: String.Type) throws -> String {
        let tag = try peek()
        guard tag == BinaryPayload.string else { throw mismatch(type, tag) }
        reader.offset += 1
        return try malformedAsDecodingError { reader throws(BinaryPayload.Malformed) in try reader.text(try reader.length()) }
    }

    /// Reads an integer of type `T`: any number the payload holds that `T` holds exactly. (`decode(Int.self)`
    /// and the like come here through the integer types' conformances.)
    @inlinable mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let tag = try peek()
        if tag == BinaryPayload.integer {
            let start = reader.offset
            reader.offset += 1
            let value = try malformedAsDecodingError { reader throws(BinaryPayload.Malformed) in try reader.integer() }
            guard let exact = T(exactly: value) else { throw outOfRange(type, "\(value)", at: start) }
            return exact
        }
        return try number(type, tag: tag)
    }

    /// Reads a `Double`: a double, or an integer or decimal number as the nearest double.
    public mutating func decode(_ type: Double.Type) throws -> Double {
        let tag = try peek()
        switch tag {
        case BinaryPayload.double:
            reader.offset += 1
            return try malformedAsDecodingError { reader throws(BinaryPayload.Malformed) in try reader.double() }
        case BinaryPayload.integer:
            return Double(try integer(Int64.self))
        case BinaryPayload.unsigned:
            return Double(try integer(UInt64.self))
        case BinaryPayload.decimal:
            reader.offset += 1
            let text = try malformedAsDecodingError { reader throws(BinaryPayload.Malformed) in try reader.decimalText() }
            guard let value = Double(text) else { throw mismatch(type, tag) }
            return value
        default:
            throw mismatch(type, tag)
        }
    }

    /// Reads a `Float`, as the nearest `Float` to the number's `Double`.
    public mutating func decode(_ type: Float.Type) throws -> Float {
        Float(try decode(Double.self))
    }

    // MARK: Containers

    /// Reads any ``BinaryPayloadDecodable`` value through its conformance.
    @inlinable public mutating func decode<Value: BinaryPayloadDecodable>(_ type: Value.Type = Value.self) throws -> Value {
        try Value(from: &self)
    }

    /// Reads an object, handing `member` each of its members in the payload's order: its key, and the reader
    /// positioned at its value. A member whose value `member` does not read is skipped.
    @inlinable public mutating func decodeObject(_ member: (Key, inout BinaryPayloadReader) throws -> Void) throws {
        try open(BinaryPayload.object, [String: Any].self, "an object")
        while let key = try nextKey() {
            let valueStart = reader.offset
            try member(key, &self)
            if reader.offset == valueStart { try skipValue() }
        }
        depth -= 1
    }

    /// Reads an object and returns its member `key` as a `Value`, skipping any other; throws
    /// `DecodingError.keyNotFound` when it has none. How a case with one associated value reads:
    /// `.setQuery(try reader.decodeMember(String.self, forKey: "_0"))`.
    @inlinable public mutating func decodeMember<Value: BinaryPayloadDecodable>(_ type: Value.Type, forKey key: StaticString) throws -> Value {
        var value: Value?
        try decodeObject { found, reader in
            if found == key { value = try Value(from: &reader) }
        }
        return try value ?? keyNotFound("\(key)")
    }

    /// Reads an object and returns its member `key` as a `Value`, or `nil` when it has none or it is null: how a
    /// synthesized conformance reads an optional associated value or property (`decodeIfPresent`).
    @inlinable public mutating func decodeOptionalMember<Value: BinaryPayloadDecodable>(_ type: Value.Type, forKey key: StaticString) throws -> Value? {
        var value: Value?
        try decodeObject { found, reader in
            if found == key { value = try Value?(from: &reader) }
        }
        return value
    }

    /// Reads an enum case as a synthesized `Codable` conformance writes it: an object of exactly one member, the
    /// case name, whose value `body` reads (an object of the associated values) and turns into the case.
    @inlinable public mutating func decodeCase<Value>(_ body: (Key, inout BinaryPayloadReader) throws -> Value) throws -> Value {
        let start = reader.offset
        var value: Value?
        var members = 0
        try decodeObject { key, reader in
            members += 1
            guard members == 1 else { return }
            value = try body(key, &reader)
        }
        guard members == 1, let value else { throw notOneCase(Value.self, members: members, at: start) }
        return value
    }

    /// Reads an array, calling `element` with the reader positioned at each element in turn; an element that
    /// `element` does not read is skipped.
    @inlinable public mutating func decodeArray(_ element: (inout BinaryPayloadReader) throws -> Void) throws {
        try open(BinaryPayload.array, [Any].self, "an array")
        while try !malformedAsDecodingError({ reader throws(BinaryPayload.Malformed) in try reader.arrayEnds() }) {
            let elementStart = reader.offset
            try element(&self)
            if reader.offset == elementStart { try skipValue() }
        }
        depth -= 1
    }

    /// How many elements the array that is the next value holds, up to `limit`, read ahead without moving; 0 when
    /// the next value is not a well-formed array (reading it then throws). What an array reserves before reading
    /// its elements: for a short array, walking over their structure costs less than the allocations of growing
    /// it from empty; the limit keeps the walk short for a long one, which then grows from there.
    @usableFromInline func arrayElementCount(upTo limit: Int) -> Int {
        var ahead = reader
        guard (try? ahead.byte()) == BinaryPayload.array else { return 0 }
        return (try? ahead.skipElements(upTo: limit, depth: depth + 1)) ?? 0
    }

    /// Skips the next value, checking its structure.
    public mutating func skipValue() throws {
        let depth = depth
        try malformedAsDecodingError { reader throws(BinaryPayload.Malformed) in try reader.skipValue(depth: depth) }
    }

    /// An object member's key, as its UTF-8 bytes in the payload: compare it with a string literal, or match it
    /// in a `switch` over literals, without making a `String`. It views the payload's bytes, so it is valid while
    /// the closure it is handed to runs; keep ``string()`` of it, not the key.
    public struct Key: CustomStringConvertible {
        @usableFromInline let utf8: UnsafeRawBufferPointer

        @usableFromInline init(utf8: UnsafeRawBufferPointer) {
            self.utf8 = utf8
        }

        /// The key as a string (a key that is not valid UTF-8 reads as its valid part, with replacement characters).
        public var description: String { String(decoding: utf8, as: UTF8.self) }

        /// The key as a string; throws when it is not valid UTF-8.
        public func string() throws -> String {
            guard let text = String(validUTF8: utf8) else {
                throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "An object's key is not valid UTF-8."))
            }
            return text
        }

        /// Whether the key spells `literal`.
        @inlinable public static func == (key: Key, literal: StaticString) -> Bool {
            literal.withUTF8Buffer { text in
                text.count == key.utf8.count && (text.isEmpty || memcmp(text.baseAddress!, key.utf8.baseAddress!, text.count) == 0)
            }
        }

        /// Whether the key spells `literal`, for `switch key { case "query": … }`.
        @inlinable public static func ~= (literal: StaticString, key: Key) -> Bool {
            key == literal
        }
    }

    // MARK: Errors

    /// Throws `DecodingError.keyNotFound` for `key`: for a required member the object did not have,
    /// `try query ?? reader.keyNotFound("query")`.
    public func keyNotFound<T>(_ key: String) throws -> T {
        throw DecodingError.keyNotFound(
            NamedKey(key), DecodingError.Context(codingPath: [], debugDescription: "The object before byte \(reader.offset) has no member \"\(key)\".")
        )
    }

    /// The error for an enum case name that `type` does not have.
    public func unknownCase(_ name: Key, of type: Any.Type) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "\(type) has no case \"\(name)\"."))
    }

    // MARK: Reading

    /// The tag of the next value, not read.
    @inlinable func peek() throws -> UInt8 {
        guard reader.offset < reader.bytes.count else { throw corrupted(reader.endsInsideValue()) }
        return reader.bytes[reader.offset]
    }

    /// Reads the tag of a container, checking that it is `tag` and that it nests no deeper than the limit.
    @inlinable mutating func open(_ tag: UInt8, _ type: Any.Type, _ expected: String) throws {
        let found = try peek()
        guard found == tag else { throw mismatch(type, found, expected: expected) }
        guard depth + 1 < BinaryPayload.maximumDepth else {
            throw corrupted(reader.malformed("containers nest deeper than \(BinaryPayload.maximumDepth)"))
        }
        reader.offset += 1
        depth += 1
    }

    /// The next member's key, or `nil` at the object's end mark.
    @inlinable mutating func nextKey() throws -> Key? {
        try malformedAsDecodingError { reader throws(BinaryPayload.Malformed) -> Key? in
            guard let length = try reader.keyLength() else { return nil }
            return Key(utf8: try reader.utf8(length))
        }
    }

    /// A number that is not a plain integer, as an integer of type `T`.
    @usableFromInline mutating func number<T: FixedWidthInteger>(_ type: T.Type, tag: UInt8) throws -> T {
        let start = reader.offset
        switch tag {
        case BinaryPayload.unsigned:
            reader.offset += 1
            let value = try malformedAsDecodingError { reader throws(BinaryPayload.Malformed) in try reader.varint() }
            guard let exact = T(exactly: value) else { throw outOfRange(type, "\(value)", at: start) }
            return exact
        case BinaryPayload.double:
            let value = try decode(Double.self)
            guard let exact = T(exactly: value) else { throw outOfRange(type, "\(value)", at: start) }
            return exact
        default:
            throw mismatch(type, tag)
        }
    }

    @inlinable mutating func malformedAsDecodingError<T>(_ read: (inout BinaryPayload.Reader) throws(BinaryPayload.Malformed) -> T) throws -> T {
        do {
            return try read(&reader)
        } catch {
            throw corrupted(error)
        }
    }

    @usableFromInline func corrupted(_ error: BinaryPayload.Malformed) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: error.description, underlyingError: error))
    }

    @usableFromInline func mismatch(_ type: Any.Type, _ tag: UInt8, expected: String? = nil) -> DecodingError {
        .typeMismatch(type, DecodingError.Context(
            codingPath: [], debugDescription: "Expected \(expected ?? "\(type)") at byte \(reader.offset) but found \(BinaryPayload.describe(tag))."
        ))
    }

    @usableFromInline func outOfRange(_ type: Any.Type, _ value: String, at offset: Int) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "The number \(value) at byte \(offset) does not fit in \(type)."))
    }

    @usableFromInline func notOneCase(_ type: Any.Type, members: Int, at offset: Int) -> DecodingError {
        .typeMismatch(type, DecodingError.Context(
            codingPath: [], debugDescription: "Expected an enum case at byte \(offset), an object of one member, but found one of \(members)."
        ))
    }

    /// A coding key named by a string, for ``keyNotFound(_:)``.
    struct NamedKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

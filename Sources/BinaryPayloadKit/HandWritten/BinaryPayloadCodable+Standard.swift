// The standard library's scalars and collections, written and read as their `Codable` conformances write and read
// them through the binary codec, so that a conformance can hand any of them to `encode(_:forKey:)` and
// `decode(_:)`.

extension Bool: BinaryPayloadCodable {
    /// Writes the Boolean.
    @inlinable public func encode(to writer: inout BinaryPayloadWriter) throws { writer.encode(self) }
    /// Reads a Boolean.
    @inlinable public init(from reader: inout BinaryPayloadReader) throws { self = try reader.decode(Bool.self) }
}

extension String: BinaryPayloadCodable {
    /// Writes the string.
    @inlinable public func encode(to writer: inout BinaryPayloadWriter) throws { writer.encode(self) }
    /// Reads a string.
    @inlinable public init(from reader: inout BinaryPayloadReader) throws { self = try reader.decode(String.self) }
}

extension Double: BinaryPayloadCodable {
    /// Writes the number; throws for an infinity or a NaN.
    @inlinable public func encode(to writer: inout BinaryPayloadWriter) throws { try writer.encode(self) }
    /// Reads a number.
    @inlinable public init(from reader: inout BinaryPayloadReader) throws { self = try reader.decode(Double.self) }
}

extension Float: BinaryPayloadCodable {
    /// Writes the number; throws for an infinity or a NaN.
    @inlinable public func encode(to writer: inout BinaryPayloadWriter) throws { try writer.encode(self) }
    /// Reads a number.
    @inlinable public init(from reader: inout BinaryPayloadReader) throws { self = try reader.decode(Float.self) }
}

/// A signed integer type, written as an integer.
public protocol BinaryPayloadSignedInteger: FixedWidthInteger & SignedInteger & BinaryPayloadCodable {}

extension BinaryPayloadSignedInteger {
    /// Writes the integer.
    @inlinable public func encode(to writer: inout BinaryPayloadWriter) throws { writer.encode(Int64(self)) }
    /// Reads a number that this type holds exactly.
    @inlinable public init(from reader: inout BinaryPayloadReader) throws { self = try reader.integer(Self.self) }
}

/// An unsigned integer type, written as an integer (as unsigned above `Int64.max`).
public protocol BinaryPayloadUnsignedInteger: FixedWidthInteger & UnsignedInteger & BinaryPayloadCodable {}

extension BinaryPayloadUnsignedInteger {
    /// Writes the integer.
    @inlinable public func encode(to writer: inout BinaryPayloadWriter) throws { writer.encode(UInt64(self)) }
    /// Reads a number that this type holds exactly.
    @inlinable public init(from reader: inout BinaryPayloadReader) throws { self = try reader.integer(Self.self) }
}

extension Int: BinaryPayloadSignedInteger {}
extension Int8: BinaryPayloadSignedInteger {}
extension Int16: BinaryPayloadSignedInteger {}
extension Int32: BinaryPayloadSignedInteger {}
extension Int64: BinaryPayloadSignedInteger {}
extension UInt: BinaryPayloadUnsignedInteger {}
extension UInt8: BinaryPayloadUnsignedInteger {}
extension UInt16: BinaryPayloadUnsignedInteger {}
extension UInt32: BinaryPayloadUnsignedInteger {}
extension UInt64: BinaryPayloadUnsignedInteger {}

extension Optional: BinaryPayloadEncodable where Wrapped: BinaryPayloadEncodable {
    /// Writes the value, or a null.
    @inlinable public func encode(to writer: inout BinaryPayloadWriter) throws {
        guard let self else { return writer.encodeNil() }
        try self.encode(to: &writer)
    }
}

extension Optional: BinaryPayloadDecodable where Wrapped: BinaryPayloadDecodable {
    /// Reads a null as `nil`, and anything else as a `Wrapped`.
    @inlinable public init(from reader: inout BinaryPayloadReader) throws {
        self = try reader.decodeNil() ? nil : try Wrapped(from: &reader)
    }
}

extension Array: BinaryPayloadEncodable where Element: BinaryPayloadEncodable {
    /// Writes an array of the elements.
    @inlinable public func encode(to writer: inout BinaryPayloadWriter) throws {
        try writer.encodeArray { array in
            for element in self { try array.encode(element) }
        }
    }
}

extension Array: BinaryPayloadDecodable where Element: BinaryPayloadDecodable {
    /// Reads an array of `Element`s.
    @inlinable public init(from reader: inout BinaryPayloadReader) throws {
        var elements: [Element] = []
        elements.reserveCapacity(reader.arrayElementCount(upTo: 16))
        try reader.decodeArray { reader in elements.append(try Element(from: &reader)) }
        self = elements
    }
}

extension Dictionary: BinaryPayloadEncodable where Key == String, Value: BinaryPayloadEncodable {
    /// Writes an object of the entries, in the dictionary's order, as `Codable` does.
    @inlinable public func encode(to writer: inout BinaryPayloadWriter) throws {
        try writer.encodeObject { object in
            for (key, value) in self { try object.encode(value, forKey: key) }
        }
    }
}

extension Dictionary: BinaryPayloadDecodable where Key == String, Value: BinaryPayloadDecodable {
    /// Reads an object as a dictionary; of two members with one key, the later is kept.
    @inlinable public init(from reader: inout BinaryPayloadReader) throws {
        var entries: [String: Value] = [:]
        try reader.decodeObject { key, reader in entries[try key.string()] = try Value(from: &reader) }
        self = entries
    }
}

/// What the code `@BinaryPayloadCoding` writes calls: generic helpers that let the compiler, not the macro, work out
/// each member's type and whether it is an optional (a macro sees only syntax, where `var count = 0` names no type
/// and a type alias hides an optional). Not meant to be called by hand.
public enum BinaryPayloadCodingSupport {
    /// No value yet of the property `property` reads: the type of the local a conformance reads it into.
    @inlinable public static func absent<Root, Value>(_ property: (Root) -> Value) -> Value? { nil }

    /// Reads the next value into `slot`, as a `Value` (an optional property's slot holds an optional).
    @inlinable public static func read<Value: BinaryPayloadDecodable>(_ slot: inout Value?, from reader: inout BinaryPayloadReader) throws {
        slot = try Value(from: &reader)
    }

    /// The value read for the required member `key`; throws `DecodingError.keyNotFound` when there was none.
    @inlinable public static func value<Value>(_ slot: Value?, forKey key: String, in reader: borrowing BinaryPayloadReader) throws -> Value {
        guard let slot else { return try reader.keyNotFound(key) }
        return slot
    }

    /// The value read for the optional member `key`, nil when it was missing (`decodeIfPresent`).
    @inlinable public static func value<Wrapped>(_ slot: Wrapped??, forKey key: String, in reader: borrowing BinaryPayloadReader) throws -> Wrapped? {
        slot ?? nil
    }

    /// Writes the member `key`.
    @inlinable public static func encode<Value: BinaryPayloadEncodable>(_ value: Value, forKey key: String, into members: inout BinaryPayloadWriter.Keyed) throws {
        try members.encode(value, forKey: key)
    }

    /// Writes the member `key` unless `value` is nil (`encodeIfPresent`).
    @inlinable public static func encode<Wrapped: BinaryPayloadEncodable>(_ value: Wrapped?, forKey key: String, into members: inout BinaryPayloadWriter.Keyed) throws {
        try members.encodeIfPresent(value, forKey: key)
    }

    /// Does nothing and returns false: a type without raw values is written as its case.
    @inlinable public static func encodeRawValue<Value>(of value: Value, to writer: inout BinaryPayloadWriter) throws -> Bool {
        false
    }

    /// Writes the raw value and returns true, as `Codable` writes an enum with raw values; the compiler picks this
    /// overload wherever the enum has a raw type, however its declaration spells it.
    @inlinable public static func encodeRawValue<Value: RawRepresentable>(of value: Value, to writer: inout BinaryPayloadWriter) throws -> Bool
    where Value.RawValue: BinaryPayloadEncodable {
        try value.rawValue.encode(to: &writer)
        return true
    }

    /// Returns nil without reading: a type without raw values reads its case.
    @inlinable public static func decodeRawValue<Value>(of type: Value.Type, from reader: inout BinaryPayloadReader) throws -> Value? {
        nil
    }

    /// Reads a raw value and returns the case that has it; throws `DecodingError.dataCorrupted` for one no case has.
    @inlinable public static func decodeRawValue<Value: RawRepresentable>(of type: Value.Type, from reader: inout BinaryPayloadReader) throws -> Value?
    where Value.RawValue: BinaryPayloadDecodable {
        let rawValue = try Value.RawValue(from: &reader)
        guard let value = Value(rawValue: rawValue) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: "Cannot initialize \(Value.self) from invalid \(Value.RawValue.self) value \(rawValue)"))
        }
        return value
    }
}

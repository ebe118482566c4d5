import BinaryPayloadKit

/// A pulse writes what its `Codable` conformance writes, `{"value": …, "valueUpdatedCount": n}`, without
/// `Codable`'s containers: so that a state with `@Pulse` properties can take `@BinaryPayloadCoding`, which writes
/// a wrapped property's storage through its wrapper's conformance. Both conformances ask both of `Value`, because a
/// pulse is `Codable` (which they refine) only where its value is.
extension Pulse: BinaryPayloadEncodable where Value: BinaryPayloadEncodable & BinaryPayloadDecodable {
    /// Writes the value and how many times it was assigned.
    public func encode(to writer: inout BinaryPayloadWriter) throws {
        try writer.encodeObject { members in
            try members.encode(value, forKey: "value")
            try members.encode(valueUpdatedCount, forKey: "valueUpdatedCount")
        }
    }
}

extension Pulse: BinaryPayloadDecodable where Value: BinaryPayloadEncodable & BinaryPayloadDecodable {
    /// Reads the value and how many times it was assigned; both are required, as `Codable` requires them (a nil
    /// value is written as null).
    public init(from reader: inout BinaryPayloadReader) throws {
        var value: Value?
        var updatedCount: UInt?
        try reader.decodeObject { key, reader in
            switch key {
            case "value": value = try Value(from: &reader)
            case "valueUpdatedCount": updatedCount = try UInt(from: &reader)
            default: break
            }
        }
        self.init(value: try value ?? reader.keyNotFound("value"), updatedCount: try updatedCount ?? reader.keyNotFound("valueUpdatedCount"))
    }
}

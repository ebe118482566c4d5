import Foundation

// Foundation's value types an app's state holds most, written and read as the binary codec writes and reads them
// through `Codable`, so that a conformance (or `@BinaryPayloadCoding`) can hand them to `encode(_:forKey:)`.

extension Date: BinaryPayloadCodable {
    /// Writes the seconds since 2001-01-01 00:00 UTC, as `Date`'s `Codable` conformance does.
    @inlinable public func encode(to writer: inout BinaryPayloadWriter) throws { try writer.encode(timeIntervalSinceReferenceDate) }
    /// Reads the seconds since 2001-01-01 00:00 UTC.
    @inlinable public init(from reader: inout BinaryPayloadReader) throws {
        self.init(timeIntervalSinceReferenceDate: try reader.decode(Double.self))
    }
}

extension UUID: BinaryPayloadCodable {
    /// Writes the identifier as its string, as `UUID`'s `Codable` conformance does.
    @inlinable public func encode(to writer: inout BinaryPayloadWriter) throws { writer.encode(uuidString) }
    /// Reads an identifier's string; throws for a string that is not one.
    public init(from reader: inout BinaryPayloadReader) throws {
        self = try reader.decodeString(parsedBy: UUID.init(uuidString:)) { "\"\($0)\" is not a UUID." }
    }
}

extension URL: BinaryPayloadCodable {
    /// Writes the URL's absolute string, as the binary codec writes a `URL` through `Codable`.
    @inlinable public func encode(to writer: inout BinaryPayloadWriter) throws { writer.encode(absoluteString) }
    /// Reads a URL's string; throws for a string that is not one.
    public init(from reader: inout BinaryPayloadReader) throws {
        self = try reader.decodeString(parsedBy: URL.init(string:)) { "\"\($0)\" is not a URL." }
    }
}

extension BinaryPayloadReader {
    /// Reads a string and returns what `parse` makes of it; throws `DecodingError.dataCorrupted` with `problem`'s
    /// sentence about the text when `parse` makes nothing.
    mutating func decodeString<Value>(parsedBy parse: (String) -> Value?, _ problem: (String) -> String) throws -> Value {
        let text = try decode(String.self)
        guard let value = parse(text) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: problem(text)))
        }
        return value
    }
}

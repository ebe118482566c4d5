/// A type that writes itself in the binary payload format (``BinaryPayload``) directly, without `Codable`'s
/// containers: what the binary codec uses, when a value's type conforms, to encode it on the log's writer thread.
///
/// `Codable` costs several thousand instructions for a small enum, most of them in looking up the metadata of
/// generic containers; a conformance to this protocol writes the same bytes in a few hundred. Conform the types
/// that are logged the most, a reactor's `Action` and `Mutation`, and the `State` where snapshots are frequent.
///
/// The bytes must be those the type's `Encodable` conformance writes through the binary codec: the JSON
/// payloads of the same log, a reader without the Swift types and the schema checks all see the `Codable` form.
/// For a synthesized conformance that means an object of the stored properties in declaration order, a nil
/// optional left out, and an enum case as an object of one member, the case name, whose value is an object of the
/// associated values (labelled, or `_0`, `_1`, … when not). ``BinaryPayload/checkHandWrittenCoding(of:)`` checks
/// a value both ways; call it in a test for each case.
///
///     extension Mutation: BinaryPayloadEncodable {
///         func encode(to writer: inout BinaryPayloadWriter) throws {
///             switch self {
///             case let .setQuery(query):
///                 try writer.encodeCase("setQuery") { try $0.encode(query, forKey: "_0") }
///             case .clear:
///                 writer.encodeCase("clear") { _ in }
///             }
///         }
///     }
///
/// A payload the encoding leaves malformed (two values where one belongs) is refused: the entry is logged as
/// `unencodable`, and the error names the type.
public protocol BinaryPayloadEncodable: Encodable {
    /// Writes exactly one value: a scalar, an array or an object.
    func encode(to writer: inout BinaryPayloadWriter) throws
}

/// A type that reads itself from the binary payload format (``BinaryPayload``) directly, without `Codable`'s
/// containers: what the binary codec uses, when a value's type conforms, to decode it for replay and time travel.
///
/// The conformance reads what the type's `Decodable` conformance reads: a payload written through `Codable` must
/// decode to the same value, and one `Codable` refuses should be refused. Read objects with
/// ``BinaryPayloadReader/decodeObject(_:)``, which hands over each member whatever the order; members a
/// conformance does not read are skipped.
///
///     extension Mutation: BinaryPayloadDecodable {
///         init(from reader: inout BinaryPayloadReader) throws {
///             self = try reader.decodeCase { name, reader in
///                 switch name {
///                 case "setQuery":
///                     var query: String?
///                     try reader.decodeObject { key, reader in
///                         if key == "_0" { query = try reader.decode(String.self) }
///                     }
///                     return .setQuery(try query ?? reader.keyNotFound("_0"))
///                 case "clear":
///                     return .clear
///                 default:
///                     throw reader.unknownCase(name, of: Mutation.self)
///                 }
///             }
///         }
///     }
public protocol BinaryPayloadDecodable: Decodable {
    /// Reads exactly one value.
    init(from reader: inout BinaryPayloadReader) throws
}

/// A type that both writes and reads itself in the binary payload format.
public typealias BinaryPayloadCodable = BinaryPayloadEncodable & BinaryPayloadDecodable

import Foundation

/// Describes the structure a `Decodable` type reads, with no value and no reflection on instances: it decodes the
/// type from a decoder that answers every request with a placeholder and writes down what was asked for.
///
/// - A struct (a keyed container) becomes `{name:Type,…}`, names sorted; an optional member ends in `?`.
/// - An enum with synthesized `Codable` becomes `<case(label:Type,…)|…>`: its cases are found from its coding
///   keys (a payload-free enum, so its values are its tags), and each case is decoded in turn.
/// - A payload-free enum with raw values (`enum Kind: String, Codable`) becomes its raw values, `("a"|"b")`.
/// - Arrays, sets and dictionaries describe their elements: `[T]`, `[String:T]`.
/// - Foundation's `Date`, `Data`, `UUID`, `URL` and `Decimal` keep their names; a type whose `init(from:)`
///   refuses placeholders, and a type met again inside itself, is named (`^Name`).
///
/// The description changes when a field or case is added, removed or renamed, or its type changes; it does not
/// change when fields are reordered or types renamed, since neither changes what the log holds.
final class SchemaProbe {
    private var inProgress: Set<ObjectIdentifier> = []

    /// The description of `type`.
    static func describe<T: Decodable>(_ type: T.Type) -> String {
        SchemaProbe().describe(type)
    }

    func describe<T: Decodable>(_ type: T.Type) -> String {
        value(of: T.self).description
    }

    /// A placeholder value of `T` (when one can be made) and `T`'s description.
    func value<T: Decodable>(of type: T.Type) -> (value: T?, description: String) {
        if let primitive = Self.primitive(T.self) { return (Self.placeholder(T.self), primitive) }
        if let (name, value) = Self.named[ObjectIdentifier(T.self)] { return (value as? T, name) }
        if let container = T.self as? any ProbedContainer.Type {
            return (container.empty as? T, container.describeElements(using: self))
        }
        let id = ObjectIdentifier(T.self)
        guard !inProgress.contains(id) else { return (nil, "^" + String(describing: T.self)) }
        inProgress.insert(id)
        defer { inProgress.remove(id) }
        let sink = ProbeSink()
        let decoded = try? T(from: ProbeDecoder(probe: self, sink: sink))
        if let cases = sink.enumCases {
            var alternatives: [String] = []
            var sample: T?
            for key in cases {
                let caseSink = ProbeSink(presenting: key.stringValue)
                let value = try? T(from: ProbeDecoder(probe: self, sink: caseSink))
                sample = sample ?? value
                let payload = caseSink.nested[key.stringValue]?.members.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" } ?? []
                alternatives.append(key.stringValue + (payload.isEmpty ? "" : "(" + payload.joined(separator: ",") + ")"))
            }
            return (sample, "<" + alternatives.sorted().joined(separator: "|") + ">")
        }
        if let decoded { return (decoded, sink.structure) }
        if let cases = Self.payloadFreeCases(T.self), T.self is any RawRepresentable.Type {
            return (cases.first, "(" + cases.map { Self.rawText($0) }.joined(separator: "|") + ")")
        }
        if sink.hasMembers { return (nil, sink.structure) }
        return (nil, "^" + String(describing: T.self))
    }

    /// The cases of a payload-free coding-key enum, or `nil` when `Key` is not one: such an enum's values are the
    /// tags 0..<n, and `Optional<Key>.none` is the first value past them.
    static func allKeys<Key: CodingKey>(_ type: Key.Type) -> [Key]? {
        payloadFreeCases(Key.self)
    }

    /// The values of a payload-free enum, in declaration order (the same reading of tags as ``allKeys(_:)``).
    private static func payloadFreeCases<T>(_ type: T.Type) -> [T]? {
        if MemoryLayout<T>.size == 0 { return [unsafeBitCast((), to: T.self)] }
        guard MemoryLayout<T>.size == 1, MemoryLayout<T?>.size == 1 else { return nil }
        var values: [T] = []
        for tag in UInt8(0)...UInt8(255) {
            guard let value = unsafeBitCast(tag, to: T?.self) else { break }
            values.append(value)
        }
        return values
    }

    private static func rawText<T>(_ value: T) -> String {
        guard let raw = (value as? any RawRepresentable)?.rawValue else { return "?" }
        if let text = raw as? String { return "\"\(text)\"" }
        return "\(raw)"
    }

    static func primitive<T>(_ type: T.Type) -> String? {
        switch T.self {
        case is Bool.Type: "Bool"
        case is String.Type: "String"
        case is Double.Type, is Float.Type: "Double"
        case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type: "Int"
        case is UInt.Type, is UInt8.Type, is UInt16.Type, is UInt32.Type, is UInt64.Type: "UInt"
        default: nil
        }
    }

    static func placeholder<T>(_ type: T.Type) -> T? {
        let values: [any Sendable] = [false, "", 0.0, Float(0), 0, Int8(0), Int16(0), Int32(0), Int64(0), UInt(0), UInt8(0), UInt16(0), UInt32(0), UInt64(0)]
        return values.lazy.compactMap { $0 as? T }.first
    }

    /// Foundation types described by name, with a placeholder each.
    nonisolated(unsafe) private static let named: [ObjectIdentifier: (String, Any)] = [
        ObjectIdentifier(Date.self): ("Date", Date(timeIntervalSince1970: 0)), ObjectIdentifier(Data.self): ("Data", Data()),
        ObjectIdentifier(UUID.self): ("UUID", UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))),
        ObjectIdentifier(URL.self): ("URL", URL(fileURLWithPath: "/")), ObjectIdentifier(Decimal.self): ("Decimal", Decimal(0)),
    ]
}

/// The collections whose element types the probe describes without a value.
protocol ProbedContainer {
    static var empty: Self { get }
    static func describeElements(using probe: SchemaProbe) -> String
}

extension Array: ProbedContainer where Element: Decodable {
    static var empty: Self { [] }
    static func describeElements(using probe: SchemaProbe) -> String { "[" + probe.describe(Element.self) + "]" }
}

extension ContiguousArray: ProbedContainer where Element: Decodable {
    static var empty: Self { [] }
    static func describeElements(using probe: SchemaProbe) -> String { "[" + probe.describe(Element.self) + "]" }
}

extension Set: ProbedContainer where Element: Decodable {
    static var empty: Self { [] }
    static func describeElements(using probe: SchemaProbe) -> String { "[" + probe.describe(Element.self) + "]" }
}

extension Dictionary: ProbedContainer where Key: Decodable, Value: Decodable {
    static var empty: Self { [:] }
    static func describeElements(using probe: SchemaProbe) -> String {
        "[" + probe.describe(Key.self) + ":" + probe.describe(Value.self) + "]"
    }
}

extension Optional: ProbedContainer where Wrapped: Decodable {
    static var empty: Self { nil }
    static func describeElements(using probe: SchemaProbe) -> String { probe.describe(Wrapped.self) + "?" }
}

/// What a ``SchemaProbe`` learns from one decoding: the members asked for, or the one value, or that it is an enum.
final class ProbeSink {
    /// The members a keyed container was asked for, by name, with their descriptions.
    var members: [String: String] = [:]
    /// Nested keyed containers, by the key they were asked for under.
    var nested: [String: ProbeSink] = [:]
    /// What a single-value container was asked for.
    var single: String?
    /// Whether an unkeyed container was asked for (its elements cannot be known without a value).
    var unkeyed = false
    /// Set when the decoding asked for `allKeys`: an enum's cases, when its coding keys can be listed.
    var enumCases: [any CodingKey]?
    /// On a pass for one case of an enum, the key `allKeys` presents.
    let presenting: String?

    init(presenting: String? = nil) {
        self.presenting = presenting
    }

    var hasMembers: Bool { !members.isEmpty || single != nil || unkeyed }

    /// `{name:Type,…}` with names sorted, or what the single value or unkeyed container was.
    var structure: String {
        if let single { return single }
        if unkeyed && members.isEmpty { return "[?]" }
        return "{" + members.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ",") + "}"
    }
}

/// A decoder that hands out placeholders and records in a ``ProbeSink`` what it was asked for.
struct ProbeDecoder: Decoder {
    let probe: SchemaProbe
    let sink: ProbeSink
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ProbeKeyedContainer<Key>(probe: probe, sink: sink))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        sink.unkeyed = true
        return ProbeUnkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ProbeSingleValueContainer(probe: probe, sink: sink)
    }
}

/// The probe's placeholder for `type`, or an error when it cannot make one.
private func placeholder<T: Decodable>(_ probe: SchemaProbe, _ type: T.Type, record: (String) -> Void) throws -> T {
    let (value, description) = probe.value(of: T.self)
    record(description)
    guard let value else {
        throw DecodingError.valueNotFound(T.self, .init(codingPath: [], debugDescription: "The schema probe has no placeholder."))
    }
    return value
}

struct ProbeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let probe: SchemaProbe
    let sink: ProbeSink
    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        let keys = SchemaProbe.allKeys(Key.self)
        guard let presenting = sink.presenting else {
            if let keys { sink.enumCases = keys }
            return []
        }
        return keys?.filter { $0.stringValue == presenting } ?? []
    }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try placeholder(probe, T.self) { sink.members[key.stringValue] = $0 }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { optional(type, key) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type as Bool.Type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type as String.Type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type as Double.Type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type as Float.Type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type as Int.Type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type as Int8.Type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type as Int16.Type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type as Int32.Type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type as Int64.Type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type as UInt.Type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type as UInt8.Type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type as UInt16.Type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type as UInt32.Type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type as UInt64.Type, key) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { optional(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { optional(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { optional(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { optional(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { optional(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { optional(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { optional(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { optional(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { optional(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { optional(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { optional(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { optional(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { optional(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { optional(type, key) }

    private func optional<T: Decodable>(_ type: T.Type, _ key: Key) -> T? {
        sink.members[key.stringValue] = probe.describe(T.self) + "?"
        return nil
    }

    private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try placeholder(probe, T.self) { sink.members[key.stringValue] = $0 }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let nested = ProbeSink()
        sink.nested[key.stringValue] = nested
        return KeyedDecodingContainer(ProbeKeyedContainer<NestedKey>(probe: probe, sink: nested))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        sink.members[key.stringValue] = "[?]"
        return ProbeUnkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ProbeDecoder(probe: probe, sink: sink) }
    func superDecoder(forKey key: Key) throws -> any Decoder { ProbeDecoder(probe: probe, sink: sink) }
}

/// An unkeyed container with no elements: the probe cannot know what a custom one would hold.
struct ProbeUnkeyedContainer: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }

    mutating func decodeNil() throws -> Bool { false }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        throw DecodingError.valueNotFound(T.self, .init(codingPath: [], debugDescription: "The schema probe's containers are empty."))
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.valueNotFound(NestedKey.self, .init(codingPath: [], debugDescription: "The schema probe's containers are empty."))
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { self }
    mutating func superDecoder() throws -> any Decoder {
        throw DecodingError.valueNotFound(Self.self, .init(codingPath: [], debugDescription: "The schema probe's containers are empty."))
    }
}

struct ProbeSingleValueContainer: SingleValueDecodingContainer {
    let probe: SchemaProbe
    let sink: ProbeSink
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try placeholder(probe, T.self) { sink.single = $0 }
    }

    func decode(_ type: Bool.Type) throws -> Bool { try single(type) }
    func decode(_ type: String.Type) throws -> String { try single(type) }
    func decode(_ type: Double.Type) throws -> Double { try single(type) }
    func decode(_ type: Float.Type) throws -> Float { try single(type) }
    func decode(_ type: Int.Type) throws -> Int { try single(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try single(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try single(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try single(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try single(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try single(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try single(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try single(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try single(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try single(type) }

    private func single<T: Decodable>(_ type: T.Type) throws -> T {
        try placeholder(probe, T.self) { sink.single = $0 }
    }
}

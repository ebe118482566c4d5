import Foundation

/// Decodes a `Decodable` value from a binary payload (``BinaryPayload``), reading the bytes where they lie.
///
/// Objects are read in place: a keyed container remembers where its next member starts, so the usual
/// in-order decoding of a synthesized `init(from:)` finds each key at once; any other order scans the object.
/// Every read is bounds-checked, so damaged or hostile bytes throw `DecodingError`, never trap.
@usableFromInline package final class BinaryPayloadDecoder: Decoder {
    // One decoder serves one decode on one thread: the exclusivity checks would only cost time.
    /// The payload, valid for the one decode the decoder serves.
    @exclusivity(unchecked) private(set) var bytes: UnsafeRawBufferPointer
    /// Where the value being decoded starts.
    @exclusivity(unchecked) var position: Int
    /// How many containers deep the value being decoded is.
    @exclusivity(unchecked) var depth = 0
    /// Per depth, the object whose members were read last and where the value read last starts: the next
    /// member is after it.
    @exclusivity(unchecked) var hints: [(object: Int, next: Int)] = []

    @exclusivity(unchecked) @usableFromInline package var codingPath: [any CodingKey] = []
    /// `allKeys` of one-member objects, kept from payload to payload while the decoder is reused.
    @exclusivity(unchecked) var knownKeys = KnownKeys()
    @usableFromInline package var userInfo: [CodingUserInfoKey: Any] { [:] }

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        position = 0
        codingPath.reserveCapacity(8)
        hints.reserveCapacity(8)
    }

    /// Decodes a `Value` from the whole of `bytes`, with a decoder from `spare` when it holds one (given back after).
    /// With `direct`, a `Value` that is ``BinaryPayloadDecodable`` reads itself.
    ///
    /// Inlinable, so that where `Value` is a concrete type the question whether it conforms is answered by the
    /// compiler, not asked of the runtime for every value (a few hundred instructions).
    @inlinable package static func decode<Value: Decodable>(
        _ type: Value.Type, from bytes: UnsafeRawBufferPointer, reusing spare: Spare<BinaryPayloadDecoder>? = nil, direct: Bool = true
    ) throws -> Value {
        if direct, let direct = Value.self as? any BinaryPayloadDecodable.Type {
            return try decodeDirectly(direct, as: type, from: bytes)
        }
        return try decodeThroughCodable(type, from: bytes, reusing: spare)
    }

    /// Decodes a `Value` through its `Decodable` conformance, with a decoder from `spare` when it holds one.
    @usableFromInline package static func decodeThroughCodable<Value: Decodable>(
        _ type: Value.Type, from bytes: UnsafeRawBufferPointer, reusing spare: Spare<BinaryPayloadDecoder>?
    ) throws -> Value {
        let decoder: BinaryPayloadDecoder
        if let kept = spare?.take() {
            decoder = kept
            decoder.bytes = bytes
        } else {
            decoder = BinaryPayloadDecoder(bytes)
        }
        defer {
            if let spare {
                decoder.reset()
                spare.giveBack(decoder)
            }
        }
        // The value's structure is walked whole first: decoding stops reading an object once it has the members it
        // wants, so a payload cut after them (its end marks lost) would otherwise decode, and `allKeys`, which
        // cannot throw, would answer for what it could read. Bytes after the value are for `verify` to find.
        var reader = BinaryPayload.Reader(bytes, at: 0)
        do throws(BinaryPayload.Malformed) { try reader.skipValue() } catch { throw decoder.corrupted(error) }
        return try decoder.decodeValue(type)
    }

    /// Decodes a `Value`, which is a `Direct`, through its own ``BinaryPayloadDecodable`` conformance. Its reads
    /// check every bound and read each object and array to its end mark, so a payload cut short throws here too.
    ///
    /// A payload the conformance refuses is read again through `Codable`, whose error names the coding path to
    /// the problem (the hand-written reading knows only a byte offset); should `Codable` read it, its value is
    /// returned, so that a bug in a conformance costs time, not the entry.
    @inlinable package static func decodeDirectly<Direct: BinaryPayloadDecodable, Value: Decodable>(
        _ direct: Direct.Type, as type: Value.Type, from bytes: UnsafeRawBufferPointer
    ) throws -> Value {
        var reader = BinaryPayloadReader(bytes)
        do {
            // `Direct` is `Value`, which the cast that found the conformance established.
            return unsafeBitCast(try Direct(from: &reader), to: Value.self)
        } catch {
            return try decodeThroughCodable(type, from: bytes, reusing: nil)
        }
    }

    /// Readies a used decoder for its next payload, keeping its buffers, and lets go of the last one's bytes.
    private func reset() {
        bytes = UnsafeRawBufferPointer(start: nil, count: 0)
        position = 0
        depth = 0
        hints.removeAll(keepingCapacity: true)
        codingPath.removeAll(keepingCapacity: true)
    }

    // MARK: Values

    /// Decodes the value at ``position``.
    func decodeValue<Value: Decodable>(_ type: Value.Type) throws -> Value {
        if Value.self == Data.self {
            let text = try string()
            guard let data = Data(base64Encoded: text) else { throw mismatch(type, "a string that is not base64") }
            return data as! Value
        } else if Value.self == URL.self {
            guard let url = URL(string: try string()) else { throw mismatch(type, "a string that is not a URL") }
            return url as! Value
        } else if Value.self == Decimal.self {
            return try decimal() as! Value
        } else if Value.self == [String].self, let strings = array(of: { reader throws(BinaryPayload.Malformed) in
            try reader.byte() == BinaryPayload.string ? try reader.text(try reader.length()) : nil
        }) {
            // The check above makes this the identity.
            return unsafeBitCast(strings, to: Value.self)
        } else if Value.self == [Int].self, let integers = array(of: { reader throws(BinaryPayload.Malformed) in
            try reader.byte() == BinaryPayload.integer ? Int(exactly: try reader.integer()) : nil
        }) {
            return unsafeBitCast(integers, to: Value.self)
        }
        return try Value(from: self)
    }

    /// The array at ``position`` read in one pass with `element`, skipping the generic `init(from:)` of `Array`,
    /// its container and its metadata lookups per element; `nil` when it holds anything `element` does not read
    /// (returns `nil` for), so that the generic path decodes it or reports what is wrong with the coding path.
    private func array<Element>(of element: (inout BinaryPayload.Reader) throws(BinaryPayload.Malformed) -> Element?) -> [Element]? {
        // Elements at the depth limit are refused by the generic path, as anywhere else.
        guard depth + 1 < BinaryPayload.maximumDepth, position < bytes.count, bytes[position] == BinaryPayload.array else { return nil }
        var reader = BinaryPayload.Reader(bytes, at: position + 1)
        var elements: [Element] = []
        do {
            while !reader.isAtEnd, bytes[reader.offset] != BinaryPayload.arrayEnd {
                guard let next = try element(&reader) else { return nil }
                elements.append(next)
            }
        } catch {
            return nil
        }
        return reader.isAtEnd ? nil : elements
    }

    /// Decodes the value starting at `offset`, one container deeper, under `key`.
    func decodeNested<Value: Decodable>(_ type: Value.Type, at offset: Int, outer: NestedPath, key: any CodingKey, depth: Int) throws -> Value {
        try at(offset, outer: outer, key: key, depth: depth) { try decodeValue(type) }
    }

    /// Runs `read` with the decoder at the value starting at `offset`, `depth` containers deep, under `key`.
    /// `outer` are the keys of the nested containers the value sits in, which are not values of their own.
    func at<T>(_ offset: Int, outer: NestedPath = NestedPath(), key: any CodingKey, depth: Int, _ read: () throws -> T) throws -> T {
        // A recursive type fed hostile nesting would otherwise recurse until the stack ran out.
        guard depth < BinaryPayload.maximumDepth else {
            throw corrupted(BinaryPayload.Malformed(offset: offset, reason: "containers nest deeper than \(BinaryPayload.maximumDepth)"))
        }
        let saved = (position, self.depth, codingPath.count)
        position = offset
        self.depth = depth
        outer.append(to: &codingPath)
        codingPath.append(key)
        defer {
            (position, self.depth) = (saved.0, saved.1)
            codingPath.removeLast(codingPath.count - saved.2)
        }
        return try read()
    }

    /// ``at(_:outer:key:depth:_:)`` for a `read` that runs no code of the value's type (a scalar, a tag check): the
    /// coding path, which only an error shows, is built only when `read` throws, by reading again under `at`.
    func scalar<T>(at offset: Int, outer: NestedPath, key: @autoclosure () -> any CodingKey, depth: Int, _ read: () throws -> T) throws -> T {
        if depth < BinaryPayload.maximumDepth {
            let saved = position
            position = offset
            defer { position = saved }
            do { return try read() } catch {}
        }
        return try at(offset, outer: outer, key: key(), depth: depth, read)
    }

    var reader: BinaryPayload.Reader { BinaryPayload.Reader(bytes, at: position) }

    func tag() throws -> UInt8 {
        guard position < bytes.count else { throw corrupted(reader.endsInsideValue()) }
        return bytes[position]
    }

    /// Runs a read of the payload, turning a malformed payload into `DecodingError.dataCorrupted`.
    func read<T>(_ body: (inout BinaryPayload.Reader) throws(BinaryPayload.Malformed) -> T) throws -> T {
        var reader = reader
        do {
            return try body(&reader)
        } catch {
            throw corrupted(error)
        }
    }

    func corrupted(_ error: BinaryPayload.Malformed) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: error.description, underlyingError: error))
    }

    func mismatch(_ type: Any.Type, _ found: String) -> DecodingError {
        .typeMismatch(type, DecodingError.Context(codingPath: codingPath, debugDescription: "Expected \(type) but found \(found)."))
    }

    func isNil() throws -> Bool { try tag() == BinaryPayload.null }

    func bool() throws -> Bool {
        switch try tag() {
        case BinaryPayload.true: true
        case BinaryPayload.false: false
        case let tag: throw mismatch(Bool.self, BinaryPayload.describe(tag))
        }
    }

    func string() throws -> String {
        let tag = try tag()
        guard tag == BinaryPayload.string else { throw mismatch(String.self, BinaryPayload.describe(tag)) }
        return try read { reader throws(BinaryPayload.Malformed) in
            reader.offset += 1
            return try reader.text(try reader.length())
        }
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let tag = try tag()
        switch tag {
        case BinaryPayload.integer:
            let value = try read { reader throws(BinaryPayload.Malformed) in reader.offset += 1; return try reader.integer() }
            guard let exact = T(exactly: value) else { throw outOfRange(type, "\(value)") }
            return exact
        case BinaryPayload.unsigned:
            let value = try read { reader throws(BinaryPayload.Malformed) in reader.offset += 1; return try reader.varint() }
            guard let exact = T(exactly: value) else { throw outOfRange(type, "\(value)") }
            return exact
        case BinaryPayload.double:
            let value = try double(Double.self)
            guard let exact = T(exactly: value) else { throw outOfRange(type, "\(value)") }
            return exact
        default:
            throw mismatch(type, BinaryPayload.describe(tag))
        }
    }

    func double<T: BinaryFloatingPoint>(_ type: T.Type) throws -> T {
        let tag = try tag()
        switch tag {
        case BinaryPayload.double:
            return T(try read { reader throws(BinaryPayload.Malformed) in reader.offset += 1; return try reader.double() })
        case BinaryPayload.integer:
            return T(try integer(Int64.self))
        case BinaryPayload.unsigned:
            return T(try integer(UInt64.self))
        case BinaryPayload.decimal:
            guard let value = Double(try decimalText()) else { throw mismatch(type, "a number it cannot hold") }
            return T(value)
        default:
            throw mismatch(type, BinaryPayload.describe(tag))
        }
    }

    func decimal() throws -> Decimal {
        let tag = try tag()
        switch tag {
        case BinaryPayload.decimal:
            guard let value = Decimal(string: try decimalText()) else { throw mismatch(Decimal.self, "a malformed decimal") }
            return value
        case BinaryPayload.integer: return Decimal(try integer(Int64.self))
        case BinaryPayload.unsigned: return Decimal(try integer(UInt64.self))
        case BinaryPayload.double:
            // Through the double's shortest text, so that 12.345 stays 12.345 rather than its binary neighbour.
            let value = try double(Double.self)
            return Decimal(string: "\(value)") ?? Decimal(value)
        default: throw mismatch(Decimal.self, BinaryPayload.describe(tag))
        }
    }

    private func decimalText() throws -> String {
        try read { reader throws(BinaryPayload.Malformed) in
            reader.offset += 1
            return try reader.text(try reader.length())
        }
    }

    private func outOfRange(_ type: Any.Type, _ value: String) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: "The number \(value) does not fit in \(type)."))
    }

    // MARK: Containers

    /// Checks that the value at ``position`` is a container of `tag`, else throws a type mismatch for `type`.
    func expect(_ tag: UInt8, _ type: Any.Type) throws {
        let found = try self.tag()
        guard found == tag else { throw mismatch(type, BinaryPayload.describe(found)) }
    }

    @usableFromInline package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try expect(BinaryPayload.object, [String: Any].self)
        return KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, object: position, depth: depth, outer: NestedPath()))
    }

    @usableFromInline package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try expect(BinaryPayload.array, [Any].self)
        return UnkeyedContainer(decoder: self, next: position + 1, depth: depth, outer: NestedPath())
    }

    @usableFromInline package func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValueContainer(decoder: self) }

    /// Where the value of `key` starts in the object at `object`, or `nil` if it has no such member.
    func member(_ key: some CodingKey, in object: Int, depth: Int) throws -> Int? {
        while hints.count <= depth { hints.append((-1, 0)) }
        var name = key.stringValue
        return try name.withUTF8 { name throws -> Int? in
            let hint = hints[depth]
            if hint.object == object {
                // Usually the member after the one read last.
                var reader = BinaryPayload.Reader(bytes, at: hint.next)
                do throws(BinaryPayload.Malformed) { try reader.skipValue() } catch { throw corrupted(error) }
                if let found = try find(name, in: object, from: reader.offset, depth: depth) { return found }
            }
            return try find(name, in: object, from: object + 1, depth: depth)
        }
    }

    /// Scans members from `start` for `name`; remembers its value as the one read last.
    private func find(_ name: UnsafeBufferPointer<UInt8>, in object: Int, from start: Int, depth: Int) throws -> Int? {
        var reader = BinaryPayload.Reader(bytes, at: start)
        do {
            while let length = try reader.keyLength() {
                let key = try reader.utf8(length)
                // memcmp, not `elementsEqual`: the generic comparison cost a tenth of a decode.
                if length == name.count, length == 0 || memcmp(key.baseAddress!, name.baseAddress!, length) == 0 {
                    hints[depth] = (object, reader.offset)
                    return reader.offset
                }
                try reader.skipValue()
            }
        } catch {
            throw corrupted(error)
        }
        return nil
    }
}

// MARK: - Keyed

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: BinaryPayloadDecoder
    let object: Int
    let depth: Int
    /// The keys of the nested containers this one sits in, below the decoder's coding path.
    let outer: NestedPath

    var codingPath: [any CodingKey] { decoder.codingPath + outer.keys }

    /// The object's keys that `Key` knows, in order (what a synthesized enum decoding asks first). Written
    /// without generic helpers: in this unspecialized code each would cost a metadata lookup.
    var allKeys: [Key] {
        // One member, as every enum case is written: the answer is the decoder's, made once per key type and name.
        if let name = onlyMember() { return decoder.knownKeys.keys(Key.self, named: name) }
        var reader = BinaryPayload.Reader(decoder.bytes, at: object + 1)
        var keys: [Key] = []
        while let length = try? reader.keyLength(), let name = try? reader.utf8(length) {
            if let key = Key(stringValue: String(decoding: name, as: UTF8.self)) { keys.append(key) }
            guard (try? reader.skipValue()) != nil else { break }
        }
        return keys
    }

    /// The name of the object's member if it has exactly one; `nil` if it has none or more, or is malformed.
    private func onlyMember() -> UnsafeRawBufferPointer? {
        var reader = BinaryPayload.Reader(decoder.bytes, at: object + 1)
        do throws(BinaryPayload.Malformed) {
            guard let length = try reader.keyLength() else { return nil }
            let name = try reader.utf8(length)
            try reader.skipValue()
            return try reader.keyLength() == nil ? name : nil
        } catch {
            return nil
        }
    }

    func contains(_ key: Key) -> Bool { (try? decoder.member(key, in: object, depth: depth)) != nil }

    private func value(_ key: Key) throws -> Int {
        guard let offset = try decoder.member(key, in: object, depth: depth) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: "No value for the key \"\(key.stringValue)\"."))
        }
        return offset
    }

    /// Runs a scalar read with the decoder at `key`'s value, one level deeper.
    private func at<T>(_ key: Key, _ read: () throws -> T) throws -> T {
        try at(try value(key), key, read)
    }

    /// Runs a scalar read with the decoder at `offset`, the value of `key`, one level deeper.
    private func at<T>(_ offset: Int, _ key: Key, _ read: () throws -> T) throws -> T {
        try decoder.scalar(at: offset, outer: outer, key: key, depth: depth + 1, read)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try at(key) { try decoder.isNil() } }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try at(key) { try decoder.bool() } }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try at(key) { try decoder.string() } }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try at(key) { try decoder.double(type) } }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try at(key) { try decoder.double(type) } }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try at(key) { try decoder.integer(type) } }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try at(key) { try decoder.integer(type) } }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try at(key) { try decoder.integer(type) } }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try at(key) { try decoder.integer(type) } }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try at(key) { try decoder.integer(type) } }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try at(key) { try decoder.integer(type) } }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try at(key) { try decoder.integer(type) } }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try at(key) { try decoder.integer(type) } }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try at(key) { try decoder.integer(type) } }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try at(key) { try decoder.integer(type) } }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decodeNested(type, at: try value(key), outer: outer, key: key, depth: depth + 1)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let offset = try value(key)
        try at(offset, key) { try decoder.expect(BinaryPayload.object, [String: Any].self) }
        return KeyedDecodingContainer(KeyedContainer<NestedKey>(decoder: decoder, object: offset, depth: depth + 1, outer: outer.appending(key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let offset = try value(key)
        try at(offset, key) { try decoder.expect(BinaryPayload.array, [Any].self) }
        return UnkeyedContainer(decoder: decoder, next: offset + 1, depth: depth + 1, outer: outer.appending(key))
    }

    func superDecoder() throws -> any Decoder { try superDecoder(key: IndexKey.superKey) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try superDecoder(key: key) }

    private func superDecoder(key: some CodingKey) throws -> any Decoder {
        guard let offset = try decoder.member(key, in: object, depth: depth) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: "No value for the key \"\(key.stringValue)\"."))
        }
        return try decoder.superDecoder(at: offset, path: codingPath + [key])
    }
}

// MARK: - Unkeyed

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: BinaryPayloadDecoder
    /// Where the next element starts.
    var next: Int
    /// How deep the array is.
    let depth: Int
    /// The keys of the nested containers this one sits in, below the decoder's coding path.
    let outer: NestedPath
    private(set) var currentIndex = 0

    init(decoder: BinaryPayloadDecoder, next: Int, depth: Int, outer: NestedPath) {
        self.decoder = decoder
        self.next = next
        self.depth = depth
        self.outer = outer
    }

    var codingPath: [any CodingKey] { decoder.codingPath + outer.keys }

    var count: Int? {
        var reader = BinaryPayload.Reader(decoder.bytes, at: next)
        var count = currentIndex
        while !reader.isAtEnd, reader.bytes[reader.offset] != BinaryPayload.arrayEnd {
            guard (try? reader.skipValue()) != nil else { return nil }
            count += 1
        }
        return count
    }

    var isAtEnd: Bool { next >= decoder.bytes.count || decoder.bytes[next] == BinaryPayload.arrayEnd }

    /// Runs a scalar read of the next element and steps past it.
    private mutating func element<T>(_ read: (BinaryPayloadDecoder) throws -> T) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(T.self, DecodingError.Context(
                codingPath: codingPath, debugDescription: "The array has no element \(currentIndex)."))
        }
        let decoder = decoder
        let value = try decoder.scalar(at: next, outer: outer, key: IndexKey(intValue: currentIndex), depth: depth + 1) { try read(decoder) }
        try step()
        return value
    }

    private mutating func step() throws {
        var reader = BinaryPayload.Reader(decoder.bytes, at: next)
        do { try reader.skipValue() } catch { throw decoder.corrupted(error) }
        next = reader.offset
        currentIndex += 1
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, decoder.bytes[next] == BinaryPayload.null else { return false }
        try step()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try element { try $0.bool() } }
    mutating func decode(_ type: String.Type) throws -> String { try element { try $0.string() } }
    mutating func decode(_ type: Double.Type) throws -> Double { try element { try $0.double(type) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try element { try $0.double(type) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try element { try $0.integer(type) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try element { try $0.integer(type) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try element { try $0.integer(type) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try element { try $0.integer(type) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try element { try $0.integer(type) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try element { try $0.integer(type) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try element { try $0.integer(type) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try element { try $0.integer(type) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try element { try $0.integer(type) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try element { try $0.integer(type) } }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(T.self, DecodingError.Context(
                codingPath: codingPath, debugDescription: "The array has no element \(currentIndex)."))
        }
        let value = try decoder.decodeNested(type, at: next, outer: outer, key: IndexKey(intValue: currentIndex), depth: depth + 1)
        try step()
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (offset, key) = (next, IndexKey(intValue: currentIndex))
        try element { try $0.expect(BinaryPayload.object, [String: Any].self) }
        return KeyedDecodingContainer(KeyedContainer<NestedKey>(decoder: decoder, object: offset, depth: depth + 1, outer: outer.appending(key)))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (offset, key) = (next, IndexKey(intValue: currentIndex))
        try element { try $0.expect(BinaryPayload.array, [Any].self) }
        return UnkeyedContainer(decoder: decoder, next: offset + 1, depth: depth + 1, outer: outer.appending(key))
    }

    mutating func superDecoder() throws -> any Decoder {
        let (offset, path) = (next, codingPath + [IndexKey(intValue: currentIndex)])
        try step()
        return try decoder.superDecoder(at: offset, path: path)
    }
}

// MARK: - Single value

private struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: BinaryPayloadDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { (try? decoder.isNil()) ?? false }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool() }
    func decode(_ type: String.Type) throws -> String { try decoder.string() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.double(type) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.double(type) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
}

extension BinaryPayloadDecoder {
    /// A decoder for the value at `offset` of the same payload, for a type that decodes its superclass apart.
    func superDecoder(at offset: Int, path: [any CodingKey]) throws -> any Decoder {
        let decoder = BinaryPayloadDecoder(bytes)
        decoder.position = offset
        decoder.codingPath = path
        return decoder
    }
}

/// The keys of the nested containers a container sits in, below the decoder's coding path: containers, not values
/// of their own, so they are not on that path. The innermost is kept apart, so that the usual single level (an enum
/// case's associated values) builds no array.
struct NestedPath {
    private var above: [any CodingKey] = []
    private var innermost: (any CodingKey)?

    /// No keys.
    init() {}

    /// These keys and then `key`.
    func appending(_ key: any CodingKey) -> NestedPath {
        var path = NestedPath()
        path.above = innermost.map { above + [$0] } ?? above
        path.innermost = key
        return path
    }

    /// The keys, outermost first.
    var keys: [any CodingKey] { innermost.map { above + [$0] } ?? above }

    /// Appends the keys to `path`.
    func append(to path: inout [any CodingKey]) {
        if !above.isEmpty { path.append(contentsOf: above) }
        if let innermost { path.append(innermost) }
    }
}

import Foundation

/// Encodes an `Encodable` value in the binary payload format (``BinaryPayload``), streaming: each value is
/// appended where it is encoded and each container is closed by its end mark once its owner moves on.
///
/// Synthesized and hand-written `Codable` conformances fill their containers one after another, which is all
/// streaming needs. A type that goes back to a container it left, or asks for a super encoder, is encoded
/// again through Foundation's `JSONEncoder` and converted, so every `Encodable` value encodes.
///
/// The encoder also learns the value's case name: the single key of a top-level object, as Swift writes an
/// enum case (`{"updateQuery":{"_0":"swift"}}`).
package final class BinaryPayloadEncoder: Encoder {
    // One encoder serves one encode on one thread: the exclusivity checks would only cost time.
    /// The payload so far: a buffer with one owner, which appends without an array's uniqueness check.
    @exclusivity(unchecked) private(set) var bytes = ByteBuffer(capacity: 64)
    /// The containers still open, innermost last.
    @exclusivity(unchecked) private var open: [Frame] = []
    @exclusivity(unchecked) private var nextFrame = 1
    /// Where the value being encoded starts, and the container it opened, if any.
    @exclusivity(unchecked) private var slot = Slot(start: 0, frame: 0)
    /// The keys of the top-level object, counted as they are written.
    @exclusivity(unchecked) private var topLevelKeys = 0
    @exclusivity(unchecked) private var firstKey: String?

    @exclusivity(unchecked) package var codingPath: [any CodingKey] = []
    /// When set, only what lies on this path is written: other members are left out and other array elements
    /// are nulls, so the JSON form has at the path what the whole value's has (EventLogKit's `BinaryLogCodec.encode(_:keepingOnly:)`).
    @exclusivity(unchecked) private var filter: [BinaryPayload.PathStep]?

    private init() {
        open.reserveCapacity(8)
    }
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// A container the encoder must abandon streaming for.
    struct OutOfOrder: Error {}

    private struct Frame {
        let id: Int
        let isArray: Bool
        /// For a container left out by the ``filter``: where to cut the payload back to when it closes.
        var discardFrom: Int?
    }

    private struct Slot {
        let start: Int
        var frame: Int
    }

    /// The encoder of values that cannot stream; keys sorted, so that equal values encode to equal bytes.
    private static let fallback: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// Encodes `value`; returns its payload and, when the payload is an object of one member, that key. An
    /// encoder is taken from `spare` when it holds one, and given back to it after.
    package static func encode<Value: Encodable>(
        _ value: Value, keepingOnly filter: [BinaryPayload.PathStep]? = nil, reusing spare: Spare<BinaryPayloadEncoder>? = nil,
        direct: Bool = true
    ) throws -> (payload: [UInt8], caseName: String?) {
        if direct, let type = Value.self as? any BinaryPayloadEncodable.Type {
            return try encodeDirectly(value, as: type, keepingOnly: filter)
        }
        // A copy of exactly the payload's size, out of the buffer the encoder keeps (which a large value before may
        // have grown to 64 KiB).
        return try encode(value, keepingOnly: filter, reusing: spare) { bytes, caseName in (Array(bytes), caseName) }
    }

    /// ``encode(_:keepingOnly:reusing:)`` as `Data`, copied once out of the encoder's buffer (not at all, for the
    /// few bytes `Data` holds inline).
    package static func encodeData<Value: Encodable>(
        _ value: Value, keepingOnly filter: [BinaryPayload.PathStep]? = nil, reusing spare: Spare<BinaryPayloadEncoder>? = nil,
        direct: Bool = true
    ) throws -> Data {
        if direct, let type = Value.self as? any BinaryPayloadEncodable.Type {
            var payload = ByteBuffer(capacity: 64)
            _ = try encodeDirectly(value, as: type, keepingOnly: filter, into: &payload)
            return payload.withUnsafeBytes { Data($0) }
        }
        return try encode(value, keepingOnly: filter, reusing: spare) { bytes, _ in Data(bytes) }
    }

    /// Encodes `value` at the end of `buffer`, which it leaves as it was when it throws; returns the case name when
    /// the payload is an object of one member. How a writer puts many values into one buffer: a batch's entries
    /// are encoded one after another into the bytes the batch is written from, with no array of their own.
    package static func encode<Value: Encodable>(
        _ value: Value, keepingOnly filter: [BinaryPayload.PathStep]? = nil, reusing spare: Spare<BinaryPayloadEncoder>? = nil,
        direct: Bool = true, into buffer: inout ByteBuffer
    ) throws -> String? {
        if direct, let type = Value.self as? any BinaryPayloadEncodable.Type {
            return try encodeDirectly(value, as: type, keepingOnly: filter, into: &buffer)
        }
        return try encode(value, keepingOnly: filter, reusing: spare) { bytes, caseName in
            buffer.append(bytes)
            return caseName
        }
    }

    /// Encodes `value` through `Codable` and hands `output` the payload, in the encoder's own buffer (to be copied,
    /// not kept), and the case name.
    private static func encode<Value: Encodable, Output>(
        _ value: Value, keepingOnly filter: [BinaryPayload.PathStep]?, reusing spare: Spare<BinaryPayloadEncoder>?,
        output: (UnsafeRawBufferPointer, String?) -> Output
    ) throws -> Output {
        let encoder = spare?.take() ?? BinaryPayloadEncoder()
        // Set for every value: a kept encoder may have served a filtered one.
        encoder.filter = filter
        defer { if let spare { encoder.keep(in: spare) } }
        do {
            try encoder.encodeValue(value)
            let caseName = encoder.topLevelKeys == 1 ? encoder.firstKey : nil
            return encoder.bytes.withUnsafeBytes { output($0, caseName) }
        } catch is OutOfOrder {
            // The whole value, which has at any path what the filtered one would.
            let json = try fallback.encode(value)
            let payload = try BinaryPayload.fromJSON(json)
            return payload.withUnsafeBytes { output($0, Self.singleKey(of: payload)) }
        }
    }

    /// Encodes a `Value`, which is a `Direct`, through its own ``BinaryPayloadEncodable`` conformance, into an
    /// array that becomes the payload as it is (no encoder, no copy). A conformance that wrote other than one
    /// value is refused, so that no malformed payload reaches the log.
    package static func encodeDirectly<Value, Direct: BinaryPayloadEncodable>(
        _ value: Value, as direct: Direct.Type, keepingOnly filter: [BinaryPayload.PathStep]? = nil
    ) throws -> (payload: [UInt8], caseName: String?) {
        var payload = ByteBuffer(capacity: 64)
        let caseName = try encodeDirectly(value, as: direct, keepingOnly: filter, into: &payload)
        return (payload.array, caseName)
    }

    /// ``encodeDirectly(_:as:keepingOnly:)`` at the end of `buffer`, which it leaves as it was when it throws.
    package static func encodeDirectly<Value, Direct: BinaryPayloadEncodable>(
        _ value: Value, as direct: Direct.Type, keepingOnly filter: [BinaryPayload.PathStep]? = nil, into buffer: inout ByteBuffer
    ) throws -> String? {
        // `Value` is `Direct`, which the cast that found the conformance established.
        try BinaryPayloadWriter.write(unsafeBitCast(value, to: Direct.self), keepingOnly: filter, into: &buffer)
    }

    /// The largest buffer kept for the next value: the encoder of a large state gives its memory back.
    static let largestKeptBuffer = 64 << 10

    /// Readies the encoder for the next value and keeps it in `spare`, with its buffers unless they grew large.
    private func keep(in spare: Spare<BinaryPayloadEncoder>) {
        guard bytes.capacity <= Self.largestKeptBuffer else { return }
        reset()
        spare.giveBack(self)
    }

    /// Readies a used encoder for the next value, keeping its buffers. The containers and the coding path are empty
    /// after every value that encoded to the end, and emptying an empty array still cost about 80 instructions.
    private func reset() {
        bytes.truncate(to: 0)
        if !open.isEmpty { open.removeAll(keepingCapacity: true) }
        if !codingPath.isEmpty { codingPath.removeAll(keepingCapacity: true) }
        nextFrame = 1
        slot = Slot(start: 0, frame: 0)
        topLevelKeys = 0
        firstKey = nil
    }

    /// The key of a payload that is an object of exactly one member.
    private static func singleKey(of payload: [UInt8]) -> String? {
        payload.withUnsafeBytes { bytes -> String? in
            var reader = BinaryPayload.Reader(bytes)
            // Thrown errors are caught, not made optional: `try?` would read a malformed end as the object's end.
            do {
                guard try reader.byte() == BinaryPayload.object, let length = try reader.keyLength() else { return nil }
                let key = try reader.text(length)
                try reader.skipValue()
                return try reader.keyLength() == nil ? key : nil
            } catch {
                return nil
            }
        }
    }

    // MARK: Values

    /// Encodes one value at the current position: the heart of the streaming.
    func encodeValue<Value: Encodable>(_ value: Value) throws {
        let saved = slot
        let depth = open.count
        slot = Slot(start: bytes.count, frame: 0)
        defer { slot = saved }
        // Foundation's JSON forms of these, so that JSON and binary payloads render alike.
        if Value.self == Data.self {
            BinaryPayload.appendString((value as! Data).base64EncodedString(), to: &bytes)
        } else if Value.self == URL.self {
            BinaryPayload.appendString((value as! URL).absoluteString, to: &bytes)
        } else if Value.self == Decimal.self {
            BinaryPayload.appendDecimal((value as! Decimal).description, to: &bytes)
        } else if Value.self == [String].self {
            // In one pass, as `Array.encode(to:)` would through a container; the bytes are the same.
            appendArray(unsafeBitCast(value, to: [String].self)) { BinaryPayload.appendString($0, to: &$1) }
        } else if Value.self == [Int].self {
            appendArray(unsafeBitCast(value, to: [Int].self)) { BinaryPayload.appendInteger(Int64($0), to: &$1) }
        } else if let step = elementStep, let array = value as? any FilterableArray {
            try array.encode(keeping: step, into: self)
        } else {
            try value.encode(to: self)
        }
        close(downTo: depth)
        if bytes.count == slot.start {
            // A value that encoded nothing is an empty object, as in JSON.
            bytes.append(BinaryPayload.object)
            bytes.append(0)
        }
    }

    /// The filter's step for the elements of an array about to be encoded here, when it is one that arrays answer
    /// (an index, or `count`): the only case in which an array is worth writing apart (``FilterableArray``).
    private var elementStep: BinaryPayload.PathStep? {
        guard let filter, open.count < filter.count else { return nil }
        switch filter[open.count] {
        case .key: return nil
        case let step: return step
        }
    }

    /// An array of scalar `elements`, each written by `append`, or a null where the filter leaves it out (as
    /// ``element(_:in:)`` does): the filter's step for the array's elements, if it has one, keeps one index or none.
    private func appendArray<Element>(_ elements: [Element], _ append: (Element, inout ByteBuffer) -> Void) {
        bytes.append(BinaryPayload.array)
        if let filter, open.count < filter.count {
            nulls(around: filter[open.count], count: elements.count) { append(elements[$0], &bytes) }
        } else {
            for element in elements { append(element, &bytes) }
        }
        bytes.append(BinaryPayload.arrayEnd)
    }

    /// Opens an array of `count` elements and writes what `step` keeps of it: the element `encodeElement` writes
    /// at the kept index, if any, and nulls for the rest (``FilterableArray``); the array closes with the value.
    func encodeArray(count: Int, keeping step: BinaryPayload.PathStep, _ encodeElement: (Int) throws -> Void) throws {
        let frame = try openContainer(isArray: true)
        try nulls(around: step, count: count) { index in
            try use(frame)
            try encodeElement(index)
            try use(frame)
        }
    }

    /// Nulls for the `count` elements of an array, but for the one `step` keeps, if any, which `keep` writes.
    /// Nulls in runs, not one by one: a path's `count` over a long array keeps only its length.
    private func nulls(around step: BinaryPayload.PathStep, count: Int, _ keep: (Int) throws -> Void) rethrows {
        if case .index(let kept) = step, (0..<count).contains(kept) {
            bytes.append(BinaryPayload.null, count: kept)
            try keep(kept)
            bytes.append(BinaryPayload.null, count: count - kept - 1)
        } else {
            bytes.append(BinaryPayload.null, count: count)
        }
    }

    /// A `Float` as the double of its shortest text, so that `0.1` renders as `0.1`, as JSON writes it.
    func appendFloat(_ value: Float) throws {
        try appendDouble(value.isFinite ? Double("\(value)") ?? Double(value) : Double(value))
    }

    func appendDouble(_ value: Double) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath, debugDescription: "\(value) is not a finite number, which the binary codec cannot hold."))
        }
        BinaryPayload.appendDouble(value, to: &bytes)
    }

    // MARK: Containers

    /// Opens a container for the value being encoded, or returns the one it opened already.
    private func openContainer(isArray: Bool) throws -> Int {
        if slot.frame != 0 {
            // The value asks for its container again: the same one, if it is still open and of the same kind.
            try use(slot.frame)
            guard open.last?.isArray == isArray else { throw OutOfOrder() }
            return slot.frame
        }
        guard bytes.count == slot.start else { throw OutOfOrder() }
        let id = nextFrame
        nextFrame += 1
        open.append(Frame(id: id, isArray: isArray))
        slot.frame = id
        bytes.append(isArray ? BinaryPayload.array : BinaryPayload.object)
        return id
    }

    /// Makes `frame` the innermost open container, closing the ones inside it; throws if it was closed.
    @inline(__always)
    func use(_ frame: Int) throws {
        if open.last?.id == frame { return }
        guard let index = open.lastIndex(where: { $0.id == frame }) else { throw OutOfOrder() }
        close(downTo: index + 1)
    }

    private func close(downTo depth: Int) {
        while open.count > depth {
            let frame = open.removeLast()
            if let discardFrom = frame.discardFrom {
                bytes.truncate(to: discardFrom)
            } else {
                bytes.append(frame.isArray ? BinaryPayload.arrayEnd : 0)
            }
        }
    }

    /// Writes an object member's key into `frame`; `false` when the filter leaves the value out: the member is
    /// then not written at all, or for a ``BinaryPayload/PathStep/count`` step, written with a null for its value.
    func key(_ key: some CodingKey, in frame: Int) throws -> Bool {
        try use(frame)
        let name = key.stringValue
        var kept = true
        if let filter, open.count <= filter.count {
            switch filter[open.count - 1] {
            case .key(let wanted) where wanted == name: break
            case .count: kept = name == "count"
            default: return false
            }
        }
        if open.count == 1 {
            topLevelKeys += 1
            if topLevelKeys == 1 { firstKey = name }
        }
        BinaryPayload.appendKey(name, to: &bytes)
        if !kept { bytes.append(BinaryPayload.null) }
        return kept
    }

    /// Prepares `frame`, an array, for its element `index`; `false`, writing a null in its place, when the filter
    /// leaves it out.
    func element(_ index: Int, in frame: Int) throws -> Bool {
        try use(frame)
        if let filter, open.count <= filter.count, filter[open.count - 1] != .index(index) {
            bytes.append(BinaryPayload.null)
            return false
        }
        return true
    }

    /// Encodes `value` as a nested value under `key`, keeping the coding path for errors.
    func encodeNested<Value: Encodable>(_ value: Value, key: any CodingKey) throws {
        codingPath.append(key)
        defer { codingPath.removeLast() }
        try encodeValue(value)
    }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        do {
            return keyedContainer(type, frame: try openContainer(isArray: false))
        } catch {
            return keyedContainer(type, frame: -1)
        }
    }

    /// How many of a value's first frames have their keyed containers kept (``keyedContainer(_:frame:)``).
    private static let keptFrames = 4

    /// Keyed containers kept from value to value, by key type and then frame.
    @exclusivity(unchecked) private var keptContainers: [ObjectIdentifier: [AnyObject?]] = [:]
    /// The kept containers used last, in 32 slots by key type and frame, looked at before ``keptContainers``: hashing
    /// the key type for the dictionary cost about 90 instructions a container, twice for every enum value.
    @exclusivity(unchecked) private var recentContainers = [(type: UInt, frame: Int, kept: AnyObject?)](
        repeating: (0, 0, nil), count: 32)

    /// A kept container, boxed so that containers of every key type sit in one table.
    private final class Kept<Key: CodingKey> {
        let container: KeyedEncodingContainer<Key>
        init(_ container: KeyedEncodingContainer<Key>) { self.container = container }
    }

    /// The keyed container of `frame`. A keyed container is nothing but its encoder and frame number, and frame
    /// numbers start again at 1 with every value, so the one made for a key type and one of a value's first frames
    /// serves every later value: making one costs `Codable`'s metadata lookups for the generic container type, for
    /// the standard library's box around it and for a witness table, and the box's allocation (1,500 to 1,900
    /// instructions against 600 for a kept one), twice for every enum value.
    func keyedContainer<Key: CodingKey>(_ type: Key.Type, frame: Int) -> KeyedEncodingContainer<Key> {
        guard frame >= 1, frame <= Self.keptFrames else { return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, frame: frame)) }
        let id = ObjectIdentifier(type)
        let bits = UInt(bitPattern: id), slot = Int(truncatingIfNeeded: (bits >> 4) &+ UInt(frame)) & 31
        // Both tables hold a `Kept<Key>` under `Key`'s identifier and nothing else.
        if recentContainers[slot].type == bits, recentContainers[slot].frame == frame, let kept = recentContainers[slot].kept {
            return unsafeDowncast(kept, to: Kept<Key>.self).container
        }
        let kept: AnyObject
        if let found = keptContainers[id]?[frame - 1] {
            kept = found
        } else {
            kept = Kept(KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, frame: frame)))
            keptContainers[id, default: Array(repeating: nil, count: Self.keptFrames)][frame - 1] = kept
        }
        recentContainers[slot] = (bits, frame, kept)
        return unsafeDowncast(kept, to: Kept<Key>.self).container
    }

    package func unkeyedContainer() -> any UnkeyedEncodingContainer {
        do {
            return UnkeyedContainer(encoder: self, frame: try openContainer(isArray: true))
        } catch {
            return UnkeyedContainer(encoder: self, frame: -1)
        }
    }

    package func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(encoder: self, start: bytes.count)
    }

    /// Opens a nested container inside `frame`, after its key or as its next element; one the filter left out
    /// (`kept` false) takes writes like any other and is cut out when it closes.
    func nested(isArray: Bool, kept: Bool = true) -> Int {
        let id = nextFrame
        nextFrame += 1
        open.append(Frame(id: id, isArray: isArray, discardFrom: kept ? nil : bytes.count))
        bytes.append(isArray ? BinaryPayload.array : BinaryPayload.object)
        return id
    }
}

// MARK: - Keyed

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    /// Unowned, since the encoder keeps its containers (``BinaryPayloadEncoder/keyedContainer(_:frame:)``); a
    /// container is used only while its value encodes.
    unowned let encoder: BinaryPayloadEncoder
    let frame: Int

    var codingPath: [any CodingKey] { encoder.codingPath }

    /// Writes the key; `false` when the value is to be left out (``BinaryPayloadEncoder/filter``).
    private func key(_ key: Key) throws -> Bool { try encoder.key(key, in: frame) }

    mutating func encodeNil(forKey key: Key) throws { guard try self.key(key) else { return }; encoder.append(BinaryPayload.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { guard try self.key(key) else { return }; encoder.append(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { guard try self.key(key) else { return }; encoder.append(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { guard try self.key(key) else { return }; try encoder.appendDouble(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { guard try self.key(key) else { return }; try encoder.appendFloat(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { guard try self.key(key) else { return }; encoder.append(Int64(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { guard try self.key(key) else { return }; encoder.append(Int64(value)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { guard try self.key(key) else { return }; encoder.append(Int64(value)) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { guard try self.key(key) else { return }; encoder.append(Int64(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { guard try self.key(key) else { return }; encoder.append(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { guard try self.key(key) else { return }; encoder.append(UInt64(value)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { guard try self.key(key) else { return }; encoder.append(UInt64(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { guard try self.key(key) else { return }; encoder.append(UInt64(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { guard try self.key(key) else { return }; encoder.append(UInt64(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { guard try self.key(key) else { return }; encoder.append(value) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        guard try self.key(key) else { return }
        try encoder.encodeNested(value, key: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let frame = (try? self.key(key)).map { encoder.nested(isArray: false, kept: $0) } ?? -1
        return encoder.keyedContainer(keyType, frame: frame)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let frame = (try? self.key(key)).map { encoder.nested(isArray: true, kept: $0) } ?? -1
        return UnkeyedContainer(encoder: encoder, frame: frame)
    }

    mutating func superEncoder() -> any Encoder { OutOfOrderEncoder(codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { OutOfOrderEncoder(codingPath: codingPath) }
}

// MARK: - Unkeyed

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: BinaryPayloadEncoder
    let frame: Int
    private(set) var count = 0

    init(encoder: BinaryPayloadEncoder, frame: Int) {
        self.encoder = encoder
        self.frame = frame
    }

    var codingPath: [any CodingKey] { encoder.codingPath }

    /// Starts the next element; `false` when it is to be left out (``BinaryPayloadEncoder/filter``), a null
    /// holding its place.
    private mutating func next() throws -> Bool {
        defer { count += 1 }
        return try encoder.element(count, in: frame)
    }

    mutating func encodeNil() throws { guard try next() else { return }; encoder.append(BinaryPayload.null) }
    mutating func encode(_ value: Bool) throws { guard try next() else { return }; encoder.append(value) }
    mutating func encode(_ value: String) throws { guard try next() else { return }; encoder.append(value) }
    mutating func encode(_ value: Double) throws { guard try next() else { return }; try encoder.appendDouble(value) }
    mutating func encode(_ value: Float) throws { guard try next() else { return }; try encoder.appendFloat(value) }
    mutating func encode(_ value: Int) throws { guard try next() else { return }; encoder.append(Int64(value)) }
    mutating func encode(_ value: Int8) throws { guard try next() else { return }; encoder.append(Int64(value)) }
    mutating func encode(_ value: Int16) throws { guard try next() else { return }; encoder.append(Int64(value)) }
    mutating func encode(_ value: Int32) throws { guard try next() else { return }; encoder.append(Int64(value)) }
    mutating func encode(_ value: Int64) throws { guard try next() else { return }; encoder.append(value) }
    mutating func encode(_ value: UInt) throws { guard try next() else { return }; encoder.append(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { guard try next() else { return }; encoder.append(UInt64(value)) }
    mutating func encode(_ value: UInt16) throws { guard try next() else { return }; encoder.append(UInt64(value)) }
    mutating func encode(_ value: UInt32) throws { guard try next() else { return }; encoder.append(UInt64(value)) }
    mutating func encode(_ value: UInt64) throws { guard try next() else { return }; encoder.append(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        guard try next() else { return }
        try encoder.encodeNested(value, key: IndexKey(intValue: count - 1))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let frame = (try? next()).map { encoder.nested(isArray: false, kept: $0) } ?? -1
        return encoder.keyedContainer(keyType, frame: frame)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let frame = (try? next()).map { encoder.nested(isArray: true, kept: $0) } ?? -1
        return UnkeyedContainer(encoder: encoder, frame: frame)
    }

    mutating func superEncoder() -> any Encoder { OutOfOrderEncoder(codingPath: codingPath) }
}

// MARK: - Single value

private struct SingleValueContainer: SingleValueEncodingContainer {
    let encoder: BinaryPayloadEncoder
    /// Where the value goes: encoding twice, or after a container, is out of order.
    let start: Int

    var codingPath: [any CodingKey] { encoder.codingPath }

    private func check() throws {
        guard encoder.bytes.count == start else { throw BinaryPayloadEncoder.OutOfOrder() }
    }

    mutating func encodeNil() throws { try check(); encoder.append(BinaryPayload.null) }
    mutating func encode(_ value: Bool) throws { try check(); encoder.append(value) }
    mutating func encode(_ value: String) throws { try check(); encoder.append(value) }
    mutating func encode(_ value: Double) throws { try check(); try encoder.appendDouble(value) }
    mutating func encode(_ value: Float) throws { try check(); try encoder.appendFloat(value) }
    mutating func encode(_ value: Int) throws { try check(); encoder.append(Int64(value)) }
    mutating func encode(_ value: Int8) throws { try check(); encoder.append(Int64(value)) }
    mutating func encode(_ value: Int16) throws { try check(); encoder.append(Int64(value)) }
    mutating func encode(_ value: Int32) throws { try check(); encoder.append(Int64(value)) }
    mutating func encode(_ value: Int64) throws { try check(); encoder.append(value) }
    mutating func encode(_ value: UInt) throws { try check(); encoder.append(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { try check(); encoder.append(UInt64(value)) }
    mutating func encode(_ value: UInt16) throws { try check(); encoder.append(UInt64(value)) }
    mutating func encode(_ value: UInt32) throws { try check(); encoder.append(UInt64(value)) }
    mutating func encode(_ value: UInt64) throws { try check(); encoder.append(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try check()
        try encoder.encodeValue(value)
    }
}

// MARK: - Helpers

extension BinaryPayloadEncoder {
    func append(_ tag: UInt8) { bytes.append(tag) }
    func append(_ value: Bool) { bytes.append(value ? BinaryPayload.true : BinaryPayload.false) }
    func append(_ value: String) { BinaryPayload.appendString(value, to: &bytes) }
    func append(_ value: Int64) { BinaryPayload.appendInteger(value, to: &bytes) }
    func append(_ value: UInt64) { BinaryPayload.appendUnsigned(value, to: &bytes) }
}

/// An array index as a coding key, for coding paths.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { return nil }

    /// The key `super`, under which a class encodes its superclass by default.
    static let superKey = SuperKey()

    struct SuperKey: CodingKey {
        var stringValue: String { "super" }
        var intValue: Int? { nil }
        init() {}
        init?(stringValue: String) { return nil }
        init?(intValue: Int) { return nil }
    }
}

/// What a streaming encoder hands out where it cannot stream (a super encoder): any use of it sends the value
/// to the fallback.
private struct OutOfOrderEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Refusing<Key>(codingPath: codingPath))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { Refusing<IndexKey>(codingPath: codingPath) }
    func singleValueContainer() -> any SingleValueEncodingContainer { Refusing<IndexKey>(codingPath: codingPath) }
}

/// A container that throws ``BinaryPayloadEncoder/OutOfOrder`` on every write.
private struct Refusing<Key: CodingKey>: KeyedEncodingContainerProtocol, UnkeyedEncodingContainer, SingleValueEncodingContainer {
    let codingPath: [any CodingKey]
    var count: Int { 0 }

    func encodeNil() throws { throw BinaryPayloadEncoder.OutOfOrder() }
    func encode<T: Encodable>(_ value: T) throws { throw BinaryPayloadEncoder.OutOfOrder() }
    func encodeNil(forKey key: Key) throws { throw BinaryPayloadEncoder.OutOfOrder() }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw BinaryPayloadEncoder.OutOfOrder() }
    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(Refusing<NestedKey>(codingPath: codingPath))
    }
    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(Refusing<NestedKey>(codingPath: codingPath))
    }
    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { self }
    func superEncoder() -> any Encoder { OutOfOrderEncoder(codingPath: codingPath) }
    func superEncoder(forKey key: Key) -> any Encoder { OutOfOrderEncoder(codingPath: codingPath) }
    var allKeys: [Key] { [] }
}

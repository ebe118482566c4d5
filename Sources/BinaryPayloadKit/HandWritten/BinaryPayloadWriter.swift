/// Writes one value in the binary payload format (``BinaryPayload``), for a ``BinaryPayloadEncodable``
/// conformance: scalars with `encode(_:)`, objects with ``encodeObject(_:)``, arrays with ``encodeArray(_:)``.
///
/// Containers are written inside a closure, which closes them: a conformance cannot leave one open. The writer
/// counts the values written in each place where one belongs, so that a conformance that writes none or two there
/// is caught and its payload refused rather than logged. It learns the value's case name as
/// the `Codable` path does, from the single key of a top-level object.
///
/// Not copyable: the writer owns the bytes it appends to, and a conformance has it only while it writes.
public struct BinaryPayloadWriter: ~Copyable {
    /// The payload so far.
    @usableFromInline var bytes: ByteBuffer
    /// How many containers are open.
    @usableFromInline var depth = 0
    /// How many values were written in the current place: the top level, a member or an element.
    @usableFromInline var values = 0
    /// Whether some place got other than one value.
    @usableFromInline var isMalformed = false
    /// The keys of the top-level object, counted as they are written, and the first of them.
    @usableFromInline var topLevelKeys = 0
    @usableFromInline var firstKey: String?
    /// When set, only what lies on this path is written, as the `Codable` path writes it for
    /// EventLogKit's `BinaryLogCodec.encode(_:keepingOnly:)`: members off the path are left out and elements off it are
    /// nulls, and what is left out is never asked to write itself.
    @usableFromInline var filter: [BinaryPayload.PathStep]?

    /// Writes `value` through its own ``BinaryPayloadEncodable`` conformance at the end of `buffer`, which it leaves as
    /// it was when it throws, or when the conformance wrote other than one value somewhere (a malformed payload is
    /// refused, never logged); returns the case name. Inlinable: a log's writer thread calls it for every value,
    /// from code made for the conformance's type, and a call of its own cost each value a frame.
    @inlinable package static func write<Value: BinaryPayloadEncodable>(
        _ value: Value, keepingOnly filter: [BinaryPayload.PathStep]? = nil, into buffer: inout ByteBuffer
    ) throws -> String? {
        let start = buffer.count
        // The buffer is swapped into the writer and back: it has one owner at a time. Swapped back on each path, not
        // in a `defer` (see ``encodeObject(_:)``).
        var writer = BinaryPayloadWriter(appendingTo: &buffer)
        writer.filter = filter
        do {
            try value.encode(to: &writer)
        } catch {
            _ = writer.finish(into: &buffer)
            buffer.truncate(to: start)
            throw error
        }
        let (caseName, isWellFormed) = writer.finish(into: &buffer)
        guard isWellFormed else {
            buffer.truncate(to: start)
            throw malformed(value)
        }
        if buffer.count == start {
            // A value that wrote nothing is an empty object, as through `Codable`.
            buffer.append(BinaryPayload.object)
            buffer.append(0)
        }
        return caseName
    }

    /// The error of `value`'s conformance, which wrote other than one value in some place.
    @usableFromInline static func malformed<Value>(_ value: Value) -> EncodingError {
        .invalidValue(value, EncodingError.Context(
            codingPath: [],
            debugDescription: "The BinaryPayloadEncodable conformance of \(Value.self) wrote other than one value in some place: a member, an element or the whole."
        ))
    }

    /// A writer that appends to `buffer`, which it takes (leaving an empty one) until ``finish(into:)``.
    @usableFromInline init(appendingTo buffer: inout ByteBuffer) {
        bytes = ByteBuffer(capacity: 0)
        swap(&bytes, &buffer)
    }

    /// How the ``filter`` treats a member named `key` of the object being written.
    @usableFromInline enum Kept {
        case whole, nullValue, none
    }

    /// How the ``filter`` treats the member `key` of the object being written.
    @usableFromInline func keeps(key: String) -> Kept {
        guard let filter, depth <= filter.count else { return .whole }
        switch filter[depth - 1] {
        case .key(let wanted) where wanted == key: return .whole
        case .count: return key == "count" ? .whole : .nullValue
        default: return .none
        }
    }

    /// Whether the ``filter`` keeps element `index` of the array being written.
    @usableFromInline func keeps(element index: Int) -> Bool {
        guard let filter, depth <= filter.count else { return true }
        return filter[depth - 1] == .index(index)
    }

    /// Swaps the written bytes into `buffer` (the writer keeps what `buffer` held), and returns the case name when
    /// the value is an object of one member and whether the payload is one well-formed value (or none, which
    /// `Codable` also writes as an empty object).
    @usableFromInline mutating func finish(into buffer: inout ByteBuffer) -> (caseName: String?, isWellFormed: Bool) {
        swap(&buffer, &bytes)
        // Taken, not copied: a copy counted a reference to the case name that the writer's end dropped again.
        return (topLevelKeys == 1 ? firstKey.take() : nil, !isMalformed && values <= 1)
    }

    /// Runs `write`, which must write exactly one value.
    @inlinable mutating func one(_ write: (inout BinaryPayloadWriter) throws -> Void) rethrows {
        let outer = values
        values = 0
        try write(&self)
        if values != 1 { isMalformed = true }
        values = outer
    }

    // MARK: Scalars

    /// Writes a null.
    @inlinable public mutating func encodeNil() {
        values += 1
        bytes.append(BinaryPayload.null)
    }

    /// Writes a Boolean.
    @inlinable public mutating func encode(_ value: Bool) {
        values += 1
        bytes.append(value ? BinaryPayload.true : BinaryPayload.false)
    }

    /// Writes a signed integer.
    @inlinable public mutating func encode(_ value: Int64) {
        values += 1
        BinaryPayload.appendInteger(value, to: &bytes)
    }

    /// Writes an `Int`.
    @inlinable public mutating func encode(_ value: Int) {
        encode(Int64(value))
    }

    /// Writes an unsigned integer: as an integer up to `Int64.max`, as the binary codec writes every number.
    @inlinable public mutating func encode(_ value: UInt64) {
        values += 1
        BinaryPayload.appendUnsigned(value, to: &bytes)
    }

    /// Writes a `Double`; throws `EncodingError.invalidValue` for an infinity or a NaN, which JSON cannot hold.
    @inlinable public mutating func encode(_ value: Double) throws {
        guard value.isFinite else { throw Self.notFinite(value) }
        values += 1
        BinaryPayload.appendDouble(value, to: &bytes)
    }

    /// Writes a `Float` as the `Double` of its shortest text, as the binary codec does, so that `0.1` renders `0.1`.
    public mutating func encode(_ value: Float) throws {
        try encode(value.isFinite ? Double("\(value)") ?? Double(value) : Double(value))
    }

    /// Writes a string.
    @inlinable public mutating func encode(_ value: String) {
        values += 1
        BinaryPayload.appendString(value, to: &bytes)
    }

    // MARK: Containers

    /// Writes any ``BinaryPayloadEncodable`` value through its conformance.
    @inlinable public mutating func encode<Value: BinaryPayloadEncodable>(_ value: Value) throws {
        try value.encode(to: &self)
    }

    /// Writes an object whose members `members` writes.
    @inlinable public mutating func encodeObject(_ members: (inout Keyed) throws -> Void) rethrows {
        values += 1
        bytes.append(BinaryPayload.object)
        depth += 1
        try writeMembers(members)
        bytes.append(0)
        depth -= 1
    }

    /// Runs `members` with this writer moved into an object's container, and moves it back. Moved, not copied: a
    /// copy would count a second reference to the buffer and make the next append copy it, and an empty writer
    /// swapped in would cost its fields' counts to make and destroy, for every object of every value. Moved back on
    /// each path, not in a `defer`: release builds of Swift 6.3 lost the buffer that way, as they did when the
    /// container wrote through a pointer to the writer.
    @inlinable mutating func writeMembers(_ members: (inout Keyed) throws -> Void) rethrows {
        var keyed = Keyed(consume self)
        do {
            try members(&keyed)
        } catch {
            self = (consume keyed).writer
            throw error
        }
        self = (consume keyed).writer
    }

    /// Writes an enum case as a synthesized `Codable` conformance does: an object of one member named after the
    /// case, whose value is an object of the associated values that `associatedValues` writes (none for a case
    /// without them).
    @inlinable public mutating func encodeCase(_ name: String, _ associatedValues: (inout Keyed) throws -> Void) rethrows {
        // A filter decides member by member, as in any object.
        guard filter == nil else {
            return try encodeObject { object in try object.encode(forKey: name) { try $0.encodeObject(associatedValues) } }
        }
        // Otherwise both objects are opened at once, with the bytes and counts of the general way: the writer moves
        // into one container and back, not two, for every value of an enum a log's writer thread encodes.
        values += 1
        bytes.append(BinaryPayload.object)
        depth += 1
        appendKey(name)
        bytes.append(BinaryPayload.object)
        depth += 1
        try writeMembers(associatedValues)
        bytes.append(0)
        bytes.append(0)
        depth -= 2
    }

    /// Writes an array whose elements `elements` writes.
    @inlinable public mutating func encodeArray(_ elements: (inout Unkeyed) throws -> Void) rethrows {
        values += 1
        bytes.append(BinaryPayload.array)
        depth += 1
        var unkeyed = Unkeyed(consume self)
        do {
            try elements(&unkeyed)
        } catch {
            self = (consume unkeyed).writer
            throw error
        }
        self = (consume unkeyed).writer
        bytes.append(BinaryPayload.arrayEnd)
        depth -= 1
    }

    /// The members of an object being written, made only by ``BinaryPayloadWriter/encodeObject(_:)`` for the
    /// closure it runs, which has the writer while it runs.
    public struct Keyed: ~Copyable {
        @usableFromInline var writer: BinaryPayloadWriter

        @usableFromInline init(_ writer: consuming BinaryPayloadWriter) {
            self.writer = writer
        }

        /// Writes a member: `key`, then the value `value` writes.
        @inlinable public mutating func encode(forKey key: String, _ value: (inout BinaryPayloadWriter) throws -> Void) rethrows {
            if writer.filter != nil {
                switch writer.keeps(key: key) {
                case .whole: break
                case .nullValue: return nullMember(key)
                case .none: return
                }
            }
            writer.appendKey(key)
            try writer.one(value)
        }

        /// Writes a member: `key`, then `value`.
        @inlinable public mutating func encode<Value: BinaryPayloadEncodable>(_ value: Value, forKey key: String) throws {
            try encode(forKey: key) { try value.encode(to: &$0) }
        }

        /// A member the filter keeps only the key of.
        @usableFromInline mutating func nullMember(_ key: String) {
            writer.appendKey(key)
            writer.one { $0.encodeNil() }
        }

        /// Writes a member when `value` is not nil, and nothing when it is, as a synthesized conformance writes
        /// an optional property.
        @inlinable public mutating func encodeIfPresent<Value: BinaryPayloadEncodable>(_ value: Value?, forKey key: String) throws {
            guard let value else { return }
            try encode(value, forKey: key)
        }
    }

    /// The elements of an array being written, made only by ``BinaryPayloadWriter/encodeArray(_:)`` for the
    /// closure it runs, which has the writer while it runs.
    public struct Unkeyed: ~Copyable {
        @usableFromInline var writer: BinaryPayloadWriter
        /// The index of the next element.
        @usableFromInline var index = 0

        @usableFromInline init(_ writer: consuming BinaryPayloadWriter) {
            self.writer = writer
        }

        /// Writes the element `element` writes.
        @inlinable public mutating func encode(_ element: (inout BinaryPayloadWriter) throws -> Void) rethrows {
            defer { index += 1 }
            if writer.filter != nil, !writer.keeps(element: index) { return writer.one { $0.encodeNil() } }
            try writer.one(element)
        }

        /// Writes `element`.
        @inlinable public mutating func encode<Value: BinaryPayloadEncodable>(_ element: Value) throws {
            try encode { try element.encode(to: &$0) }
        }
    }

    // MARK: Bytes

    @inlinable mutating func appendKey(_ key: String) {
        if depth == 1 {
            topLevelKeys += 1
            if topLevelKeys == 1 { firstKey = key }
        }
        BinaryPayload.appendKey(key, to: &bytes)
    }

    @usableFromInline static func notFinite(_ value: Double) -> EncodingError {
        .invalidValue(value, EncodingError.Context(codingPath: [], debugDescription: "\(value) is not a finite number, which JSON cannot hold."))
    }
}

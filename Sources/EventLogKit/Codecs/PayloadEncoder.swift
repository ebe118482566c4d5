import BinaryPayloadKit

/// How a log encodes values of one type, resolved once for the type (``EventLog/payloadEncoder(for:)``): it writes a
/// value's payload at the end of a buffer (left as it was when encoding throws), keeping only what lies on a path when
/// given one, and returns its case name. Its errors are the codec's.
///
/// A struct around the function rather than the function alone, so that code holding a value of a type parameter
/// known to be `Value` can use this encoder as the other parameter's (``cast(to:)``): a value cast to `Value` instead
/// would be a copy, a count on each of its references made and dropped for every value the writer thread encodes.
///
/// `@usableFromInline` as well as `package`, as `Varint`, so that other modules inline its calls.
@usableFromInline package struct PayloadEncoder<Value>: Sendable {
    /// The encoding function.
    @usableFromInline let encode: @Sendable (Value, _ keepingOnly: [BinaryPayload.PathStep]?, _ into: inout ByteBuffer) throws -> String?

    /// An encoder that runs `encode`.
    package init(_ encode: @escaping @Sendable (Value, _ keepingOnly: [BinaryPayload.PathStep]?, _ into: inout ByteBuffer) throws -> String?) {
        self.encode = encode
    }

    /// Writes `value`'s payload, or only what lies on `path`, at the end of `buffer`; returns its case name.
    @inlinable package func callAsFunction(_ value: Value, keepingOnly path: [BinaryPayload.PathStep]? = nil, into buffer: inout ByteBuffer) throws -> String? {
        try encode(value, path, &buffer)
    }

    /// This encoder as one of `Other`, which the caller knows to be `Value` (a cast or a check established it). The
    /// function is the same: both types are type parameters here, so it takes its value by reference either way.
    /// A cast of the function itself would wrap it, twice, in functions that copy the value.
    @inlinable package func cast<Other>(to type: Other.Type) -> PayloadEncoder<Other> {
        precondition(Other.self == Value.self, "a payload encoder of \(Value.self) is not one of \(Other.self)")
        return unsafeBitCast(self, to: PayloadEncoder<Other>.self)
    }
}

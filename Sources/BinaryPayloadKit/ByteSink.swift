/// Where bytes are appended one or a run at a time: an array of bytes, or a ``ByteBuffer``, which skips the array's
/// uniqueness check and generic append on every write. The payload format's writing helpers take either.
@usableFromInline package protocol ByteSink: ~Copyable {
    /// Appends `byte`.
    mutating func append(_ byte: UInt8)
    /// Appends `bytes`.
    mutating func append(_ bytes: UnsafeRawBufferPointer)
    /// Appends `lead`, then `bytes`: a short key's or string's length and text.
    mutating func append(_ lead: UInt8, then bytes: UnsafeRawBufferPointer)
}

extension ByteSink where Self: ~Copyable {
    /// Appends `lead`, then `bytes`, one after the other.
    @inlinable package mutating func append(_ lead: UInt8, then bytes: UnsafeRawBufferPointer) {
        append(lead)
        append(bytes)
    }
}

extension ByteBuffer: ByteSink {}

extension Array: ByteSink where Element == UInt8 {
    /// Appends `bytes`.
    @inlinable package mutating func append(_ bytes: UnsafeRawBufferPointer) { append(contentsOf: bytes) }
}

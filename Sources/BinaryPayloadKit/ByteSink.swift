/// Where bytes are appended one or a run at a time: an array of bytes, or a ``ByteBuffer``, which skips the array's
/// uniqueness check and generic append on every write. The payload format's writing helpers take either.
@usableFromInline package protocol ByteSink: ~Copyable {
    /// Appends `byte`.
    mutating func append(_ byte: UInt8)
    /// Appends `bytes`.
    mutating func append(_ bytes: UnsafeRawBufferPointer)
}

extension ByteBuffer: ByteSink {}

extension Array: ByteSink where Element == UInt8 {
    /// Appends `bytes`.
    @inlinable package mutating func append(_ bytes: UnsafeRawBufferPointer) { append(contentsOf: bytes) }
}

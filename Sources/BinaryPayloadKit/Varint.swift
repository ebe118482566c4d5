/// Unsigned LEB128 varints, as the compact record header stores its numbers.
///
/// `@usableFromInline` as well as `package`: without it, Swift 6.3 compiles the `@inlinable` functions of a
/// `package` type into other modules (EventLogKit's blocks and index) as calls, never inline.
@usableFromInline package enum Varint {
    /// How many bytes `value` takes.
    @inlinable package static func size(_ value: UInt64) -> Int {
        var value = value
        var size = 1
        while value >= 0x80 {
            value >>= 7
            size += 1
        }
        return size
    }

    /// Appends `value` to `bytes`.
    @inlinable package static func append<Sink: ByteSink & ~Copyable>(_ value: UInt64, to bytes: inout Sink) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// Writes `value` at `offset`; returns the offset after it.
    @inlinable package static func write(_ value: UInt64, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        var value = value
        var offset = offset
        while value >= 0x80 {
            buffer[offset] = UInt8(truncatingIfNeeded: value) | 0x80
            value >>= 7
            offset += 1
        }
        buffer[offset] = UInt8(value)
        return offset + 1
    }

    /// The value at `offset` and the offset after it; `nil` when the bytes end inside it or it is longer than 64 bits.
    ///
    /// A value under 128, one byte, is read where this is called; a longer one by ``readLonger(_:at:)``. Most
    /// numbers of the format are that small (distances, kinds, lengths of names and short strings), and a call per
    /// number was most of what reading a block of entries cost.
    @inlinable @inline(__always) package static func read(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> (UInt64, Int)? {
        if offset < bytes.count, bytes[offset] < 0x80 { return (UInt64(bytes[offset]), offset + 1) }
        return readLonger(bytes, at: offset)
    }

    /// ``read(_:at:)`` for a value of any length.
    @usableFromInline package static func readLonger(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> (UInt64, Int)? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        var offset = offset
        while offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            guard shift < 63 || (shift == 63 && byte <= 1) else { return nil }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return (result, offset) }
            shift += 7
        }
        return nil
    }
}

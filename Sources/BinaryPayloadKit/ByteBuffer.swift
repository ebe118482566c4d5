/// A growable run of bytes with one owner, which appends to it: what a writer needs of `[UInt8]`, without the
/// uniqueness check and the generic append that an array runs for every write (about a hundred instructions to
/// append a few bytes, where this takes a comparison and a copy). Not copyable, so that no second owner can see
/// or write the bytes; its memory is freed with it. An empty one allocates nothing until it is appended to.
@usableFromInline package struct ByteBuffer: ~Copyable {
    /// The bytes; `nil` while the capacity is 0.
    @usableFromInline var base: UnsafeMutableRawPointer?
    /// How many bytes it holds.
    @usableFromInline package private(set) var count = 0
    /// How many it holds before it must grow.
    @usableFromInline package private(set) var capacity: Int

    /// Whether it holds no bytes.
    @inlinable package var isEmpty: Bool { count == 0 }

    /// An empty buffer with room for `capacity` bytes (none allocated for 0).
    package init(capacity: Int) {
        self.capacity = max(capacity, 0)
        base = capacity > 0 ? .allocate(byteCount: capacity, alignment: 1) : nil
    }

    deinit { base?.deallocate() }

    /// Appends `byte`.
    @inlinable @inline(__always) package mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: count + 1) }
        base.unsafelyUnwrapped.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// Appends `bytes`.
    @inlinable @inline(__always) package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        let added = bytes.count
        guard added > 0 else { return }
        if count + added > capacity { grow(toHold: count + added) }
        (base.unsafelyUnwrapped + count).copyMemory(from: bytes.baseAddress!, byteCount: added)
        count += added
    }

    /// Appends `lead`, then `bytes`, with one look at the room: a short key's or string's length and text, a few of
    /// them in every value a log's writer encodes. Up to 16 bytes are copied where this is called, as two words that
    /// overlap (or two halves of one, or three bytes below four): a call to `memcpy` cost more than such a copy.
    @inlinable @inline(__always) package mutating func append(_ lead: UInt8, then bytes: UnsafeRawBufferPointer) {
        let added = bytes.count
        if count + 1 + added > capacity { grow(toHold: count + 1 + added) }
        let start = base.unsafelyUnwrapped + count
        start.storeBytes(of: lead, as: UInt8.self)
        let target = start + 1
        switch added {
        case 0: break
        case 1..<4:
            // The first, middle and last bytes, which overlap below three: a loop here became a call to `memcpy`.
            target.storeBytes(of: bytes[0], as: UInt8.self)
            target.storeBytes(of: bytes[added >> 1], toByteOffset: added >> 1, as: UInt8.self)
            target.storeBytes(of: bytes[added - 1], toByteOffset: added - 1, as: UInt8.self)
        case 4..<8:
            target.storeBytes(of: bytes.loadUnaligned(as: UInt32.self), as: UInt32.self)
            target.storeBytes(of: bytes.loadUnaligned(fromByteOffset: added - 4, as: UInt32.self), toByteOffset: added - 4, as: UInt32.self)
        case 8...16:
            target.storeBytes(of: bytes.loadUnaligned(as: UInt64.self), as: UInt64.self)
            target.storeBytes(of: bytes.loadUnaligned(fromByteOffset: added - 8, as: UInt64.self), toByteOffset: added - 8, as: UInt64.self)
        default:
            target.copyMemory(from: bytes.baseAddress!, byteCount: added)
        }
        count += 1 + added
    }

    /// Appends the UTF-8 of `text`, read in place (`String.withUTF8` would need a copy of the string to call on,
    /// counting a reference to it); byte by byte for a string without contiguous UTF-8.
    @inlinable @inline(__always) package mutating func append(utf8Of text: String) {
        let appended: Void? = text.utf8.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        if appended == nil { for byte in text.utf8 { append(byte) } }
    }

    /// Appends what `write` writes at the end, in room for up to `maximum` bytes: it gets the room's start and returns
    /// how many bytes it wrote. For numbers of a few bytes each, written where they go instead of through a buffer.
    @inlinable @inline(__always) package mutating func append(upTo maximum: Int, _ write: (UnsafeMutableRawPointer) -> Int) {
        if count + maximum > capacity { grow(toHold: count + maximum) }
        let written = write(base.unsafelyUnwrapped + count)
        precondition(written >= 0 && written <= maximum, "wrote \(written) bytes in room for \(maximum)")
        count += written
    }

    /// Appends the bytes of `array`.
    package mutating func append(contentsOf array: [UInt8]) {
        array.withUnsafeBytes { append($0) }
    }

    /// Appends `count` zero bytes, for a header written in place later (``withUnsafeMutableBytes(_:)``).
    package mutating func appendZeros(_ count: Int) {
        append(0, count: count)
    }

    /// Appends `byte` `count` times.
    package mutating func append(_ byte: UInt8, count: Int) {
        guard count > 0 else { return }
        if self.count + count > capacity { grow(toHold: self.count + count) }
        (base.unsafelyUnwrapped + self.count).initializeMemory(as: UInt8.self, repeating: byte, count: count)
        self.count += count
    }

    /// Drops the bytes from offset `count` on.
    @usableFromInline package mutating func truncate(to count: Int) {
        precondition(count >= 0 && count <= self.count, "truncating \(self.count) bytes to \(count)")
        self.count = count
    }

    /// The bytes, for reading.
    @inlinable package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes, for writing in place.
    package mutating func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeMutableRawBufferPointer(start: base, count: count))
    }

    /// A copy of the bytes as an array.
    package var array: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Doubles the capacity, or more when `needed` asks for more; kept out of line, as it is rare.
    @usableFromInline @inline(never) mutating func grow(toHold needed: Int) {
        let grown = max(needed, capacity * 2, 64)
        let moved = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 1)
        if let base {
            moved.copyMemory(from: base, byteCount: count)
            base.deallocate()
        }
        base = moved
        capacity = grown
    }
}

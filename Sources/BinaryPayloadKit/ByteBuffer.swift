/// A growable run of bytes with one owner, which appends to it: what a writer needs of `[UInt8]`, without the
/// uniqueness check and the generic append that an array runs for every write (about a hundred instructions to
/// append a few bytes, where this takes a comparison and a copy). Not copyable, so that no second owner can see
/// or write the bytes; its memory is freed with it.
package struct ByteBuffer: ~Copyable {
    private var base: UnsafeMutableRawPointer
    /// How many bytes it holds.
    package private(set) var count = 0
    /// How many it holds before it must grow.
    package private(set) var capacity: Int

    /// An empty buffer with room for `capacity` bytes.
    package init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(byteCount: self.capacity, alignment: 1)
    }

    deinit { base.deallocate() }

    /// Appends `byte`.
    @inline(__always) package mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: count + 1) }
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// Appends `bytes`.
    @inline(__always) package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        let added = bytes.count
        guard added > 0 else { return }
        if count + added > capacity { grow(toHold: count + added) }
        (base + count).copyMemory(from: bytes.baseAddress!, byteCount: added)
        count += added
    }

    /// Appends `count` zero bytes, for a header written in place later (``withUnsafeMutableBytes(_:)``).
    package mutating func appendZeros(_ count: Int) {
        if self.count + count > capacity { grow(toHold: self.count + count) }
        (base + self.count).initializeMemory(as: UInt8.self, repeating: 0, count: count)
        self.count += count
    }

    /// The bytes, for reading.
    package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes, for writing in place.
    package mutating func withUnsafeMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeMutableRawBufferPointer(start: base, count: count))
    }

    /// Doubles the capacity, or more when `needed` asks for more; kept out of line, as it is rare.
    @inline(never) private mutating func grow(toHold needed: Int) {
        let grown = max(needed, capacity * 2)
        let moved = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 1)
        moved.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = moved
        capacity = grown
    }
}

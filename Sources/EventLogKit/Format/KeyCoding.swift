/// Database keys: unsigned integers in big-endian order, so LMDB's byte order is numeric order.
enum KeyCoding {
    /// The 8-byte key of an entry: its sequence number.
    static func sequence(_ sequence: UInt64) -> [UInt8] {
        withSequence(sequence) { Array($0) }
    }

    /// Calls `body` with ``sequence(_:)``'s key, made on the stack: a reader seeks by one for each entry it looks up
    /// away from the last, and an array's was an allocation.
    static func withSequence<Result, Failure: Error>(
        _ sequence: UInt64, _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try withUnsafeBytes(of: sequence.bigEndian) { (key) throws(Failure) in try body(key) }
    }

    /// The 4-byte key of a stream: its id.
    static func stream(_ id: UInt32) -> [UInt8] {
        withUnsafeBytes(of: id.bigEndian) { Array($0) }
    }

    /// Calls `body` with ``streamSequence(_:_:)``'s key, made on the stack: a writer makes two for each stream of each
    /// commit and a reader one for each seek in a stream, and an array's were an allocation and two appends.
    static func withStreamSequence<Result>(
        _ id: UInt32, _ sequence: UInt64, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        var words: (UInt32, UInt32, UInt32) = (0, 0, 0)
        return try withUnsafeMutableBytes(of: &words) { key in
            key.storeBytes(of: id.bigEndian, toByteOffset: 0, as: UInt32.self)
            key.storeBytes(of: sequence.bigEndian, toByteOffset: 4, as: UInt64.self)
            return try body(UnsafeRawBufferPointer(key))
        }
    }

    /// The 12-byte key of a stream's index entry or snapshot: stream id, then sequence number.
    static func streamSequence(_ id: UInt32, _ sequence: UInt64) -> [UInt8] {
        withStreamSequence(id, sequence) { Array($0) }
    }

    /// Reads an 8-byte sequence key.
    static func decodeSequence(_ key: UnsafeRawBufferPointer) -> UInt64? {
        guard key.count == 8 else { return nil }
        return UInt64(bigEndian: key.loadUnaligned(as: UInt64.self))
    }

    /// Reads a 4-byte stream key.
    static func decodeStream(_ key: UnsafeRawBufferPointer) -> UInt32? {
        guard key.count == 4 else { return nil }
        return UInt32(bigEndian: key.loadUnaligned(as: UInt32.self))
    }

    /// Reads a 12-byte stream-and-sequence key.
    static func decodeStreamSequence(_ key: UnsafeRawBufferPointer) -> (stream: UInt32, sequence: UInt64)? {
        guard key.count == 12 else { return nil }
        return (
            UInt32(bigEndian: key.loadUnaligned(as: UInt32.self)),
            UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 4, as: UInt64.self))
        )
    }
}

/// Writing a page of an LMDB data file for a reader's copy (a page left out or rebuilt): little-endian numbers and the
/// 16-byte header LMDB starts a page with.
extension Array where Element == UInt8 {
    /// Stores `value` little-endian at `offset`.
    mutating func storeLittleEndian<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        Swift.withUnsafeBytes(of: value.littleEndian) { replaceSubrange(offset..<offset + MemoryLayout<T>.size, with: $0) }
    }

    /// Stores a page's header: its number (8 bytes), 2 unused, its flags (branch 0x01, leaf 0x02), `lower` and `upper`.
    mutating func storePageHeader(number: UInt64, flags: UInt16, lower: Int, upper: Int) {
        storeLittleEndian(number, at: 0)
        storeLittleEndian(flags, at: 10)
        storeLittleEndian(UInt16(lower), at: 12)
        storeLittleEndian(UInt16(upper), at: 14)
    }
}

import Foundation

/// Reads little-endian fields at fixed offsets of a record, checking every bound.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer

    var count: Int { bytes.count }

    func u8(_ offset: Int) -> UInt8 { bytes.load(fromByteOffset: offset, as: UInt8.self) }
    func u16(_ offset: Int) -> UInt16 { UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)) }
    func u32(_ offset: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
    func u64(_ offset: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
    func i64(_ offset: Int) -> Int64 { Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self)) }

    /// The bytes in `range`, copied out of the map. (From a buffer, not its slice: `Data` copies a slice of one
    /// through a generic path that cost twice as much.)
    func data(_ range: Range<Int>) -> Data { Data(UnsafeRawBufferPointer(rebasing: bytes[range])) }

    /// The bytes in `range` as UTF-8, or `nil` when they are not valid UTF-8.
    func string(_ range: Range<Int>) -> String? {
        String(validUTF8: UnsafeRawBufferPointer(rebasing: bytes[range]))
    }

    /// Whether the CRC-32C stored in the first four bytes matches the rest.
    var checksumMatches: Bool {
        count >= 4 && u32(0) == CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[4...]))
    }
}

/// Writes little-endian fields at fixed offsets into a buffer of known size.
struct ByteWriter {
    let bytes: UnsafeMutableRawBufferPointer

    func u8(_ offset: Int, _ value: UInt8) { bytes.storeBytes(of: value, toByteOffset: offset, as: UInt8.self) }
    func u16(_ offset: Int, _ value: UInt16) { bytes.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt16.self) }
    func u32(_ offset: Int, _ value: UInt32) { bytes.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self) }
    func u64(_ offset: Int, _ value: UInt64) { bytes.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self) }
    func i64(_ offset: Int, _ value: Int64) { bytes.storeBytes(of: value.littleEndian, toByteOffset: offset, as: Int64.self) }

    /// Copies `data` (a `Data` or a byte array) to `offset`.
    func copy(_ data: some ContiguousBytes, to offset: Int) {
        // A plain memory copy: `Data.copyBytes(to:)` goes through DataProtocol's generic path, a tenth of the
        // writer's time in a profile of the benchmark's appends.
        data.withUnsafeBytes { source in
            guard !source.isEmpty else { return }
            UnsafeMutableRawBufferPointer(rebasing: bytes[offset..<(offset + source.count)]).copyMemory(from: source)
        }
    }

    /// Copies the UTF-8 bytes of `string` to `offset`.
    func copy(_ string: String, to offset: Int) {
        var string = string
        string.withUTF8 { utf8 in
            UnsafeMutableRawBufferPointer(rebasing: bytes[offset..<(offset + utf8.count)]).copyMemory(from: UnsafeRawBufferPointer(utf8))
        }
    }

    /// Stores the CRC-32C of everything after the first four bytes in the first four bytes.
    func sealChecksum() {
        u32(0, CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[4...])))
    }
}

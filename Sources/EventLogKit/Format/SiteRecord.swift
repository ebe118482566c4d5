import Foundation

/// The binary layout of an interned call site, stored under its number (u32, big-endian) in `sites`.
///
///     0  u32 CRC-32C of bytes 4..<end     4  the call site, such as `MyApp/CheckoutView.swift:42` (UTF-8)
enum SiteRecord {
    static func encode(_ site: String) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 4 + site.utf8.count)
        bytes.withUnsafeMutableBytes { buffer in
            let out = ByteWriter(bytes: buffer)
            out.copy(site, to: 4)
            out.sealChecksum()
        }
        return bytes
    }

    /// The call site a record holds; `nil` when it is damaged.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> String? {
        let reader = ByteReader(bytes: bytes)
        guard reader.count >= 4, reader.checksumMatches else { return nil }
        return reader.string(4..<reader.count)
    }
}

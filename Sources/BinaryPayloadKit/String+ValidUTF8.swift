extension String {
    /// The string `bytes` spell in UTF-8, or `nil` when they are not valid UTF-8.
    ///
    /// ASCII, the usual case, needs no validation, and `String(decoding:)` of typed bytes is specialized;
    /// `String(validating:)` is generic here and looks up two types' metadata for every string, which showed in
    /// profiles of replay and of reading entries.
    @inlinable package init?(validUTF8 bytes: UnsafeRawBufferPointer) {
        let text = bytes.withMemoryRebound(to: UInt8.self) { typed in
            Self.isASCII(bytes) ? String(decoding: typed, as: UTF8.self) : String(validating: typed, as: UTF8.self)
        }
        guard let text else { return nil }
        self = text
    }

    /// Whether `bytes` are valid UTF-8, checked without building a string when they are ASCII.
    @inlinable package static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        isASCII(bytes) || String(validating: bytes, as: UTF8.self) != nil
    }

    /// Whether every byte is below 128. Inlinable, with the two above, because EventLogKit checks every case name
    /// with them, across the module boundary.
    @inlinable package static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.allSatisfy { $0 < 0x80 }
    }
}

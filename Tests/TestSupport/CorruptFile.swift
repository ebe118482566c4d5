import Foundation

/// Damages a log file the way a bad disk would: one byte changed, LMDB's structure untouched.
/// LMDB copies pages on write, so the file may hold stale copies of a record: every copy is changed.
public enum CorruptFile {
    /// Flips the last byte of every occurrence of `marker` in the file at `path`; throws when there is none.
    public static func flipByte(in path: String, after marker: [UInt8]) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var flipped = 0
        var index = 0
        while index + marker.count <= bytes.count {
            if bytes[index..<(index + marker.count)].elementsEqual(marker) {
                bytes[index + marker.count - 1] ^= 0x01
                flipped += 1
                index += marker.count
            } else {
                index += 1
            }
        }
        guard flipped > 0 else { throw CocoaError(.fileReadCorruptFile) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}

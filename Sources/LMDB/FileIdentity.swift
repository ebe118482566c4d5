#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's device and inode: the same path holds another file once these differ.
public struct FileIdentity: Hashable, Sendable {
    /// The device the file is on.
    public let device: UInt64
    /// The file's inode on that device.
    public let inode: UInt64

    /// The identity `status` describes.
    public init(_ status: stat) {
        device = UInt64(truncatingIfNeeded: status.st_dev)
        inode = UInt64(truncatingIfNeeded: status.st_ino)
    }

    /// The identity of the file at `path`, a symbolic link followed; `nil` when there is none.
    public init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.init(status)
    }
}

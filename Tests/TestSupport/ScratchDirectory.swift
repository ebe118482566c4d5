import Foundation

/// A fresh directory under the system's temporary directory, removed when the value is released.
public final class ScratchDirectory: Sendable {
    /// The directory's path.
    public let path: String

    /// Creates the directory.
    public init() {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("reactorlog-tests-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    public func file(_ name: String) -> String {
        path + "/" + name
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

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

    /// A copy, inside the directory, of the log `name` from Tests/Fixtures (such as `version1.reactorlog`, a log
    /// of the first record layout), so that opening it never touches the repository's file.
    public func fixture(_ name: String) throws -> String {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures").appendingPathComponent(name).path
        let copy = file(name)
        try Self.copyLog(at: source, to: copy)
        return copy
    }

    /// Copies the data file of the log at `source` into a new log at `copy`: what the log holds committed. Of a log an
    /// app is still writing, once the test flushed it, it is what the disk holds if the app is killed now: without what
    /// a clean end writes (each attached reactor's `closed` entry and last snapshot, written when the reactor is
    /// released or the log closes).
    public static func copyLog(at source: String, to copy: String) throws {
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source + "/data.mdb", toPath: copy + "/data.mdb")
    }

    /// The text of `name` from Tests/Fixtures.
    public static func fixtureText(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures").appendingPathComponent(name)
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// A path inside the directory.
    public func file(_ name: String) -> String {
        path + "/" + name
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

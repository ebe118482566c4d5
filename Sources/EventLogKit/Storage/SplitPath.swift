import SystemPackage

/// A path split into the directory that holds it and its last component: where a log is made or awaited, where the
/// inspector stages a file beside the one it writes, and where it looks for what an interrupted import left beside.
///
/// Built on swift-system's `FilePath`, not `NSString`, whose `deletingLastPathComponent` traps on a one-character path
/// (swift-corelibs-foundation 6.3).
package struct SplitPath: Sendable {
    /// The directory that holds the path, `.` for a path of one component.
    package let directory: String
    /// The path's last component; the whole path when it has none (`/`).
    package let name: String

    /// Splits `path`.
    package init(_ path: String) {
        let file = FilePath(path)
        let directory = file.removingLastComponent().string
        self.directory = directory.isEmpty ? "." : directory
        name = file.lastComponent?.string ?? path
    }

    /// The path of `name` in the same directory.
    package func sibling(_ name: String) -> String {
        directory == "/" ? "/" + name : directory + "/" + name
    }
}

import Foundation

extension FileManager {
    /// Whether a directory is at `path` (following a symbolic link): where the inspector reads one file (an export, a
    /// bisect session), a directory, usually a log, is named as such rather than read as an empty file; where a log is
    /// made or awaited, whether the directory it goes in is there.
    package func isDirectory(atPath path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

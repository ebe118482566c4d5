import Dispatch
import EventLogKit
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private directory beside a destination, where a command builds what it moves into place when done
/// (`import`). Its name, `DEST.importing-PID-RANDOM`, cannot be guessed and planted in advance; it is created
/// exclusively (never through a symbolic link) and readable by its owner only. Staging directories that a
/// killed earlier import of the same destination left behind are removed first.
final class StagingDirectory: Sendable {
    let path: String

    /// Why no staging directory could be made: the system's reason, for the caller to word its error around.
    struct CreationFailed: Error {
        let reason: String
    }

    init(beside destination: String) throws(CreationFailed) {
        Self.removeAbandoned(beside: destination)
        for _ in 0..<8 {
            let candidate = "\(destination).importing-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
            if mkdir(candidate, 0o700) == 0 {
                path = candidate
                return
            }
            guard errno == EEXIST else { throw CreationFailed(reason: String(cString: strerror(errno))) }
        }
        throw CreationFailed(reason: "every name tried was taken")
    }

    /// Removes the directory and what was built in it.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Removes the directory on SIGINT and SIGTERM (``Interrupts``).
    func removeOnInterrupt() -> [any DispatchSourceSignal] {
        Interrupts.handle { [self] event in
            remove()
            return "import \(event); nothing was imported."
        }
    }

    /// Staging directories of `destination` whose process is gone.
    private static func removeAbandoned(beside destination: String) {
        let file = SplitPath(destination)
        let prefix = file.name + ".importing-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: file.directory)) ?? []
        for name in names where name.hasPrefix(prefix) {
            let parts = name.dropFirst(prefix.count).split(separator: "-")
            guard parts.count == 2, let pid = Int32(parts[0]), UInt64(parts[1]) != nil else { continue }
            guard kill(pid, 0) != 0 && errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: file.sibling(name))
        }
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, its standard input read from a file and its outputs written to
/// files, so that no pipe can fill up and stall it.
///
/// Not Foundation's `Process`: on Linux its `run()` (Swift 6.3.1) can crash the test process itself, reading past a
/// `dirent` as it lists /proc/self/fd (swift-corelibs-foundation#5472), about once in a few runs of a suite that
/// starts as many children as this one.
public struct ChildProcess: Sendable {
    /// How a child ended.
    public struct Exit: Sendable, Equatable {
        /// The exit status, or the number of the signal that ended it.
        public let status: Int32
        /// Whether a signal ended it.
        public let signalled: Bool
    }

    /// The child's process id.
    public let pid: pid_t

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc module does not
    /// import: looked up by name.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// Starts `executable` with `arguments` and the environment `environment`, reading `input` and writing to
    /// `output` and `error` (paths of existing files).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String], input: String, output: String, error: String
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, input, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output, O_WRONLY | O_TRUNC, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, error, O_WRONLY | O_TRUNC, 0)
        // Nothing else of the test process: another test's log, or the lock on it, must not live on in the child.
        _ = Self.closeFrom?(&actions, 3)
        let words: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let variables: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in words + variables { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, words, variables)
        guard spawned == 0 else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "Cannot start \(executable): \(String(cString: strerror(spawned)))."])
        }
        self.pid = pid
    }

    /// Waits for the child to end, on a thread of its own so that no thread of the cooperative pool is held.
    public func exit() async throws -> Exit {
        let pid = pid
        return try await onOwnThread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            // WIFEXITED and WEXITSTATUS, which Swift does not import.
            let signal = status & 0x7f
            return signal == 0 ? Exit(status: (status >> 8) & 0xff, signalled: false) : Exit(status: signal, signalled: true)
        }
    }
}

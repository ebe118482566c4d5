import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`: the tests' one way to start another program.
///
/// Not Foundation's `Process`: on Linux its `run()` (Swift 6.3.1) can crash the test process itself, reading past a
/// `dirent` as it lists /proc/self/fd (swift-corelibs-foundation#5472), about once in a few runs of a suite that
/// starts as many children as this one.
public struct ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream {
        /// The file at this path: read from, or created (or truncated) and written to.
        case file(String)
        /// A pipe whose other end the test reads; the test process's copy of the writing end is closed once the
        /// child has started, so reading ends when the child does.
        case pipe(Pipe)
        /// `/dev/null`.
        case null
    }

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

    /// Starts `executable` with `arguments` and `environment` (the test process's own by default), its standard
    /// streams connected as `input`, `output` and `error` say.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        input: Stream = .null, output: Stream = .null, error: Stream = .null
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, stream) in [(STDIN_FILENO, input), (STDOUT_FILENO, output), (STDERR_FILENO, error)] {
            let flags = descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC
            switch stream {
            case .file(let path): posix_spawn_file_actions_addopen(&actions, descriptor, path, flags, 0o600)
            case .null: posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", flags & ~(O_CREAT | O_TRUNC), 0)
            case .pipe(let pipe): posix_spawn_file_actions_adddup2(&actions, pipe.fileHandleForWriting.fileDescriptor, descriptor)
            }
        }
        // Nothing else of the test process: another test's log, or the lock on it, must not live on in the child.
        _ = Self.closeFrom?(&actions, 3)
        let words: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let variables: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in words + variables { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, words, variables)
        for case .pipe(let pipe) in [input, output, error] { try? pipe.fileHandleForWriting.close() }
        guard spawned == 0 else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "Cannot start \(executable): \(String(cString: strerror(spawned)))."])
        }
        self.pid = pid
    }

    /// Sends the child signal `number` (`SIGKILL`, `SIGINT`, …). Call it before waiting for the exit, never after:
    /// once waited for, the process id may belong to another process.
    public func signal(_ number: Int32) {
        kill(pid, number)
    }

    /// Blocks until the child ends. Wait once per child.
    public func waitForExit() -> Exit {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        let signal = status & 0x7f
        return signal == 0 ? Exit(status: (status >> 8) & 0xff, signalled: false) : Exit(status: signal, signalled: true)
    }

    /// Waits for the child to end, on a thread of its own so that no thread of the cooperative pool is held.
    public func exit() async throws -> Exit {
        let child = self
        return try await onOwnThread { child.waitForExit() }
    }
}

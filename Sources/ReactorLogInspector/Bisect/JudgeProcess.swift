import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs bisect's judge, `/bin/sh -c COMMAND`, in a process group of its own: a timeout or Ctrl-C then stops
/// the judge and everything it started (`killpg`), not just the shell.
enum JudgeProcess {
    /// How a judge ended.
    enum Outcome: Equatable {
        case exited(Int32)
        case signalled(Int32)
        case timedOut
    }

    /// The process group of the judge running now, 0 when none, `spawning` while one starts: what Ctrl-C stops.
    private static let running = Atomic<Int32>(0)
    private static let spawning: Int32 = -1
    /// Set when Ctrl-C or SIGTERM is stopping the judge: the interrupt handler exits the process, and the judge's
    /// death must not be reported as a failed bisect first.
    private static let interrupted = Atomic<Bool>(false)

    /// Stops the running judge's process group on SIGINT and SIGTERM (``Interrupts``). Call once, before the
    /// first judge runs.
    static func stopOnInterrupt() -> [any DispatchSourceSignal] {
        Interrupts.handle { event in
            interrupted.store(true, ordering: .releasing)
            // A judge can start its work before `posix_spawn` returns its pid: wait for it (a moment at most).
            var group = running.load(ordering: .acquiring)
            for _ in 0..<1000 where group == spawning {
                usleep(1000)
                group = running.load(ordering: .acquiring)
            }
            if group > 0 { killpg(group, SIGKILL) }
            return "bisect \(event)" + (group > 0 ? "; stopped the judge (process group \(group))." : ".")
        }
    }

    /// Runs `command` with `input` on its standard input and its standard output sent to standard error.
    static func run(_ command: String, input: Data, environment: [String: String], timeout: Duration?) throws -> Outcome {
        // The judge writes to the inspector's standard error: what standard output holds comes first.
        try StandardOutput.flush()
        var stdinPipe: [Int32] = [0, 0]
        guard pipe(&stdinPipe) == 0 else { throw failure("cannot create a pipe") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, stdinPipe[1])
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A new process group, and default signal handling (the inspector ignores SIGPIPE and SIGINT).
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let words: [String] = ["/bin/sh", "-c", command]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let variables: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in arguments + variables { free(pointer) } }
        var pid: pid_t = 0
        running.store(spawning, ordering: .releasing)
        defer { running.store(0, ordering: .releasing) }
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, arguments, variables)
        close(stdinPipe[0])
        guard spawned == 0 else {
            close(stdinPipe[1])
            throw failure(String(cString: strerror(spawned)))
        }
        let child = pid
        running.store(child, ordering: .releasing)

        // The input is written and the exit awaited on threads of their own, so that a judge that reads
        // nothing, or never ends, cannot hold the inspector past the timeout.
        let writer = stdinPipe[1]
        Thread {
            input.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                var offset = 0
                while offset < bytes.count {
                    let written = Glibc.write(writer, base + offset, bytes.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
            close(writer)
        }.start()
        let exited = DispatchSemaphore(value: 0)
        let status = Mutex<Int32>(0)
        Thread {
            var value: Int32 = 0
            while waitpid(child, &value, 0) == -1 && errno == EINTR {}
            status.withLock { $0 = value }
            exited.signal()
        }.start()

        let deadline: DispatchTime = timeout.map { .now() + .nanoseconds(Int($0.components.seconds * 1_000_000_000 + $0.components.attoseconds / 1_000_000_000)) } ?? .distantFuture
        if exited.wait(timeout: deadline) == .timedOut {
            killpg(child, SIGKILL)
            exited.wait()
            return .timedOut
        }
        // Stopped by an interrupt: the handler is exiting the process with its own sentence and code.
        while interrupted.load(ordering: .acquiring) { sleep(60) }
        let value = status.withLock { $0 }
        let signalNumber = value & 0x7F
        return signalNumber == 0 ? .exited((value >> 8) & 0xFF) : .signalled(signalNumber)
    }

    private static func failure(_ reason: String) -> InspectorFailure {
        InspectorFailure("The bisect command could not be started: \(reason).", exit: .bisectFailed)
    }
}

import EventLogKit
import Foundation
import TestSupport

/// The `eventlog-crash-writer` helper running as a child process: it appends to a log until killed
/// and prints `ack N` whenever every entry through N is durable.
final class CrashWriterProcess {
    let process: ChildProcess
    private let output = Pipe()
    private let errors = Pipe()
    private let lines: LineReader
    /// The highest sequence number acknowledged as durable so far.
    private(set) var lastAck: UInt64 = 0
    /// Other lines the child printed (`stopped N`, `resumed`), in order.
    private(set) var notes: [String] = []

    /// The helper executable, built next to the test bundle.
    static var executable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("eventlog-crash-writer")
    }

    /// Starts the helper appending to stream `stream` of `log`. With `fileSizeLimit` (in KiB), the child may not make a
    /// file larger, as on a disk that fills: a write past the limit fails (`EFBIG`) instead of ending the child with
    /// `SIGXFSZ`, which the shell leaves ignored when it starts the helper. With `resume` (`now` or `retry`), the
    /// limit is a soft one that the child lifts after a write failure, and resumes writing (Tools/CrashWriter). With
    /// `freeing`, a file that fills the disk, the child removes it after a write failure instead, and resumes.
    init(
        log: String, durability: Durability, run: Int, stream: String = "crash", fileSizeLimit: Int? = nil, resume: String? = nil,
        freeing filler: String? = nil
    ) throws {
        let arguments = [log, durability.rawValue, String(run), stream]
        if let filler {
            var environment = ProcessInfo.processInfo.environment
            (environment["CRASH_WRITER_RESUME"], environment["CRASH_WRITER_FREE"]) = (resume ?? "now", filler)
            process = try ChildProcess(Self.executable.path, arguments, environment: environment, output: .pipe(output), error: .pipe(errors))
        } else if let fileSizeLimit {
            var environment = ProcessInfo.processInfo.environment
            environment["CRASH_WRITER_RESUME"] = resume
            process = try ChildProcess(
                "/bin/sh", ["-c", "trap '' XFSZ; ulimit \(resume == nil ? "" : "-S ")-f \(fileSizeLimit * 2) && exec \"$0\" \"$@\"", Self.executable.path] + arguments,
                environment: environment, output: .pipe(output), error: .pipe(errors))
        } else {
            process = try ChildProcess(Self.executable.path, arguments, output: .pipe(output), error: .pipe(errors))
        }
        lines = LineReader(output)
    }

    /// Reads acknowledgements until the child ends by itself; returns how it ended and what it wrote to standard error.
    func waitForEnd() -> (exit: ChildProcess.Exit, errors: String) {
        while let line = lines.next() { acknowledge(line) }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.waitForExit(), message)
    }

    /// Reads acknowledgements until `count` more have arrived; returns the latest.
    func waitForAcks(_ count: Int) throws -> UInt64 {
        var seen = 0
        while seen < count {
            guard let line = lines.next() else {
                let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the writer exited: \(message)"])
            }
            if acknowledge(line) { seen += 1 }
        }
        return lastAck
    }

    /// Kills the child with SIGKILL, waits for it, and reads the acknowledgements it printed before dying; returns
    /// how it ended.
    @discardableResult
    func kill() -> ChildProcess.Exit {
        process.signal(SIGKILL)
        let exit = process.waitForExit()
        // Whole lines only: the child may have died halfway through printing one.
        while let line = lines.next() { acknowledge(line) }
        return exit
    }

    /// Takes `line` into ``lastAck`` when it is an acknowledgement; returns whether it was one.
    @discardableResult
    private func acknowledge(_ line: String) -> Bool {
        guard line.hasPrefix("ack "), let sequence = UInt64(line.dropFirst(4)) else {
            notes.append(line)
            return false
        }
        lastAck = max(lastAck, sequence)
        return true
    }
}

import EventLogKit
import Foundation
import TestSupport

/// The `eventlog-crash-writer` helper running as a child process: it appends to a log until killed
/// and prints `ack N` whenever every entry through N is durable.
final class CrashWriterProcess {
    let process: ChildProcess
    private let output = Pipe()
    private let errors = Pipe()
    private var pending = ""
    /// The highest sequence number acknowledged as durable so far.
    private(set) var lastAck: UInt64 = 0

    /// The helper executable, built next to the test bundle.
    static var executable: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("eventlog-crash-writer")
    }

    init(log: String, durability: Durability, run: Int) throws {
        process = try ChildProcess(Self.executable.path, [log, durability.rawValue, String(run)], output: .pipe(output), error: .pipe(errors))
    }

    /// Reads acknowledgements until `count` more have arrived; returns the latest.
    func waitForAcks(_ count: Int) throws -> UInt64 {
        var seen = 0
        while seen < count {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty {
                let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the writer exited: \(message)"])
            }
            seen += consume(data)
        }
        return lastAck
    }

    /// Kills the child with SIGKILL, waits for it, and reads the acknowledgements it printed before dying; returns
    /// how it ended.
    @discardableResult
    func kill() -> ChildProcess.Exit {
        process.signal(SIGKILL)
        let exit = process.waitForExit()
        _ = consume(output.fileHandleForReading.readDataToEndOfFile())
        return exit
    }

    private func consume(_ data: Data) -> Int {
        pending += String(decoding: data, as: UTF8.self)
        var acks = 0
        while let newline = pending.firstIndex(of: "\n") {
            let line = pending[..<newline]
            pending.removeSubrange(...newline)
            if line.hasPrefix("ack "), let sequence = UInt64(line.dropFirst(4)) {
                lastAck = max(lastAck, sequence)
                acks += 1
            }
        }
        return acks
    }
}

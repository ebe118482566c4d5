import Foundation
import TestSupport

/// The `eventlog-crash-writer` helper appending to a log in another process until stopped.
final class WriterProcess {
    let process: ChildProcess
    private let output = Pipe()

    /// Starts it and waits until it has committed its first entries.
    init(log: String) throws {
        process = try ChildProcess(Tool.products.appendingPathComponent("eventlog-crash-writer").path, [log, "grouped", "1"], output: .pipe(output))
        let lines = LineReader(output)
        while true {
            guard let line = lines.next() else { throw CocoaError(.fileReadUnknown) }
            if line.hasPrefix("ack ") { break }
        }
    }

    func stop() {
        process.signal(SIGKILL)
        _ = process.waitForExit()
    }
}

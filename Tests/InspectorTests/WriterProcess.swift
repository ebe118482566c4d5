import Foundation
import TestSupport

/// The `eventlog-crash-writer` helper appending to a log in another process until stopped.
final class WriterProcess {
    let process: ChildProcess
    private let output = Pipe()

    /// Starts it and waits until it has committed its first entries.
    init(log: String) throws {
        process = try ChildProcess(Tool.products.appendingPathComponent("eventlog-crash-writer").path, [log, "grouped", "1"], output: .pipe(output))
        var text = ""
        while !text.contains("ack ") {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { throw CocoaError(.fileReadUnknown) }
            text += String(decoding: data, as: UTF8.self)
        }
    }

    func stop() {
        process.signal(SIGKILL)
        _ = process.waitForExit()
    }
}

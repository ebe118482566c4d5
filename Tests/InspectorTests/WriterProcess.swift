import Foundation

/// The `eventlog-crash-writer` helper appending to a log in another process until stopped.
final class WriterProcess {
    let process = Process()
    private let output = Pipe()

    /// Starts it and waits until it has committed its first entries.
    init(log: String) throws {
        process.executableURL = Tool.products.appendingPathComponent("eventlog-crash-writer")
        process.arguments = [log, "grouped", "1"]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("ack ") {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { throw CocoaError(.fileReadUnknown) }
            text += String(decoding: data, as: UTF8.self)
        }
    }

    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

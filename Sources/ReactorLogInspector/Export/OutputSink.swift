import Foundation
import SystemPackage

/// Standard output or a new file (``OutputFile``).
final class OutputSink {
    private let file: OutputFile?

    init(path: String?, force: Bool, mode: FilePermissions, option: String) throws {
        file = try path.map { try OutputFile(path: $0, force: force, mode: mode, option: option) }
    }

    /// Writes a line of JSON made by an encoder, escaped as ``writeJSONLine(_:)`` escapes it.
    func write(_ line: String) throws {
        try writeLine { $0.append(contentsOf: terminalSafeJSON(line).utf8) }
    }

    /// Writes the line `body` appends, already terminal-safe (``EntryLine``): to the file, or to standard output.
    func writeLine(_ body: (inout [UInt8]) -> Void) throws {
        if let file { return try file.writeLine(body) }
        try StandardOutput.append { bytes in
            body(&bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
    }

    func commit() throws {
        try StandardOutput.flush()
        try file?.commit()
    }
}

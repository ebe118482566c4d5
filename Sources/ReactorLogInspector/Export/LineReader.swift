import Foundation

/// Reads a text file line by line, a buffer at a time; a line that is not valid UTF-8 is an error.
final class LineReader {
    /// The first line is not valid UTF-8: the file is no text at all. (A later line's is an ``InspectorFailure``
    /// naming it.)
    struct NotText: Error {}

    private let handle: FileHandle
    private var buffer = Data()
    private var atEnd = false
    /// Whether the line read last was the file's last and lacked its newline, as a line cut short does (an export
    /// ends every line with one).
    private(set) var lastLineUnterminated = false

    init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        self.handle = handle
    }

    deinit {
        try? handle.close()
    }

    /// The next line, without its newline; `nil` at the end.
    func nextLine(file: String, number: Int) throws -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                return try text(line, file: file, number: number)
            }
            if atEnd {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                lastLineUnterminated = true
                // A line cut short may end inside a character: the character's first bytes are left out, and the line
                // then fails as JSON, as any line cut short does. Other bytes that are not UTF-8 are refused as ever.
                var line = buffer[...]
                if String(bytes: line, encoding: .utf8) == nil, let lead = line.suffix(3).lastIndex(where: { $0 & 0xC0 == 0xC0 }) {
                    line = line[..<lead]
                }
                return try text(line, file: file, number: number)
            }
            let chunk = (try? handle.read(upToCount: 1 << 16)) ?? nil
            if let chunk, !chunk.isEmpty { buffer.append(chunk) } else { atEnd = true }
        }
    }

    private func text(_ bytes: Data, file: String, number: Int) throws -> String {
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            if number == 1 { throw NotText() }
            throw InspectorFailure("\(file) line \(number) cannot be imported: it is not valid UTF-8. Nothing was imported.", exit: .invalidArgument)
        }
        return text
    }
}

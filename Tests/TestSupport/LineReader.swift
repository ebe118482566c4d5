import Foundation

/// A child's output read from a pipe a line at a time, as the child prints it: the one place tests wait on what a
/// child says (an acknowledgement, a first entry) before going on.
public final class LineReader {
    private let handle: FileHandle
    /// Bytes read past the last whole line given.
    private var pending = Data()

    /// Reads the pipe `pipe`'s reading end.
    public init(_ pipe: Pipe) {
        handle = pipe.fileHandleForReading
    }

    /// The next whole line, without its newline, waiting for it; `nil` once the child's end is closed (it ended)
    /// with no whole line left.
    public func next() -> String? {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            let data = handle.availableData
            guard !data.isEmpty else { return nil }
            pending.append(data)
        }
    }
}

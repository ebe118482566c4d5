import SystemPackage

/// The inspector's standard error, the one place its bytes are written from: its own lines (an error, a warning,
/// bisect's steps, an interrupt's sentence) and the progress line of a long command on a terminal. A line is written
/// after whatever ``StandardOutput`` holds, so the two stay in order where they meet (`2>&1`); when another thread is
/// writing standard output, the line does not wait for it (an interrupt's handler must not block on a pipe nobody
/// reads). Nothing here fails: a standard error that cannot be written has no one left to tell.
enum StandardError {
    /// Writes `line` and a newline, with its control characters made visible (``Terminal/visible(_:colored:keepNewlines:)``):
    /// text from a log cannot act on the terminal.
    static func writeLine(_ line: String) {
        StandardOutput.flushIfIdle()
        write(Terminal.visible(line, colored: false, keepNewlines: false) + "\n")
    }

    /// Writes `text` as it is: the inspector's own progress codes (callers make any log text in it visible).
    static func write(_ text: String) {
        var text = text
        _ = try? text.withUTF8 { try FileDescriptor.standardError.writeAll($0) }
    }
}

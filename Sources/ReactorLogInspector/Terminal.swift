import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where output goes, and whether it may be coloured: only on a terminal, and never with NO_COLOR set.
struct Terminal: Sendable {
    let colored: Bool
    let progress: Bool

    static let current = Terminal(
        colored: isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil,
        progress: isatty(STDERR_FILENO) == 1)

    enum Color: String {
        case red = "31", green = "32", yellow = "33", blue = "34", gray = "90", bold = "1"
    }

    func paint(_ text: String, _ color: Color) -> String {
        colored ? "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// Prints a progress line on standard error, overwriting the previous one (terminals only).
    func showProgress(_ text: String) {
        guard progress else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(text)".utf8))
    }

    /// Clears the progress line.
    func endProgress() {
        guard progress else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}

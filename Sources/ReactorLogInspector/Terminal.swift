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

    enum Color: String, CaseIterable {
        case red = "31", green = "32", yellow = "33", blue = "34", gray = "90", bold = "1"
    }

    func paint(_ text: String, _ color: Color) -> String {
        colored ? "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// The colour codes `paint` writes: the only control sequences `visible` lets through.
    private static let ownCodes: Set<String> = Set(Color.allCases.map(\.rawValue) + ["0"])

    /// `text` safe for a terminal: every control character (C0 but newline and tab, DEL, C1) and every
    /// bidirectional override is shown as `\u{XX}`, except, when `colored`, the inspector's own colour codes.
    /// With `keepNewlines` false, newlines and tabs are shown too (for one-line errors).
    static func visible(_ text: String, colored: Bool, keepNewlines: Bool = true) -> String {
        // Most lines need nothing: they are looked at in place, with no copy of their scalars.
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepNewlines: keepNewlines) }) else { return text }
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if colored, scalar == "\u{1B}", let end = ownCode(in: scalars, at: index) {
                result.append(contentsOf: scalars[index...end])
                index = end + 1
                continue
            }
            if needsEscape(scalar, keepNewlines: keepNewlines) {
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                result.append(scalar)
            }
            index += 1
        }
        return String(result)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, keepNewlines: Bool) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: !keepNewlines
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// The index of the `m` ending one of our colour codes (`ESC [ digits m`) starting at `start`.
    private static func ownCode(in scalars: [Unicode.Scalar], at start: Int) -> Int? {
        guard start + 2 < scalars.count, scalars[start + 1] == "[" else { return nil }
        var end = start + 2
        var digits = ""
        while end < scalars.count, scalars[end].properties.numericType != nil, scalars[end].isASCII {
            digits.unicodeScalars.append(scalars[end])
            end += 1
        }
        guard end < scalars.count, scalars[end] == "m", ownCodes.contains(digits) else { return nil }
        return end
    }

    /// Prints a progress line on standard error, overwriting the previous one (terminals only).
    func showProgress(_ text: String) {
        guard progress else { return }
        StandardError.write("\r\u{1B}[2K\(text)")
    }

    /// Clears the progress line.
    func endProgress() {
        guard progress else { return }
        StandardError.write("\r\u{1B}[2K")
    }
}

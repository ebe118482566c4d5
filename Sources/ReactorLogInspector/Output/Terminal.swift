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

    /// `text` painted `color` when colouring.
    func paint(_ text: String, _ color: Color) -> String {
        guard colored else { return text }
        var bytes: [UInt8] = []
        paint(color, into: &bytes) { $0.append(contentsOf: text.utf8) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends what `body` appends, between the colour's code and the code that resets it when colouring.
    func paint(_ color: Color, into bytes: inout [UInt8], _ body: (inout [UInt8]) -> Void) {
        guard colored else { return body(&bytes) }
        bytes.append(contentsOf: "\u{1B}[\(color.rawValue)m".utf8)
        body(&bytes)
        bytes.append(contentsOf: "\u{1B}[0m".utf8)
    }

    /// The colour codes `paint` writes: the only control sequences `visible` lets through.
    private static let ownCodes: Set<String> = Set(Color.allCases.map(\.rawValue) + ["0"])

    /// `text` safe for a terminal: every control character (C0 but newline and tab, DEL, C1) and every
    /// bidirectional override is shown as `\u{XX}`, except, when `colored`, the inspector's own colour codes.
    /// With `keepNewlines` false, newlines and tabs are shown too (for one-line errors).
    static func visible(_ text: String, colored: Bool, keepNewlines: Bool = true) -> String {
        var text = text
        let changed = text.withUTF8 { visibleBytes($0, colored: colored, keepNewlines: keepNewlines) }
        return changed.map { String(decoding: $0, as: UTF8.self) } ?? text
    }

    /// The bytes of `bytes` from `start` on, valid UTF-8, made safe for a terminal in place as
    /// ``visible(_:colored:keepNewlines:)`` makes a string: what a line written straight into a buffer goes through.
    static func makeVisible(_ bytes: inout [UInt8], from start: Int, colored: Bool, keepNewlines: Bool) {
        let changed = bytes[start...].withUnsafeBufferPointer { visibleBytes($0, colored: colored, keepNewlines: keepNewlines) }
        if let changed { bytes.replaceSubrange(start..., with: changed) }
    }

    /// `bytes` (valid UTF-8) made visible, or `nil` when they need no change. Read in place: most lines need nothing
    /// and are left as they are, coloured ones too; a line is copied from its first byte that needs a change.
    /// (Scalar by scalar, rebuilding every coloured line cost more than formatting it.)
    private static func visibleBytes(_ bytes: UnsafeBufferPointer<UInt8>, colored: Bool, keepNewlines: Bool) -> [UInt8]? {
        var out: [UInt8]?
        var index = 0
        while index < bytes.count {
            // Printable ASCII, most of every line, first.
            if (0x20..<0x7F).contains(bytes[index]) {
                out?.append(bytes[index])
                index += 1
                continue
            }
            let length: Int
            if colored, bytes[index] == 0x1B, let code = ownCodeLength(in: bytes, at: index) {
                length = code
            } else {
                length = scalarLength(lead: bytes[index])
                if let value = escapedScalar(in: bytes, at: index, length: length, keepNewlines: keepNewlines) {
                    if out == nil { out = Array(bytes[..<index]) }
                    out?.append(contentsOf: "\\u{\(String(value, radix: 16, uppercase: true))}".utf8)
                    index += length
                    continue
                }
            }
            out?.append(contentsOf: bytes[index..<index + length])
            index += length
        }
        return out
    }

    /// The bytes of the UTF-8 scalar that begins with `lead` (a String's bytes are valid UTF-8).
    private static func scalarLength(lead: UInt8) -> Int {
        switch lead {
        case ..<0x80: 1
        case 0xF0...: 4
        case 0xE0...: 3
        default: 2
        }
    }

    /// The value of the scalar of `length` bytes at `index` when it must be shown escaped: a control character (C0
    /// but newline and tab unless `keepNewlines` is false, DEL, C1) or a bidirectional override; else `nil`.
    private static func escapedScalar(in bytes: UnsafeBufferPointer<UInt8>, at index: Int, length: Int, keepNewlines: Bool) -> UInt32? {
        var value = UInt32(bytes[index]) & (length == 1 ? 0x7F : 0xFF >> (length + 1))
        for offset in 1..<length { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
        switch value {
        case 0x0A, 0x09: return keepNewlines ? nil : value
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: return value
        default: return nil
        }
    }

    /// The bytes of one of `paint`'s colour codes (`ESC [ digits m`) starting at `start`, or `nil`.
    private static func ownCodeLength(in bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        guard start + 2 < bytes.count, bytes[start + 1] == UInt8(ascii: "[") else { return nil }
        var end = start + 2
        while end < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) { end += 1 }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "m"),
              ownCodes.contains(String(decoding: bytes[(start + 2)..<end], as: UTF8.self))
        else { return nil }
        return end + 1 - start
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

@testable import ReactorLogInspector
import TestSupport
import Testing

/// Text from a log reaches a terminal only through `Terminal.visible`: controls and bidirectional overrides shown
/// as `\u{XX}`, the inspector's own colour codes let through when it colours.
@Suite("Terminal text made visible")
struct TerminalTests {
    @Test("what a log may hold is shown escaped, everything else kept byte for byte; colour codes pass only when colouring, and only those paint writes",
          arguments: [false, true])
    func escapes(colored: Bool) {
        let plain = #"22:37:55.383 #42 search action updateQuery("swift é 😀 日本 \u{2028}")"#
        #expect(Terminal.visible(plain, colored: colored) == plain)
        let painted = Terminal(colored: true, progress: false).paint("#42", .gray) + " tap"
        #expect(Terminal.visible(painted, colored: colored) == (colored ? painted : #"\u{1B}[90m#42\u{1B}[0m tap"#))
        // A window title, a cleared screen, a CSI through C1, hidden text, a right-to-left override, DEL, NUL, an
        // isolate, and colour codes `paint` never writes.
        let hostile = "a\u{1B}]0;pwned\u{07}b\u{1B}[2Jc\u{9B}1;1Hd\u{1B}[8me\u{202E}f\u{7F}g\u{0}h\u{2066}i\u{85}j\u{1B}[31"
        #expect(Terminal.visible(hostile, colored: colored)
                == #"a\u{1B}]0;pwned\u{7}b\u{1B}[2Jc\u{9B}1;1Hd\u{1B}[8me\u{202E}f\u{7F}g\u{0}h\u{2066}i\u{85}j\u{1B}[31"#)
        #expect(Terminal.visible("a\nb\tc", colored: colored) == "a\nb\tc")
        #expect(Terminal.visible("a\nb\tc", colored: colored, keepNewlines: false) == #"a\u{A}b\u{9}c"#)
    }

    @Test("columns are counted as a terminal shows them: two for a wide character or an emoji picture, one for any other; tables line up")
    func columns() {
        #expect("search".columns == 6 && "".columns == 0)
        #expect("検索".columns == 4 && "ｶﾀｶﾅ".columns == 4 && "ＡＢ".columns == 4 && "한국".columns == 4)
        #expect("café".columns == 4 && "cafe\u{301}".columns == 4)
        #expect("🛒 basket".columns == 9 && "❤️".columns == 2 && "👩‍👩‍👧".columns == 2 && "→".columns == 1)
        #expect("検索".padded(to: 6) == "検索  ")
        // As a line shows them once made visible: a control character by its escape.
        #expect("a\u{1B}b".shownColumns == 8 && "\n".shownColumns == 5 && "検索".shownColumns == 4 && "plain".shownColumns == 5)
        // Before, characters were counted: the second column began two places early after each wide name.
        let lines = Table.render([["stream", "entries"], ["検索", "3"], ["🛒 cart", "12"], ["café", "7"]])
        #expect(lines == ["stream   entries", "検索     3", "🛒 cart  12", "café     7"])
    }

    @Test("it agrees with the rule read scalar by scalar, over random text of controls, overrides, colour codes and other scripts, as a string and in place in a buffer")
    func agreesWithTheRule() {
        let pieces: [String] = [
            "a", "Z", " ", "\n", "\t", "\u{0}", "\u{1B}", "\u{7}", "\u{7F}", "\u{80}", "\u{9F}", "\u{A0}", "é", "日", "😀",
            "\u{2029}", "\u{202A}", "\u{202E}", "\u{202F}", "\u{2065}", "\u{2066}", "\u{2069}", "\u{206A}", "[", "m", "3", "1",
            "\u{1B}[0m", "\u{1B}[31m", "\u{1B}[90m", "\u{1B}[1m", "\u{1B}[35m", "\u{1B}[", "\u{1B}[3", "\u{1B}[310m",
        ]
        var random = Xorshift(state: 0x5EED_7E12)
        for _ in 0..<3_000 {
            let text = (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            for colored in [false, true] {
                for keepNewlines in [false, true] {
                    #expect(Terminal.visible(text, colored: colored, keepNewlines: keepNewlines)
                            == Self.rule(text, colored: colored, keepNewlines: keepNewlines), "\(Array(text.unicodeScalars))")
                }
                // In place in a buffer, as a listing's line is, after bytes already written that it leaves alone.
                let written = Array("\u{1B}]0;title\u{7}".utf8)
                for keepNewlines in [false, true] {
                    var buffer = written + Array(text.utf8)
                    Terminal.makeVisible(&buffer, from: written.count, colored: colored, keepNewlines: keepNewlines)
                    #expect(buffer == written + Array(Self.rule(text, colored: colored, keepNewlines: keepNewlines).utf8), "\(Array(text.unicodeScalars))")
                }
            }
        }
    }

    /// The rule, plainly: each scalar in turn; one of `paint`'s codes (`ESC [` digits `m`, the digits one of its
    /// colours or 0) whole when colouring.
    static func rule(_ text: String, colored: Bool, keepNewlines: Bool) -> String {
        let scalars = Array(text.unicodeScalars)
        let codes = Set(Terminal.Color.allCases.map(\.rawValue) + ["0"])
        var result = ""
        var index = 0
        while index < scalars.count {
            if colored, scalars[index] == "\u{1B}", index + 1 < scalars.count, scalars[index + 1] == "[" {
                var end = index + 2
                while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
                if end < scalars.count, scalars[end] == "m", codes.contains(String(String.UnicodeScalarView(scalars[(index + 2)..<end]))) {
                    result.unicodeScalars.append(contentsOf: scalars[index...end])
                    index = end + 1
                    continue
                }
            }
            let value = scalars[index].value
            let escaped = switch value {
            case 0x0A, 0x09: !keepNewlines
            case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
            default: false
            }
            result += escaped ? "\\u{\(String(value, radix: 16, uppercase: true))}" : String(scalars[index])
            index += 1
        }
        return result
    }
}

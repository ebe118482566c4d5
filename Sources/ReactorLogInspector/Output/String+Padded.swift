extension String {
    /// The string followed by spaces up to `width` terminal columns (``columns``), or as it is when it is as wide
    /// already. Columns, not UTF-16 units nor characters, are counted, as the columns' widths are: Foundation's
    /// `padding(toLength:withPad:startingAt:)` counts UTF-16 units, cut a name with an emoji short, and cost a fifth
    /// of `reactorlog log`'s time; a count of characters took `検索`, which a terminal shows in four columns, for two.
    func padded(to width: Int) -> String {
        let missing = width - columns
        return missing > 0 ? self + String(repeating: " ", count: missing) : self
    }

    /// The columns a terminal shows the string in: two for each wide character (East Asian wide and fullwidth ones,
    /// and emoji shown as pictures), one for any other; ASCII, most of every line, counted by its bytes.
    var columns: Int {
        if utf8.allSatisfy({ $0 < 0x80 }) { return utf8.count }
        return reduce(0) { $0 + Self.columns(of: $1) }
    }

    /// The columns the string takes once a line holding it is made visible (``Terminal/visible(_:colored:keepNewlines:)``):
    /// a control character a log's name may hold takes its escape's columns (`\u{1B}`, six). For a name padded before
    /// its line is made visible, as a listing's stream column is.
    var shownColumns: Int {
        if utf8.allSatisfy({ (0x20..<0x7F).contains($0) }) { return utf8.count }
        return Terminal.visible(self, colored: false, keepNewlines: false).columns
    }

    /// The columns of one character: two where its first scalar is wide, or it asks to be shown as an emoji picture.
    private static func columns(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let base = scalars.first else { return 0 }
        if scalars.count > 1 && scalars.contains("\u{FE0F}") { return 2 }
        if base.value < 0x1100 { return 1 }
        return isWide(base.value) || base.properties.isEmojiPresentation ? 2 : 1
    }

    /// Whether `value` is East Asian wide or fullwidth (Unicode's EastAsianWidth.txt, its blocks of W and F).
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
             0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            true
        default:
            false
        }
    }
}

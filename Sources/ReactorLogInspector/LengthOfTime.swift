import ArgumentParser

/// A length of time on the command line: numbers each with a unit, `ms`, `s`, `m`, `h` or `d`, largest first or not
/// (`90s`, `1.5h`, `1h30m`, `2d12h`); where an option reads a bare number as seconds (`bisect --timeout 30`), that too.
struct LengthOfTime {
    /// The length in nanoseconds.
    let nanoseconds: Int64

    /// The length in seconds.
    var seconds: Double { Double(nanoseconds) / 1e9 }

    /// The length `text` names, a bare number as seconds with `bareSeconds`; refuses text that is not one, saying what
    /// one is.
    static func parse(_ text: String, bareSeconds: Bool = false) throws -> LengthOfTime {
        let scales: [Substring: Double] = ["ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9, "d": 86_400e9]
        let written = bareSeconds && text.wholeMatch(of: /\d+(?:\.\d+)?/) != nil ? text + "s" : text
        let parts = written.matches(of: /(\d+(?:\.\d+)?)(ms|s|m|h|d)/)
        // The parts must make up the whole text: `5x`, `1h 30m` and `-1h` are refused, not read in part.
        guard !parts.isEmpty, parts.map({ $0.0.count }).reduce(0, +) == written.count else {
            let bare = bareSeconds ? "a number of seconds, or " : ""
            throw ValidationError("a length of time is \(bare)a number and a unit, ms, s, m, h or d, such as 90s, 15m, 2h, 1h30m or 1d")
        }
        let total = parts.reduce(0.0) { sum, part in sum + (Double(part.1) ?? .nan) * (scales[part.2] ?? .nan) }
        guard total < 9e18 else { throw ValidationError("it is longer than a log can span, about 290 years") }
        return LengthOfTime(nanoseconds: Int64(total))
    }
}

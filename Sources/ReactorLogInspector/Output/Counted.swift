/// `count` and the noun in the number it takes: `1 entry`, `2 entries`, `0 snapshots`.
func counted(_ count: some BinaryInteger, _ singular: String, _ plural: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
}

/// The first five of `items`, then how many more: `a, b, c, d, e and 3 more`, where `more` follows the count (` (reactorlog
/// info lists them)`); all of them when they are five or fewer.
func firstFive(_ items: [String], more: String = "") -> String {
    guard items.count > 5 else { return items.joined(separator: ", ") }
    return "\(items.prefix(5).joined(separator: ", ")) and \(items.count - 5) more\(more)"
}

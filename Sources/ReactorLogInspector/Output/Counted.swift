/// `count` and the noun in the number it takes: `1 entry`, `2 entries`, `0 snapshots`.
func counted(_ count: some BinaryInteger, _ singular: String, _ plural: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
}

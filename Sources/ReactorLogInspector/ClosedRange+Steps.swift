extension ClosedRange<UInt64> {
    /// The steps as the inspector names them: `#5`, `#5…#9`, or `#5 and every entry after it` for a stretch that runs
    /// to the end of the log.
    var named: String {
        if upperBound == .max { return "#\(lowerBound) and every entry after it" }
        return lowerBound == upperBound ? "#\(lowerBound)" : "#\(lowerBound)…#\(upperBound)"
    }

    /// What follows the first of `count` stretches named alone: ` (and 2 more stretches)`, nothing for one.
    static func more(_ count: Int) -> String {
        count <= 1 ? "" : " (and \(counted(count - 1, "more stretch", "more stretches")))"
    }
}

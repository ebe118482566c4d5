extension ClosedRange<UInt64> {
    /// The steps as the inspector names them: `#5`, `#5…#9`, or `#5 and every entry after it` for a stretch that runs
    /// to the end of the log.
    var named: String {
        if upperBound == .max { return "#\(lowerBound) and every entry after it" }
        return lowerBound == upperBound ? "#\(lowerBound)" : "#\(lowerBound)…#\(upperBound)"
    }

    /// A pin's window as a table shows it: ``named``, but `#5…end` for one open to the future.
    var window: String { upperBound == .max ? "#\(lowerBound)…end" : named }

    /// What follows the first of `count` stretches named alone: ` (and 2 more stretches)`, nothing for one.
    static func more(_ count: Int) -> String {
        count <= 1 ? "" : " (and \(counted(count - 1, "more stretch", "more stretches")))"
    }
}

extension Array<UInt64> {
    /// Steps in order, named with each run of three or more consecutive ones as a range: `#229…#304, #306, #307`.
    var namedInRuns: String {
        var runs: [ClosedRange<UInt64>] = []
        for step in self {
            if let last = runs.last, last.upperBound &+ 1 == step { runs[runs.count - 1] = last.lowerBound...step } else { runs.append(step...step) }
        }
        return runs.map { $0.count >= 3 ? $0.named : $0.map { "#\($0)" }.joined(separator: ", ") }.joined(separator: ", ")
    }
}

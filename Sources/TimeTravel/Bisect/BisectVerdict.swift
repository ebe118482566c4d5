/// A verdict on one state during a bisect, as `git bisect run` reads exit codes.
public enum BisectVerdict: String, Sendable, Hashable, Codable {
    /// The bug is not there yet.
    case good
    /// The bug is there.
    case bad
    /// This state cannot be judged (git bisect's exit code 125); bisect tries a neighbour.
    case skip
}

/// One state judged during a bisect.
public struct BisectProbe: Sendable, Hashable, Codable {
    /// The step judged.
    public let step: UInt64
    /// The verdict.
    public let verdict: BisectVerdict
}

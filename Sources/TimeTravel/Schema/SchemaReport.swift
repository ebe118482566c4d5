/// Whether a log's stream can be replayed with the current types, in the manner of Elm's debugger.
public struct SchemaReport: Sendable, Hashable, CustomStringConvertible {
    /// The verdict.
    public enum Verdict: Sendable, Hashable {
        /// The fingerprints match.
        case safe
        /// The types changed, but every recorded state and every kind of entry still decodes.
        case risky
        /// Something recorded no longer decodes: replay would fail.
        case impossible
    }

    /// The verdict.
    public let verdict: Verdict
    /// The fingerprint the stream was recorded with.
    public let recordedFingerprint: String
    /// The current types' fingerprint.
    public let currentFingerprint: String
    /// When impossible: the first entry that does not decode (0 for a recorded state), its case and the field.
    public let problem: Problem?

    /// What failed to decode.
    public struct Problem: Sendable, Hashable {
        /// The entry's step, or the snapshot's.
        public let step: UInt64
        /// The entry's kind and case, such as `mutation setRepos`, or `initial state`/`snapshot`.
        public let what: String
        /// The field path where decoding failed, such as `setRepos._0[3]`.
        public let field: String
        /// The decoder's message.
        public let message: String
    }

    /// A sentence.
    public var description: String {
        switch verdict {
        case .safe: "Replay is safe: the stream was recorded with the current types."
        case .risky: "Replay is risky: the types changed since the stream was recorded, but every recorded state and every case still decodes."
        case .impossible:
            problem.map { "Replay is impossible: #\($0.step) (\($0.what)) no longer decodes at field '\($0.field)': \($0.message)." }
                ?? "Replay is impossible."
        }
    }
}

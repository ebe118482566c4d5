/// What ``EventLog/verify(progress:)`` found.
public struct VerifyReport: Sendable, Hashable {
    /// One thing wrong with the log.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// How bad it is.
        public enum Severity: String, Sendable, Hashable {
            /// Data is damaged or inconsistent: reading or replaying it fails.
            case error
            /// The log is readable but not as its policy says (for example a missing snapshot).
            case warning
        }

        /// How bad it is.
        public let severity: Severity
        /// The entry or snapshot it concerns, if one.
        public let sequence: UInt64?
        /// What is wrong, as a sentence.
        public let message: String

        /// `error at #42: ...`.
        public var description: String {
            "\(severity.rawValue)\(sequence.map { " at #\($0)" } ?? ""): \(message)"
        }
    }

    /// How many entries were checked.
    public internal(set) var entries = 0
    /// How many snapshots were checked.
    public internal(set) var snapshots = 0
    /// How many streams were checked.
    public internal(set) var streams = 0
    /// Everything found, errors and warnings, in the order found.
    public internal(set) var problems: [Problem] = []
    /// When entries cannot be read: each stretch of them, in order, with the streams' entries in it and the states it
    /// leaves unknown. Empty on a healthy log, and when the damage is elsewhere (the stream index, a snapshot).
    public internal(set) var unreadable: [UnreadableStretch] = []
    /// Each snapshot whose record cannot be read, as ``EventLogError/corruptSnapshot(stream:sequence:reason:)``, in
    /// order of stream id and number. ``EventLog/recoveryPoint(stream:atOrBefore:)`` rebuilds the states it held from
    /// the snapshot before, unless entries on the way are gone (a trim's, or a gap's).
    public internal(set) var damagedSnapshots: [EventLogError] = []

    /// Whether no error was found (warnings allowed).
    public var isHealthy: Bool { firstError == nil }

    /// The first error found: for damaged entries, the one with the lowest sequence number.
    public var firstError: Problem? { problems.first { $0.severity == .error } }

    /// What was checked: `3 entries, 1 snapshot, 1 stream checked`.
    public var checked: String {
        let counted = { (count: Int, noun: String, nouns: String) in "\(count) \(count == 1 ? noun : nouns)" }
        return "\(counted(entries, "entry", "entries")), \(counted(snapshots, "snapshot", "snapshots")), \(counted(streams, "stream", "streams")) checked"
    }

    mutating func error(_ message: String, at sequence: UInt64? = nil) {
        problems.append(Problem(severity: .error, sequence: sequence, message: message))
    }

    mutating func warning(_ message: String, at sequence: UInt64? = nil) {
        problems.append(Problem(severity: .warning, sequence: sequence, message: message))
    }
}

extension VerifyReport: CustomStringConvertible {
    /// The verdict and what was checked, then each problem on a line of its own: `OK: 73 entries, 7 snapshots, 3 streams
    /// checked.`, or `DAMAGED: …` and `error at #42: …`.
    public var description: String {
        ([(isHealthy ? "OK: " : "DAMAGED: ") + checked + "."] + problems.map(\.description)).joined(separator: "\n")
    }
}


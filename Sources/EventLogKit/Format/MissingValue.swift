/// Why an entry is in the log without its value (``LogEntry/lacksValue``): replay cannot go through such a mutation,
/// and the stream's states from it to its next snapshot are not known.
public enum MissingValue: String, Sendable, Hashable, CustomStringConvertible {
    /// Its value could not be encoded when it was recorded (a hand-written conformance's mistake, a `Codable` that
    /// throws): the entry keeps its number, kind and cause, with the case name `unencodable`.
    case unencodable
    /// It stands for what a stream appended while a write failure (a full disk) stopped the log, written when the
    /// log wrote again, with the case name `unwritten`.
    case unwritten

    /// Why an entry of case name `caseName`, which has no value, has none.
    public init(caseName: String) {
        self = caseName == Self.unwritten.rawValue ? .unwritten : .unencodable
    }

    /// The clause that says why the value is not in the log, for a sentence about the entry.
    public var description: String {
        switch self {
        case .unencodable: "it could not be encoded when it was recorded"
        case .unwritten: "it stands for what the stream appended while the log could not be written (a full disk)"
        }
    }
}

import EventLogKit

extension EventLogError {
    /// What keeps the metadata from being vouched for, as a clause `info` and an export's header give: "the metadata's
    /// checksum does not match its keys and values, ...", or "the metadata's values were imported from an export of a
    /// log where ...".
    var unvouchedClause: String {
        switch self {
        case .corruptMetadata(let reason), .unvouchedMetadata(let reason):
            reason.hasPrefix("its ") ? "the metadata's " + reason.dropFirst(4) : reason
        default:
            description
        }
    }
}

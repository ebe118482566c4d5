import Foundation

/// An entry to append: what the caller knows before the log assigns a sequence number and a time.
public struct EntryDraft: Sendable, Hashable {
    /// What the entry records.
    public var kind: EntryKind
    /// The case name, such as `updateQuery`.
    public var caseName: String
    /// The encoded payload.
    public var payload: Data
    /// The codec of ``payload``.
    public var codec: CodecID
    /// The sequence number of the causing action, if any.
    public var cause: UInt64?
    /// The entry's time (nanoseconds since 1970); `nil` for the time it is appended. Set it only to copy
    /// entries from elsewhere, as `reactorlog import` does.
    public var timestamp: Int64?
    /// For an action: where it was sent from, such as `MyApp/CheckoutView.swift:42` (``EventLog/callSite(at:)``).
    public var callSite: String?

    /// Creates a draft.
    public init(
        kind: EntryKind, caseName: String, payload: Data, codec: CodecID = .json, cause: UInt64? = nil, timestamp: Int64? = nil,
        callSite: String? = nil
    ) {
        self.kind = kind
        self.caseName = caseName
        self.payload = payload
        self.codec = codec
        self.cause = cause
        self.timestamp = timestamp
        self.callSite = callSite
    }
}

/// What an entry records. The raw value is the kind byte stored in every record (see docs/FORMAT.md).
public enum EntryKind: UInt8, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// An action, after `transform(action:)`.
    case action = 1
    /// A mutation, after `transform(mutation:)`; replaying mutations through `reduce` rebuilds state.
    case mutation = 2
    /// An error thrown by an action's effect work.
    case effectError = 3
    /// A stream was created.
    case streamOpened = 4
    /// An existing stream was opened again.
    case streamResumed = 5
    /// A stream was closed cleanly.
    case streamClosed = 6

    /// The lower-case name used in listings and filters: `action`, `mutation`, `error`, `opened`, `resumed`, `closed`.
    public var description: String {
        switch self {
        case .action: "action"
        case .mutation: "mutation"
        case .effectError: "error"
        case .streamOpened: "opened"
        case .streamResumed: "resumed"
        case .streamClosed: "closed"
        }
    }

    /// The kind named `name` as in ``description`` (`error`, `opened`) or as its case in Swift
    /// (`effectError`, `streamOpened`), or `nil`.
    public init?(name: String) {
        guard let kind = Self.allCases.first(where: { $0.description == name || $0.swiftName == name }) else { return nil }
        self = kind
    }

    /// The kind's case name in Swift (`effectError`, `streamOpened`), which ``init(name:)`` also accepts.
    public var swiftName: String {
        switch self {
        case .action: "action"
        case .mutation: "mutation"
        case .effectError: "effectError"
        case .streamOpened: "streamOpened"
        case .streamResumed: "streamResumed"
        case .streamClosed: "streamClosed"
        }
    }

    /// The kind a record's kind byte names, or `nil`: ``init(rawValue:)`` spelled out so that it is inlined where a
    /// reader checks every entry's byte (the synthesized one is a call).
    @inline(__always) init?(byte: UInt8) {
        switch byte {
        case 1: self = .action
        case 2: self = .mutation
        case 3: self = .effectError
        case 4: self = .streamOpened
        case 5: self = .streamResumed
        case 6: self = .streamClosed
        default: return nil
        }
    }

    /// Whether this is a lifecycle marker rather than a reactor event.
    public var isLifecycle: Bool { rawValue >= EntryKind.streamOpened.rawValue }

    /// Whether an entry of this kind written with `codec` is in the log without its value: an action, mutation or
    /// effect error whose value could not be encoded when it was recorded (an `unencodable` entry, codec none; its
    /// sequence number is kept). Replay cannot go through such a mutation: the states from it to the stream's next
    /// snapshot are not known. Lifecycle markers have no value and are never without one.
    public func lacksValue(codec: CodecID) -> Bool { codec == .none && !isLifecycle }
}

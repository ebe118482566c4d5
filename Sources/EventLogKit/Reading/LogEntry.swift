import Foundation

/// One entry of a log, as read back: header fields and the encoded payload.
public struct LogEntry: Sendable, Hashable {
    // Declared widest first: 88 bytes, not the 104 of the order the initializer takes them in (blame keeps two
    // entries a change, and a list of entries is as long as the log allows).
    /// The global sequence number: 1 for the first entry of the log, then increasing by one.
    public let sequence: UInt64
    /// When it was appended: nanoseconds since 1970-01-01 UTC (wall clock).
    public let timestamp: Int64
    /// The name of the entry's stream, such as `search` or `todo#2`.
    public let stream: String
    /// The case name, such as `updateQuery`, for listing and filtering without decoding the payload.
    public let caseName: String
    /// The encoded value (for JSON, a UTF-8 JSON document); empty for lifecycle markers. It may be a slice of a
    /// buffer shared with other entries (blame's copies are): as with any `Data`, index it from `startIndex`.
    public let payload: Data
    /// The sequence number of the action whose effect produced this mutation or error;
    /// `nil` for actions, markers, and mutations from an external stream.
    public let cause: UInt64?
    /// The id of the entry's stream.
    public let streamID: UInt32
    /// What the entry records.
    public let kind: EntryKind
    /// The codec of ``payload``.
    public let codec: CodecID

    /// Creates an entry; the log creates entries when it reads them.
    public init(
        sequence: UInt64, streamID: UInt32, stream: String, kind: EntryKind, timestamp: Int64,
        cause: UInt64?, caseName: String, codec: CodecID, payload: Data
    ) {
        self.sequence = sequence
        self.streamID = streamID
        self.stream = stream
        self.kind = kind
        self.timestamp = timestamp
        self.cause = cause
        self.caseName = caseName
        self.codec = codec
        self.payload = payload
    }

    /// Whether the entry is in the log without its value (its value could not be encoded; see
    /// ``EntryKind/lacksValue(codec:)``): for a mutation, replay cannot go through it.
    public var lacksValue: Bool { kind.lacksValue(codec: codec) }

    /// Why the entry has no value, or `nil` when it has one (``lacksValue``).
    public var missingValue: MissingValue? {
        lacksValue ? MissingValue(caseName: caseName) : nil
    }

    /// ``timestamp`` as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: Double(timestamp) / 1e9) }
}

extension LogEntry: CustomStringConvertible {
    /// The entry in one line, its payload not decoded: `#3 counter mutation increaseValue, caused by #2`; a lifecycle
    /// marker is `#1 counter opened`, and an entry the log holds without its value says why
    /// (`#5 counter mutation, caused by #4, its value not recorded: it could not be encoded when it was recorded`).
    public var description: String {
        var line = "#\(sequence) \(stream) \(kind)"
        let missing = missingValue
        if !kind.isLifecycle, missing == nil { line += " \(caseName)" }
        if let cause { line += ", caused by #\(cause)" }
        if let missing { line += ", its value not recorded: \(missing)" }
        return line
    }
}


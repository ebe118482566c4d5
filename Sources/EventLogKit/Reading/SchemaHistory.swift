/// Which types wrote which part of a stream. A stream resumed after a schema change holds entries of both the
/// old and the new types; the history says, for each sequence number, whose they are, so that a reader can
/// decode each payload with the types that wrote it, or through migrations from them.
public struct SchemaHistory: Sendable, Hashable {
    /// A finished stretch of the stream: its entries and snapshots numbered up to ``through`` that no earlier era
    /// holds (and, for the first era, its initial state) were written by types of fingerprint ``fingerprint``.
    public struct Era: Sendable, Hashable {
        /// The schema fingerprint of the types that wrote the era.
        public let fingerprint: String
        /// The era's last sequence number: the stream's highest when its types changed.
        public let through: UInt64

        /// An era; ``EventLog/schemaHistory(stream:)`` reads them from the log.
        public init(fingerprint: String, through: UInt64) {
            self.fingerprint = fingerprint
            self.through = through
        }
    }

    /// The fingerprint of an era whose record in the log is damaged: the types that wrote it are not known.
    /// Migrations refuse its payloads (with none registered, payloads are decoded as they are, as always).
    public static let unknownFingerprint = "(unknown: its schema era record is damaged)"

    /// The finished eras, oldest first; empty for a stream whose types never changed.
    public let eras: [Era]
    /// The fingerprint of the types writing the stream now: every number after the last era's.
    public let current: String

    /// A history of `eras` (oldest first) followed by `current`.
    public init(eras: [Era], current: String) {
        self.eras = eras.sorted { $0.through < $1.through }
        self.current = current
    }

    /// The fingerprint of the types that wrote entry or snapshot `sequence` (0: the initial state).
    public func fingerprint(at sequence: UInt64) -> String {
        eras.first { sequence <= $0.through }?.fingerprint ?? current
    }
}

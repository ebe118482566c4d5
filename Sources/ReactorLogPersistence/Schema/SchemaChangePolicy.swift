/// What ``ReactorLog/Reactor/attach(to:stream:schemaFingerprint:migrations:onSchemaChange:redactingActions:)`` does when the
/// stream was recorded with types whose fingerprint differs from the reactor's.
public enum SchemaChangePolicy: Sendable, Hashable {
    /// The default. A stream whose recorded states and mutations all still decode resumes, and its fingerprint is
    /// updated. One that does not is renamed `NAME@N` (its entries stay readable there) and the reactor starts a
    /// new generation of `NAME` from its initial state: an app never fails to start over a schema change. So is a
    /// stream that cannot be resumed because what it recorded after its latest snapshot is damaged: its entries
    /// stay as they are under `NAME@N`, for `reactorlog verify` and offline bisect.
    case startNewGeneration
    /// As the default when everything still decodes; otherwise `attach` throws
    /// `EventLogError.incompatibleSchema` (or the damage it found) and the stream is left as it was.
    case fail
}

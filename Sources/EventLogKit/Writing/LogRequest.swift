/// What a log asks of the owner of an open stream's state, through the handler the owner registered with
/// ``LogStream/onLogRequest(_:)``. A recorded reactor's `attach` registers one.
public enum LogRequest: Sendable, Hashable {
    /// `EventLog.checkpoint()`: record the current state when mutations came since the stream's latest snapshot
    /// (``LogStream/writeCheckpoint(encoding:)``). The stream stays open. An owner that cannot answer at once may
    /// answer later, where nothing can be appended in between (a busy reactor does, when its dispatch gets there): the
    /// checkpoint's flush then does not include it, the writes that follow commit it.
    case checkpoint
    /// ``EventLog/close()`` is closing the log while the stream is open: close it with its last state
    /// (``LogStream/close(encodingFinalState:)``). Nothing appended after reaches the log.
    case close
}

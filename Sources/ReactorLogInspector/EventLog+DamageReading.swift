import EventLogKit

extension EventLog {
    /// The damage met reading entry `sequence`, or `nil` when it reads (or is no longer in the log): why a change or a
    /// bisect's answer comes without the action its mutation names as its cause.
    func damage(reading sequence: UInt64) -> EventLogError? {
        do throws(EventLogError) {
            _ = try entry(at: sequence)
            return nil
        } catch {
            return error
        }
    }
}

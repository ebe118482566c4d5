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

    /// The entry at `step` (`nil` where the log has none), for a command that needs it whole: one inside a block of
    /// entries that cannot be read is refused (exit 5) as `#20 cannot be read, so <consequence>: <the damage> <hint>`.
    func entry(at step: UInt64, neededSo consequence: String, hint: String) throws -> LogEntry? {
        do throws(EventLogError) {
            return try entry(at: step)
        } catch {
            guard case .corruptEntry = error else { throw error }
            throw InspectorFailure("#\(step) cannot be read, so \(consequence): \(error.problem) \(hint)", exit: .corrupt)
        }
    }
}

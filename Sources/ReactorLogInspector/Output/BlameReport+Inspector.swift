import EventLogKit
import TimeTravel

extension BlameReport.UnknownStretch {
    /// The sentence that says why the stretch's changes are not known: the damage's own, or the missing value's.
    var problem: String {
        damage?.problem ?? reason.problem
    }
}

extension BlameReport {
    /// The changes whose actions lie in blocks of entries that cannot be read (listed without them), by the mutation's
    /// number, with the damage met reading each. An action no longer in the log (trimmed) is not damage.
    func unreadableActions(in log: EventLog) -> [UInt64: EventLogError] {
        var found: [UInt64: EventLogError] = [:]
        for change in changes where change.action == nil {
            found[change.mutation.sequence] = change.mutation.cause.flatMap(log.damage(reading:))
        }
        return found
    }

    /// The recorded states passed over inside `range`, a change's range of mutations, which made it wider.
    func unreadableStates(in range: ClosedRange<UInt64>) -> [UnreadableState] {
        unreadableStates.filter { range.contains($0.step) }
    }

    /// Throws, once the rows are written, the first damage met: the stretches damage leaves unknown, the actions of
    /// `unreadableActions`, or the recorded states passed over (exit 5); warns of stretches left by mutations logged
    /// without their values, which are no damage. Nothing when there are none.
    func requireReadable(unreadableActions: [UInt64: EventLogError] = [:]) throws {
        let damaged = unknownStretches.compactMap { stretch in stretch.damage.map { (stretch.steps, $0) } }
        let notRecorded = unknownStretches.filter { $0.damage == nil }
        if let first = notRecorded.first {
            let what = first.steps.named + ClosedRange.more(notRecorded.count)
            StandardError.writeLine("reactorlog: warning: the changes in \(what) are not known, the rest listed: \(first.problem)")
        }
        var done: [String] = []
        if let (steps, _) = damaged.first {
            done.append("the changes in \(steps.named + ClosedRange.more(damaged.count)) are not known, the rest listed")
        }
        let actions = unreadableActions.keys.sorted()
        if let first = actions.first {
            let what = actions.count == 1 ? "#\(first)" : "#\(first) and \(actions.count - 1) more"
            done.append("the action that caused \(what) cannot be read, the change listed without it")
        }
        if let first = unreadableStates.first {
            done.append(unreadableStates.count == 1
                ? "the recorded state at #\(first.step) cannot be read, the changes across it placed between the states around it"
                : "\(unreadableStates.count) recorded states from #\(first.step) cannot be read, the changes across them placed between the states around them")
        }
        guard let damage = damaged.first?.1 ?? actions.first.flatMap({ unreadableActions[$0] }) ?? unreadableStates.first?.damage else { return }
        throw InspectorFailure.readPast(done, damage: damage)
    }
}

import EventLogKit

/// The recorded states a blame without a reducer passed over because their snapshots cannot be read, gathered across
/// the windows and stretches one report blames (a window may meet a state another met: each is kept once). Used on
/// the blaming thread only.
final class UnreadableStates {
    private var byStep: [UInt64: EventLogError] = [:]

    /// Notes that the state at `step` was passed over, reading its snapshot having met `damage`.
    func note(_ step: UInt64, _ damage: EventLogError) {
        byStep[step] = damage
    }

    /// The states noted, in order.
    var states: [BlameReport.UnreadableState] {
        byStep.sorted { $0.key < $1.key }.map { BlameReport.UnreadableState(step: $0.key, damage: $0.value) }
    }
}

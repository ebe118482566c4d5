import EventLogKit

/// What damage left out of a command's output, counted as the command goes on past it: the first damage met, which
/// the command's closing error names (exit 5), and how many things were left out (states, call sites, snapshots,
/// entries, times).
struct DamageTally {
    /// The first damage counted; `nil` while nothing was left out.
    private(set) var first: EventLogError?
    /// How many things were left out.
    private(set) var count = 0

    /// Counts one more thing left out by `damage`.
    mutating func add(_ damage: EventLogError) {
        first = first ?? damage
        count += 1
    }

    /// Counts what `other` counted too, its first damage after this one's.
    mutating func add(_ other: DamageTally) {
        first = first ?? other.first
        count += other.count
    }
}

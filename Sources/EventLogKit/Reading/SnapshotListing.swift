/// A stream's snapshots as a walk of their keys finds them, with what damage among the keys leaves unknown: the
/// numbers of the snapshots found, the damage that stopped the walk (`nil` where every key read or was placed by its
/// record), and for each key that neither reads nor is placed the numbers it may stand for, between the keys that read
/// on either side of it.
package struct SnapshotListing: Sendable {
    /// The numbers of the snapshots found, ascending.
    package var sequences: [UInt64]
    /// The damage among the keys, `nil` where the list is whole.
    package var damage: EventLogError?
    /// Where the snapshots under keys that neither read nor are placed may lie, ascending; empty where the list is whole.
    package var hidden: [ClosedRange<UInt64>]

    /// A listing of `sequences`, whole unless `damage` is given.
    package init(_ sequences: [UInt64], damage: EventLogError? = nil, hidden: [ClosedRange<UInt64>] = []) {
        (self.sequences, self.damage, self.hidden) = (sequences, damage, hidden)
    }
}

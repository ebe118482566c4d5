/// A set of entry kinds as one bit per kind byte, so that testing a byte read from the stream index is a shift and
/// an `and`, not a hash: listing a stream's mutations tests every entry of the stream.
struct KindMask: Sendable {
    private let bits: UInt64

    /// The mask of `kinds`.
    init(_ kinds: Set<EntryKind>) {
        bits = kinds.reduce(0) { $0 | 1 << UInt64($1.rawValue) }
    }

    /// Whether kind byte `raw` is one of the kinds; a byte above 63 (never written) is none.
    func contains(_ raw: UInt8) -> Bool {
        bits & 1 << UInt64(raw) != 0
    }
}

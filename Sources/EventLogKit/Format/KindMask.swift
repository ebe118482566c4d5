/// A set of entry kinds as one bit per kind byte, so that testing a kind is a shift and an `and`, not a hash: a query
/// tests every entry it reads, and listing a stream's mutations every byte of the stream index.
struct KindMask: Sendable, Hashable {
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

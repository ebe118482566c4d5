/// When the owner of a stream should write a snapshot of its state.
///
/// The log counts what each ``LogStream`` appends and says when a snapshot is due; the stream's owner
/// (the runtime), which holds the state, writes it. A clean ``LogStream/close(finalState:codec:)`` always
/// writes one.
public enum SnapshotPolicy: Sendable, Hashable, CustomStringConvertible {
    /// After every `n` mutations. Rebuilding the state at any step costs at most `n - 1` reduces.
    case every(mutations: Int)
    /// After every mutation: full time travel without the reducer, at the cost of one state per step.
    case everyMutation
    /// When the entries appended since the last snapshot reach `bytes` bytes of payload.
    case adaptive(bytes: Int)
    /// Only on a clean close.
    case never

    /// Every 256 mutations: rebuilding any step decodes and reduces at most 255 mutations
    /// (well under a millisecond with the JSON codec on the reference machine), and small states
    /// cost little space.
    public static let `default` = SnapshotPolicy.every(mutations: 256)

    /// The form stored in the log's metadata: `every:N`, `every-mutation`, `adaptive:BYTES` or `never`.
    public var description: String {
        switch self {
        case .every(let n): "every:\(n)"
        case .everyMutation: "every-mutation"
        case .adaptive(let bytes): "adaptive:\(bytes)"
        case .never: "never"
        }
    }

    /// Parses the form of ``description``.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        switch (parts.first, parts.count == 2 ? Int(parts[1]) : nil) {
        case ("every", let n?) where n > 0: self = .every(mutations: n)
        case ("every-mutation", nil) where parts.count == 1: self = .everyMutation
        case ("adaptive", let n?) where n > 0: self = .adaptive(bytes: n)
        case ("never", nil) where parts.count == 1: self = .never
        default: return nil
        }
    }

    /// Whether a snapshot is due after `mutations` mutations, whose payload bytes `bytes` counts, since the last one;
    /// under any policy, also when the writer asked for one (a mutation logged without its value). The tally is
    /// an atomic the writer thread writes once a batch, so reading it moves a cache line once a batch at most.
    func isDue(mutations: Int, bytes: PayloadTally) -> Bool {
        let due = switch self {
        case .every(let n): mutations >= n
        case .everyMutation: mutations >= 1
        case .adaptive(let limit): mutations >= 1 && bytes.value >= limit
        case .never: false
        }
        return due || mutations >= 1 && bytes.wantsSnapshot
    }
}

/// Which codec encoded a payload: the codec byte stored in every record (see docs/FORMAT.md).
///
/// Every record names its codec, so a log can mix codecs and a faster binary codec can be added
/// without a format break.
public struct CodecID: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The codec byte.
    public let rawValue: UInt8
    /// Creates an id from its codec byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// No codec: the payload is empty (lifecycle markers).
    public static let none = CodecID(rawValue: 0)
    /// JSON, as written by Foundation's `JSONEncoder`.
    public static let json = CodecID(rawValue: 1)
    /// The compact binary form of ``BinaryLogCodec``.
    public static let binary = CodecID(rawValue: 2)

    /// `none`, `json`, `binary`, or `codec-N` for a codec this version does not know.
    public var description: String {
        switch self {
        case .none: "none"
        case .json: "json"
        case .binary: "binary"
        default: "codec-\(rawValue)"
        }
    }
}

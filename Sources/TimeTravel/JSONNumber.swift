import BinaryPayloadKit

/// A number in a ``JSONValue``: an integer kept exactly, as Swift's integer types encode one (an `Int64` or
/// `UInt64` state field, a nanosecond timestamp, an identifier), any other number as the nearest double. Two
/// numbers are equal when they denote the same value, whichever form each is in: `5` equals `5.0`, and
/// `1795878961569513827` differs from `1795878961569513828`, which one double could not tell apart.
public enum JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// An integer in `Int64`'s range.
    case integer(Int64)
    /// An integer above `Int64.max`, in `UInt64`'s range.
    case unsigned(UInt64)
    /// Any other number: one with a fraction or an exponent, or an integer beyond `UInt64`.
    case double(Double)

    /// `value`, exactly.
    public init(_ value: Int64) {
        self = .integer(value)
    }

    /// `value`, exactly: ``integer(_:)`` when it fits.
    public init(_ value: UInt64) {
        self = value <= UInt64(Int64.max) ? .integer(Int64(value)) : .unsigned(value)
    }

    /// `value`.
    public init(_ value: Double) {
        self = .double(value)
    }

    /// The number a JSON number's text denotes: an integer literal exactly when it fits in `Int64` or `UInt64`, the
    /// nearest double otherwise; `nil` for text a double cannot hold.
    init?(text: String) {
        if let integer = Int64(text) {
            self = .integer(integer)
        } else if let unsigned = UInt64(text) {
            self = .unsigned(unsigned)
        } else if let double = Double(text), double.isFinite {
            self = .double(double)
        } else {
            return nil
        }
    }

    /// The nearest double.
    public var doubleValue: Double {
        switch self {
        case .integer(let value): Double(value)
        case .unsigned(let value): Double(value)
        case .double(let value): value
        }
    }

    /// Whether JSON can express it (a decoder can hand over an infinity for `1e999`).
    public var isFinite: Bool {
        if case .double(let value) = self { return value.isFinite }
        return true
    }

    /// JSON text: an integer's digits, a double without a fraction when it is integral.
    public var description: String {
        switch self {
        case .integer(let value): String(value)
        case .unsigned(let value): String(value)
        case .double(let value): JSONText.number(value)
        }
    }

    /// Whether the two denote the same value, whichever form each is in.
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        lhs.canonical == rhs.canonical
    }

    /// Hashes the value, so that equal numbers in different forms hash alike.
    public func hash(into hasher: inout Hasher) {
        canonical.hash(into: &hasher)
    }

    /// The number in its exact form: an integral double in `Int64` or `UInt64`'s range as that integer.
    private var canonical: JSONNumber.Canonical {
        switch self {
        case .integer(let value): return .integer(value)
        case .unsigned(let value): return .unsigned(value)
        case .double(let value):
            if let integer = Int64(exactly: value) { return .integer(integer) }
            if let unsigned = UInt64(exactly: value) { return .unsigned(unsigned) }
            return .double(value)
        }
    }

    private enum Canonical: Hashable {
        case integer(Int64)
        case unsigned(UInt64)
        case double(Double)
    }
}

extension JSONNumber: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    /// `.number(5)`: an integer.
    public init(integerLiteral value: Int64) {
        self = .integer(value)
    }

    /// `.number(1.5)`: a double.
    public init(floatLiteral value: Double) {
        self = .double(value)
    }
}

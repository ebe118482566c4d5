import BinaryPayloadKit
import Foundation

/// A number in a ``JSONValue``, kept as exactly as the state held it: an integer as Swift's integer types encode one
/// (an `Int64` or `UInt64` state field, a nanosecond timestamp, an identifier), a number a double holds as written
/// as that double, and a longer decimal (a `Decimal` field of more digits than a double keeps) as a `Decimal`. Two
/// numbers are equal when they denote the same value, whichever form each is in: `5` equals `5.0`, and
/// `1795878961569513827` differs from `1795878961569513828`, which one double could not tell apart, as
/// `0.12345678901234567891` differs from `0.12345678901234567892`.
public enum JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// An integer in `Int64`'s range.
    case integer(Int64)
    /// An integer above `Int64.max`, in `UInt64`'s range.
    case unsigned(UInt64)
    /// A number with a fraction or an exponent, or an integer beyond `UInt64`, that a double holds: a `Double`
    /// field, and any decimal whose digits the nearest double prints back.
    case double(Double)
    /// A decimal number no double holds as written, to a `Decimal`'s 38 digits: `0.12345678901234567891`, or
    /// an amount of 20 digits. Parsing and `JSONNumber(_:)` of a `Decimal` give this form only where ``double(_:)``
    /// would change the value.
    case decimal(Decimal)

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

    /// `value` in the form that holds it exactly: an integer when it is one in `Int64` or `UInt64`'s range, a double
    /// when the double prints back the same value, a decimal otherwise.
    public init(_ value: Decimal) {
        self = JSONNumber(text: value.description) ?? .decimal(value)
    }

    /// The number a JSON number's text denotes: an integer literal exactly when it fits in `Int64` or `UInt64`, the
    /// nearest double when that double denotes the same value, a `Decimal` when only one holds the digits; `nil` for
    /// text beyond a double's range.
    init?(text: String) {
        if let integer = Int64(text) {
            self = .integer(integer)
        } else if let unsigned = UInt64(text) {
            self = .unsigned(unsigned)
        } else if let double = Double(text), double.isFinite {
            self = JSONNumber.exactDecimal(text, unlessHeldBy: double).map(JSONNumber.decimal) ?? .double(double)
        } else {
            return nil
        }
    }

    /// The `Decimal` of `text` when `double`, the double nearest it, denotes another value and the decimal is
    /// within a `Decimal`'s range; `nil` when the double keeps the value, or when no `Decimal` does better.
    private static func exactDecimal(_ text: String, unlessHeldBy double: Double) -> Decimal? {
        // Every decimal of up to 15 significant digits comes back from its nearest normal double: the common case,
        // decided without parsing twice.
        if significantDigits(text) <= 15, double == 0 || abs(double) >= Double.leastNormalMagnitude { return nil }
        let shortest = JSONText.number(double)
        guard shortest != text, let decimal = Decimal(string: text), let held = Decimal(string: shortest), decimal != held,
              // A decimal that does not lead back to the same double is not the number the text denotes.
              Double(decimal.description) == double else { return nil }
        return decimal
    }

    /// The digits of a number's text from its first nonzero one to the exponent (trailing zeros counted).
    private static func significantDigits(_ text: String) -> Int {
        var digits = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "e"), UInt8(ascii: "E"): return digits
            case UInt8(ascii: "1")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "0") where digits > 0: digits += 1
            default: continue
            }
        }
        return digits
    }

    /// The nearest double.
    public var doubleValue: Double {
        switch self {
        case .integer(let value): Double(value)
        case .unsigned(let value): Double(value)
        case .double(let value): value
        case .decimal(let value): Double(value.description) ?? .nan
        }
    }

    /// Whether JSON can express it (a decoder can hand over an infinity for `1e999`, a `Decimal` can be NaN).
    public var isFinite: Bool {
        switch self {
        case .integer, .unsigned: true
        case .double(let value): value.isFinite
        case .decimal(let value): !value.isNaN
        }
    }

    /// JSON text: an integer's digits, a double without a fraction when it is integral, a decimal's every digit.
    public var description: String {
        switch self {
        case .integer(let value): String(value)
        case .unsigned(let value): String(value)
        case .double(let value): JSONText.number(value)
        case .decimal(let value): value.description
        }
    }

    /// Whether the two denote the same value, whichever form each is in.
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        switch (lhs, rhs) {
        // The same form, as a path's value mostly keeps from step to step (blame compares it at every mutation).
        case (.integer(let left), .integer(let right)): left == right
        case (.double(let left), .double(let right)): left == right
        default: lhs.canonical == rhs.canonical
        }
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
        case .decimal(let value):
            // Made with the case itself, a decimal may be a number another form holds.
            let exact = JSONNumber(value)
            if case .decimal = exact { return .decimal(value) }
            return exact.canonical
        }
    }

    private enum Canonical: Hashable {
        case integer(Int64)
        case unsigned(UInt64)
        case double(Double)
        case decimal(Decimal)
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

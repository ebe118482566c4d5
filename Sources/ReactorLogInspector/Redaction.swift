import Foundation
import TimeTravel

/// Masks the values of chosen object keys (`--redact password`) wherever they occur: in payloads, snapshots and
/// initial states. A masked value keeps its shape, so the types still decode it: a string becomes `"[redacted]"`,
/// a number 0, a boolean `false`, and arrays and objects keep their length and keys with every value inside
/// masked. JSON that holds none of the keys passes through byte for byte.
struct Redaction {
    let keys: Set<String>
    /// Each key as it appears in JSON text, quoted: a document without any of them needs no parsing.
    private let needles: [[UInt8]]

    init(keys: [String]) {
        self.keys = Set(keys)
        needles = self.keys.map { Array(("\"" + $0 + "\"").utf8) }
    }

    var isEmpty: Bool { keys.isEmpty }

    /// Whether the JSON text may hold one of the keys (a quick byte search; ``apply(_:)`` decides).
    func mayApply(to bytes: UnsafeRawBufferPointer) -> Bool {
        needles.contains { needle in
            guard bytes.count >= needle.count, let first = needle.first else { return false }
            var index = 0
            while index <= bytes.count - needle.count {
                if bytes[index] == first, (1..<needle.count).allSatisfy({ bytes[index + $0] == needle[$0] }) { return true }
                index += 1
            }
            return false
        }
    }

    /// `value` with the values of the redacted keys masked.
    func apply(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let values): return .array(values.map(apply))
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (key, member) in members { result[key] = keys.contains(key) ? Self.mask(member) : apply(member) }
            return .object(result)
        default: return value
        }
    }

    private static func mask(_ value: JSONValue) -> JSONValue {
        switch value {
        case .null: .null
        case .bool: .bool(false)
        case .number: .number(.integer(0))
        case .string: .string("[redacted]")
        case .array(let values): .array(values.map(mask))
        case .object(let members): .object(members.mapValues(mask))
        }
    }
}

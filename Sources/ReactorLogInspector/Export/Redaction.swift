import Foundation
import Synchronization
import TimeTravel

/// Masks the values of chosen object keys (`--redact password`) wherever they occur: in payloads, snapshots and
/// initial states. A masked value keeps its shape, so the types still decode it: a string becomes `"[redacted]"`,
/// a number 0, a boolean `false`, and arrays and objects keep their length and keys with every value inside
/// masked. JSON that holds none of the keys passes through byte for byte.
struct Redaction {
    let keys: Set<String>
    /// Each key as it appears in JSON text, quoted: a document without any of them needs no parsing.
    private let needles: [[UInt8]]
    /// The keys a value was masked for so far, shared by every copy of this redaction.
    private let masked = Masked()

    private final class Masked: Sendable {
        let keys = Mutex<Set<String>>([])
    }

    init(keys: [String]) {
        self.keys = Set(keys)
        needles = self.keys.map { Array(("\"" + $0 + "\"").utf8) }
    }

    var isEmpty: Bool { keys.isEmpty }

    /// A warning line naming the keys no value was masked for, or `nil` when every key masked something: a misspelt
    /// key (`--redact pasword`) masks nothing, and the file written holds what its writer meant to hide.
    var unmatchedWarning: String? {
        let missing = keys.subtracting(masked.keys.withLock { $0 }).sorted()
        guard !missing.isEmpty else { return nil }
        let names = missing.map { "'\($0)'" }.joined(separator: ", ")
        return "warning: --redact \(names) matched no key in what was written, so nothing was masked for \(missing.count == 1 ? "it" : "them"). Keys match exactly, case included: check the spelling."
    }

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
            for (key, member) in members {
                if keys.contains(key) {
                    masked.keys.withLock { _ = $0.insert(key) }
                    result[key] = Self.mask(member)
                } else {
                    result[key] = apply(member)
                }
            }
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

import Foundation
import Foundation
import Synchronization

/// Names the cases of one type's values, checking once (on the first value) whether the type is an enum.
final class CaseNamer: Sendable {
    private let isEnum = Mutex<Bool?>(nil)

    /// Creates a namer that has seen no value yet.
    init() {}

    /// The case name of `value`, whose JSON form is `json`.
    func name(_ value: Any, json: Data) -> String {
        let isEnum = isEnum.withLock { known in
            if let known { return known }
            let answer = Mirror(reflecting: value).displayStyle == .enum
            known = answer
            return answer
        }
        return isEnum ? CaseName.of(value, json: json) : "\(type(of: value))"
    }
}

/// The case name of an action or mutation, for the log's listings: `updateQuery` for
/// `.updateQuery("swift")`, `loadNextPage` for `.loadNextPage`, the type name for a non-enum.
enum CaseName {
    /// Reads the case name from the value's JSON form when it is an enum's (`{"updateQuery":{...}}` or
    /// `"loadNextPage"`): far cheaper than reflection. Falls back to reflection otherwise.
    static func of(_ value: Any, json: Data) -> String {
        json.withUnsafeBytes { bytes -> String? in
            guard bytes.count >= 2, bytes[0] == UInt8(ascii: "{"), bytes[1] == UInt8(ascii: "\"") else { return nil }
            guard let end = bytes[2...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
            // An enum case's object has exactly one key: the case name. Anything after that key's value
            // means a struct; let reflection name it.
            return isSingleKeyObject(bytes) ? String(decoding: bytes[2..<end], as: UTF8.self) : nil
        } ?? of(value)
    }

    /// Whether a JSON object has one member: no comma at depth 1 outside strings.
    private static func isSingleKeyObject(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ","): if depth == 1 { return false }
            default: break
            }
        }
        return true
    }

    /// The case name by reflection.
    static func of(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .enum else { return "\(type(of: value))" }
        if let label = mirror.children.first?.label { return label }
        return String(describing: value)
    }
}

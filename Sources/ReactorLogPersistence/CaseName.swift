import Foundation
import Synchronization

/// Names the cases of one type's values, checking once (on the first value) whether the type is an enum.
final class CaseNamer: Sendable {
    private let isEnum = Mutex<Bool?>(nil)

    /// Creates a namer that has seen no value yet.
    init() {}

    /// The case name of `value`, given the name its codec learned while encoding it, if any.
    func name(_ value: Any, learned: String?) -> String {
        let isEnum = isEnum.withLock { known in
            if let known { return known }
            let answer = Mirror(reflecting: value).displayStyle == .enum
            known = answer
            return answer
        }
        return isEnum ? learned ?? CaseName.of(value) : "\(type(of: value))"
    }
}

/// The case name of an action or mutation, for the log's listings: `updateQuery` for
/// `.updateQuery("swift")`, `loadNextPage` for `.loadNextPage`, the type name for a non-enum.
enum CaseName {
    /// The case name by reflection, for a value whose codec did not learn it while encoding.
    static func of(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .enum else { return "\(type(of: value))" }
        if let label = mirror.children.first?.label { return label }
        return String(describing: value)
    }
}

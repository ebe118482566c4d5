/// The case name of an action or mutation, for the log's listings: `updateQuery` for
/// `.updateQuery("swift")`, `loadNextPage` for `.loadNextPage`, the type name for a non-enum.
enum CaseName {
    static func of(_ value: Any) -> String {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .enum else { return "\(type(of: value))" }
        if let label = mirror.children.first?.label { return label }
        return String(describing: value)
    }
}

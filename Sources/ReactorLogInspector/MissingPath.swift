import TimeTravel

/// What a state has where a path it lacks leads: the deepest part of the path it has, and what is there (its
/// members, its count, its value). For errors that tell a typo (`repo` for `repos`) from an index past the end.
struct MissingPath: CustomStringConvertible {
    /// The path the state lacks.
    let path: StatePath
    /// The state, as JSON.
    let state: JSONValue

    /// `the state has isLoading, value`, `repos holds 30 items`, `query is "rx"`.
    var description: String {
        let depth = (0..<path.components.count).last { state[StatePath(Array(path.components.prefix($0)))] != nil } ?? 0
        let known = StatePath(Array(path.components.prefix(depth)))
        let holder = depth == 0 ? "the state" : "\(known)"
        switch state[known] {
        case .object(let members)?:
            let names = members.keys.sorted()
            return names.isEmpty ? "\(holder) has no members" : "\(holder) has \(names.prefix(8).joined(separator: ", "))\(names.count > 8 ? ", …" : "")"
        case .array(let values)?: return "\(holder) holds \(counted(values.count, "item"))"
        case let value?: return "\(holder) is \(EntryFormatter.brief(value))"
        case nil: return "\(holder) is absent"
        }
    }
}

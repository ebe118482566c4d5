import TimeTravel

/// What a state has where a path it lacks leads: the deepest part of the path it has, and what is there (its
/// members, its count, its value). For errors that tell a typo (`repo` for `repos`) from an index past the end.
struct MissingPath: CustomStringConvertible {
    /// The path the state lacks.
    let path: StatePath
    /// The state, as JSON.
    let state: JSONValue

    /// How many of the path's components, from the root, the state has.
    private var depth: Int {
        (0..<path.components.count).last { state[StatePath(Array(path.components.prefix($0)))] != nil } ?? 0
    }

    /// The part of the path the state has.
    private func known(depth: Int) -> StatePath {
        StatePath(Array(path.components.prefix(depth)))
    }

    /// `the state has isLoading, value`, `repos holds 30 items`, `query is "rx"`.
    var description: String {
        let known = known(depth: depth)
        let holder = known.components.isEmpty ? "the state" : "\(known)"
        switch state[known] {
        case .object(let members)?:
            let names = members.keys.sorted()
            return names.isEmpty ? "\(holder) has no members" : "\(holder) has \(names.prefix(8).joined(separator: ", "))\(names.count > 8 ? ", …" : "")"
        case .array(let values)?: return "\(holder) holds \(counted(values.count, "item"))"
        case let value?: return "\(holder) is \(EntryFormatter.brief(value))"
        case nil: return "\(holder) is absent"
        }
    }

    /// The path meant, where the first member the state lacks is a typo or a change of case away from one it has and
    /// the rest of the path is there too: `repos.count` for `repo.count`, `nextPage` for `nextpage`.
    var meant: StatePath? {
        let depth = depth
        guard depth < path.components.count, case .key(let typed) = path.components[depth],
              case .object(let members)? = state[known(depth: depth)],
              let name = UsageLine.nearest(to: typed, among: members.keys.sorted())
        else { return nil }
        var components = path.components
        components[depth] = .key(name)
        let candidate = StatePath(components)
        return state[candidate] != nil ? candidate : nil
    }
}


/// The changed paths between two states, computed from their `Codable` (JSON) form, so it works for any
/// state. Unchanged parts are left out; runs of elements added to, removed from or replaced in an array are
/// rendered as one line.
public struct StateDiff: Sendable, Hashable, CustomStringConvertible {
    /// Every change, in path order (properties sorted by name, elements by index).
    public let changes: [StateChange]

    /// Whether the states are equal.
    public var isEmpty: Bool { changes.isEmpty }

    /// The changes from `old` to `new`. When the two are the values at `path` of two states (a blamed path's value
    /// before and after a change), each change's path starts with `path`.
    public init(from old: JSONValue, to new: JSONValue, at path: StatePath = StatePath([])) {
        var changes: [StateChange] = []
        Self.compare(old, new, at: path, into: &changes)
        self.changes = changes
    }

    private static func compare(_ old: JSONValue?, _ new: JSONValue?, at path: StatePath, into changes: inout [StateChange]) {
        switch (old, new) {
        case (.object(let before)?, .object(let after)?):
            for key in Set(before.keys).union(after.keys).sorted() {
                compare(before[key], after[key], at: path.appending(.key(key)), into: &changes)
            }
        case (.array(let before)?, .array(let after)?):
            for index in 0..<max(before.count, after.count) {
                compare(index < before.count ? before[index] : nil, index < after.count ? after[index] : nil,
                        at: path.appending(.index(index)), into: &changes)
            }
        default:
            if old != new { changes.append(StateChange(path: path, old: old, new: new)) }
        }
    }

    /// One line per change; four or more consecutive elements added to, removed from or replaced in one array are
    /// one line: `+ repos[10...19]: 10 added ("swift/repo-11" … "swift/repo-20")`, `~ repos[0...9]: 10 changed
    /// ("swift/repo-1" → "rx/repo-1" … "swift/repo-10" → "rx/repo-10")`. `No change.` when empty.
    public var description: String {
        rendered().joined(separator: "\n")
    }

    /// The lines of ``description``.
    public func rendered() -> [String] {
        guard !changes.isEmpty else { return ["No change."] }
        var lines: [String] = []
        var index = 0
        while index < changes.count {
            let run = runLength(from: index)
            if run >= 4 {
                let first = changes[index], last = changes[index + run - 1]
                let parent = StatePath(Array(first.path.components.dropLast()))
                if case .index(let from)? = first.path.components.last, case .index(let to)? = last.path.components.last {
                    let (sign, verb, ends): (String, String, String) = switch (first.old, first.new) {
                    case (nil, _): ("+", "added", "\(Self.show(first.new)) … \(Self.show(last.new))")
                    case (_, nil): ("-", "removed", "\(Self.show(first.old)) … \(Self.show(last.old))")
                    default: ("~", "changed", "\(Self.show(first.old)) → \(Self.show(first.new)) … \(Self.show(last.old)) → \(Self.show(last.new))")
                    }
                    lines.append("\(sign) \(parent)[\(from)...\(to)]: \(run) \(verb) (\(ends))")
                }
                index += run
            } else {
                lines.append(changes[index].description)
                index += 1
            }
        }
        return lines
    }

    /// How many changes from `start` add, remove or replace consecutive elements of the same array, all of one kind.
    private func runLength(from start: Int) -> Int {
        let first = changes[start]
        guard case .index(var expected)? = first.path.components.last else { return 1 }
        let parent = first.path.components.dropLast()
        var length = 0
        for change in changes[start...] {
            guard case .index(let index)? = change.path.components.last, index == expected,
                  change.path.components.dropLast() == parent, (change.old == nil) == (first.old == nil),
                  (change.new == nil) == (first.new == nil) else { break }
            length += 1
            expected += 1
        }
        return length
    }

    private static func show(_ value: JSONValue?) -> String {
        value.map(abbreviate) ?? ""
    }

    /// A value in at most 60 characters.
    static func abbreviate(_ value: JSONValue) -> String {
        let text = value.description
        return text.count <= 60 ? text : String(text.prefix(57)) + "…"
    }
}

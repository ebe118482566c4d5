import EventLogKit

/// A path into a state, such as `repos[3]`, `user.name`, `items[2].done` or `repos.count`.
///
/// Paths follow the state's `Codable` (JSON) form: properties by name, array elements by index, and
/// `count` for the number of elements of an array or object (unless it has a property named `count`).
/// The empty path is the whole state.
public struct StatePath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Component: Sendable, Hashable {
        /// A property, by name.
        case key(String)
        /// An array element, by index.
        case index(Int)
    }

    /// The steps, from the root.
    public let components: [Component]
    /// The steps as the binary codec's path filter takes them, made once: blame encodes what lies on the path at
    /// every step. `count` is a member or a size, whichever the container has: the filter keeps enough for both.
    let binarySteps: [BinaryPayload.PathStep]

    /// A path from its components.
    public init(_ components: [Component]) {
        self.components = components
        binarySteps = components.map { component in
            switch component {
            case .key("count"): .count
            case .key(let key): .key(key)
            case .index(let index): .index(index)
            }
        }
    }

    /// Parses a path; throws ``TimeTravelError/malformedPath(path:reason:)``.
    public init(parsing text: String) throws(TimeTravelError) {
        var components: [Component] = []
        var index = text.startIndex
        func fail(_ reason: String) -> TimeTravelError { .malformedPath(path: text, reason: reason) }
        while index < text.endIndex {
            let character = text[index]
            if character == "." {
                guard !components.isEmpty else { throw fail("it starts with a dot") }
                index = text.index(after: index)
                guard index < text.endIndex, text[index] != ".", text[index] != "[" else { throw fail("a name is missing after a dot") }
            } else if character == "[" {
                guard let close = text[index...].firstIndex(of: "]") else { throw fail("a '[' is not closed") }
                let digits = text[text.index(after: index)..<close]
                guard let number = Int(digits), number >= 0 else {
                    // A range, as a diff names the elements a change added or removed: one of them is meant.
                    if let range = digits.wholeMatch(of: /([0-9]+)\.\.\.[0-9]+/) {
                        throw fail("'[\(digits)]' is a range of elements, and a path names one, such as [\(range.1)]")
                    }
                    throw fail("'[\(digits)]' is not an index from 0")
                }
                components.append(.index(number))
                index = text.index(after: close)
                if index < text.endIndex, text[index] != ".", text[index] != "[" { throw fail("'\(text[index])' follows an index") }
            } else {
                let end = text[index...].firstIndex { $0 == "." || $0 == "[" } ?? text.endIndex
                let name = String(text[index..<end])
                guard name.allSatisfy({ !$0.isWhitespace && $0 != "]" }) else { throw fail("'\(name)' is not a property name") }
                components.append(.key(name))
                index = end
            }
        }
        self.init(components)
    }

    /// Whether two paths have the same components.
    public static func == (a: StatePath, b: StatePath) -> Bool { a.components == b.components }

    /// Hashes the components.
    public func hash(into hasher: inout Hasher) { hasher.combine(components) }

    /// The canonical text form: `items[2].done`.
    public var description: String {
        var text = ""
        for component in components {
            switch component {
            case .key(let name): text += text.isEmpty ? name : ".\(name)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    /// This path extended by one component.
    func appending(_ component: Component) -> StatePath {
        StatePath(components + [component])
    }
}

extension JSONValue {
    /// The property `key` of an object, or `nil`.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The value at `path`, or `nil` when there is none (a missing property, an index past the end).
    public subscript(path: StatePath) -> JSONValue? {
        var current = self
        for component in path.components {
            switch (component, current) {
            case (.key(let name), .object(let members)):
                if let member = members[name] {
                    current = member
                } else if name == "count" {
                    current = .number(JSONNumber(Int64(members.count)))
                } else {
                    return nil
                }
            case (.key("count"), .array(let values)):
                current = .number(JSONNumber(Int64(values.count)))
            case (.key("count"), .string(let text)):
                current = .number(JSONNumber(Int64(text.count)))
            case (.index(let index), .array(let values)):
                guard index < values.count else { return nil }
                current = values[index]
            default:
                return nil
            }
        }
        return current
    }
}

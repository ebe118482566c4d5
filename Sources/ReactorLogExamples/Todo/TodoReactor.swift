import ReactorLog

/// A to-do list like RxTodo: add, edit, toggle, delete and move tasks. Every action is its own mutation.
public final class TodoReactor: Reactor {
    /// One task.
    public struct Item: Codable, Sendable, Equatable, Identifiable {
        /// Stable identity.
        public var id: Int
        /// What to do.
        public var title: String
        /// Whether it is done.
        public var isDone: Bool

        /// A task.
        public init(id: Int, title: String, isDone: Bool = false) {
            self.id = id
            self.title = title
            self.isDone = isDone
        }
    }

    /// What the user does, and what changes the list.
    public enum Action: Codable, Sendable, Equatable {
        /// Adds a task at the end.
        case add(String)
        /// Renames a task.
        case edit(id: Int, title: String)
        /// Marks a task done or not done.
        case toggle(id: Int)
        /// Removes a task.
        case delete(id: Int)
        /// Moves the task at one position to another.
        case move(from: Int, to: Int)
    }

    /// The list.
    public struct State: Codable, Sendable, Equatable {
        /// The tasks, in order.
        public var items: [Item] = []
        /// The id the next task gets.
        public var nextID = 1

        /// An empty list.
        public init() {}
    }

    /// An empty list.
    public let initialState = State()
    /// The reactor's runtime.
    public let runtime = Runtime()

    /// A to-do list.
    public init() {}

    /// Applies one action.
    public func reduce(state: State, mutation: Action) -> State {
        var state = state
        switch mutation {
        case let .add(title):
            state.items.append(Item(id: state.nextID, title: title))
            state.nextID += 1
        case let .edit(id, title):
            if let index = state.items.firstIndex(where: { $0.id == id }) { state.items[index].title = title }
        case let .toggle(id):
            if let index = state.items.firstIndex(where: { $0.id == id }) { state.items[index].isDone.toggle() }
        case let .delete(id):
            state.items.removeAll { $0.id == id }
        case let .move(from, to):
            guard state.items.indices.contains(from), state.items.indices.contains(to) else { break }
            state.items.insert(state.items.remove(at: from), at: to)
        }
        return state
    }
}

import EventLogKit
import Foundation
import ReactorLog
import ReactorLogPersistence
import TestSupport
import Testing
@testable import TimeTravel

/// Blame reads one path of the state at every step, encoding only what lies on it: it must see at every path
/// exactly what the whole state's JSON form has there.
@Suite("Path-limited encoding")
struct PathProbeTests {
    final class RichReactor: Reactor {
        enum Action: Codable, Sendable { case noop }
        enum Mode: Codable, Sendable, Equatable { case idle, loading(page: Int), failed(String) }
        struct Item: Codable, Sendable, Equatable {
            var title: String
            var done: Bool
            var tags: [String]
        }
        struct State: Codable, Sendable, Equatable {
            var items: [Item] = [Item(title: "a", done: false, tags: ["x", "y"]), Item(title: "b", done: true, tags: [])]
            var mode: Mode = .loading(page: 3)
            var counts: [String: Int] = ["one": 1, "two": 2]
            var grid: [[Int]] = [[1, 2], [], [3]]
            var note: String? = nil
            var ratio: Float = 0.1
            var price: Decimal = Decimal(string: "9.99")!
            var blob = Data([1, 2, 3])
            var count = 7
        }
        let initialState = State()
        let runtime = Runtime()
        func reduce(state: State, mutation: Action) -> State { state }
    }

    static let paths = [
        "", "items", "items[0]", "items[1].title", "items[0].tags[1]", "items[5]", "items[0].missing", "items.count",
        "items[0].tags.count", "mode", "mode.loading.page", "mode.failed", "counts", "counts.two", "counts.count",
        "grid[2][0]", "grid[1].count", "grid[0][9]", "note", "ratio", "price", "blob", "count", "title",
    ]

    @Test("the value at every path equals the whole state's JSON subscripted", arguments: paths)
    func agrees(_ text: String) throws {
        let replayer = ReactorReplayer { RichReactor() }
        let path = try StatePath(parsing: text)
        var state = RichReactor.State()
        #expect(try replayer.json(state, at: path) == (try replayer.json(state)[path]), "\(text)")
        state.mode = .failed("boom")
        state.items[0].tags = []
        state.note = "set"
        #expect(try replayer.json(state, at: path) == (try replayer.json(state)[path]), "\(text), changed")
    }

    /// A value that writes its members in either order: equal values, unequal bytes.
    final class FlippingReactor: Reactor {
        enum Action: Codable, Sendable { case flip, setX(Int) }
        enum Mutation: Codable, Sendable { case flip, setX(Int) }
        struct Pair: Codable, Sendable {
            var x = 1, y = 2
            var flipped = false
            enum CodingKeys: CodingKey { case x, y }
            init() {}
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                (x, y) = (try container.decode(Int.self, forKey: .x), try container.decode(Int.self, forKey: .y))
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                if flipped {
                    try container.encode(y, forKey: .y)
                    try container.encode(x, forKey: .x)
                } else {
                    try container.encode(x, forKey: .x)
                    try container.encode(y, forKey: .y)
                }
            }
        }
        struct State: Codable, Sendable { var pair = Pair() }
        let initialState = State()
        let runtime = Runtime()
        func mutate(action: Action) -> Effect {
            switch action {
            case .flip: .just(.flip)
            case let .setX(x): .just(.setX(x))
            }
        }
        func reduce(state: State, mutation: Mutation) -> State {
            var state = state
            switch mutation {
            case .flip: state.pair.flipped.toggle()
            case let .setX(x): state.pair.x = x
            }
            return state
        }
    }

    @Test("blame compares values, not bytes: a step that only reorders a value's members is no change")
    func reorderedIsUnchanged() throws {
        let scratch = ScratchDirectory()
        let replayer = ReactorReplayer { FlippingReactor() }
        var flipped = FlippingReactor.State()
        flipped.pair.flipped = true
        let path = try StatePath(parsing: "pair")
        #expect(try replayer.pathEncoding(flipped, at: path) != (try replayer.pathEncoding(FlippingReactor.State(), at: path)))
        let log = try EventLog.open(at: scratch.file("flip.reactorlog"))
        let reactor = FlippingReactor()
        try reactor.attach(to: log, stream: "flip")
        for action in [FlippingReactor.Action.flip, .setX(5), .flip, .flip, .setX(5), .setX(6)] { reactor.send(action) }
        try log.flush()
        let machine = try TimeMachine(log: log, stream: "flip", replayer: replayer)
        let changes = try machine.blame(path)
        #expect(changes.map(\.mutation.caseName) == ["setX", "setX"])
        #expect(changes.map(\.new) == [.object(["x": .number(5), "y": .number(2)]), .object(["x": .number(6), "y": .number(2)])])
        #expect(try machine.blame(try StatePath(parsing: "pair.y")).isEmpty)
    }

    @Test("what lies off the path is not written")
    func small() throws {
        var state = RichReactor.State()
        state.items = (0..<1_000).map { RichReactor.Item(title: "item \($0)", done: false, tags: ["t"]) }
        let whole = try BinaryLogCodec().encode(state)
        let kept = try BinaryLogCodec().encode(state, keepingOnly: [.key("mode"), .key("loading")])
        #expect(kept.count < 32 && whole.count > 10_000)
        let element = try BinaryLogCodec().encode(state, keepingOnly: [.key("items"), .index(999), .key("title")])
        #expect(element.count < 1_100, "one byte of null per element before it, then the title")
    }

    struct Arrays: Encodable {
        var list: [String]
        var numbers: [Int]
        var items: [RichReactor.Item]
        var grid: [[Int]]
    }
    struct GenericArrays: Encodable {
        var list: ContiguousArray<String>
        var numbers: ContiguousArray<Int>
        var items: ContiguousArray<RichReactor.Item>
        var grid: ContiguousArray<ContiguousArray<Int>>
    }

    @Test("arrays that a path filter reaches into, written apart, keep exactly what the generic path keeps")
    func filteredArrays() throws {
        let list = (0..<50).map { "name \($0)" }, numbers = Array(-25..<25)
        let items = (0..<50).map { RichReactor.Item(title: "item \($0)", done: $0 % 2 == 0, tags: ["t\($0)", "u"]) }
        let grid = (0..<50).map { Array(0..<$0 % 4) }
        let fast = Arrays(list: list, numbers: numbers, items: items, grid: grid)
        let generic = GenericArrays(
            list: ContiguousArray(list), numbers: ContiguousArray(numbers), items: ContiguousArray(items),
            grid: ContiguousArray(grid.map { ContiguousArray($0) }))
        let steps: [BinaryPayload.PathStep] = [.count, .index(0), .index(7), .index(49), .index(50), .key("count"), .key("x")]
        let deeper: [BinaryPayload.PathStep] = [.key("title"), .key("tags"), .index(1), .count]
        for key in ["list", "numbers", "items", "grid"] {
            for step in steps {
                let paths = [[.key(key), step], [.key(key)]] + deeper.map { [.key(key), step, $0] } + [[.key(key), step, .key("tags"), .index(0)]]
                for path in paths as [[BinaryPayload.PathStep]] {
                    #expect(try BinaryLogCodec().encode(fast, keepingOnly: path) == (try BinaryLogCodec().encode(generic, keepingOnly: path)), "\(path)")
                }
            }
        }
        #expect(try BinaryLogCodec().encode(fast, keepingOnly: [.key("list"), .count]).count < 60, "a null per element")
        #expect(try BinaryLogCodec().encode(fast, keepingOnly: [.key("items"), .index(3), .key("title")]).count < 80)
    }

    @Test("a count keeps the container's keys or elements, not what lies under them")
    func countIsSmall() throws {
        var state = RichReactor.State()
        state.items = (0..<1_000).map { RichReactor.Item(title: "item \($0)", done: false, tags: ["a long tag"]) }
        state.counts = Dictionary(uniqueKeysWithValues: (0..<1_000).map { ("k\($0)", $0) })
        let whole = try BinaryLogCodec().encode(state)
        let items = try BinaryLogCodec().encode(state, keepingOnly: [.key("items"), .count])
        #expect(items.count < 1_100, "a null per element")
        let member = try BinaryLogCodec().encode(state, keepingOnly: [.count])
        #expect(member.count < 100, "the top level's keys, its member count, nothing under the others")
        let keys = try BinaryLogCodec().encode(state, keepingOnly: [.key("counts"), .count])
        #expect(keys.count < 10_000 && whole.count > 30_000)
        let replayer = ReactorReplayer { RichReactor() }
        for text in ["items.count", "count", "counts.count"] {
            let path = try StatePath(parsing: text)
            #expect(try replayer.json(state, at: path) == (try replayer.json(state)[path]), "\(text)")
        }
        #expect(try replayer.json(state, at: StatePath(parsing: "counts.count")) == .number(1_000))
        #expect(try #require(try replayer.pathEncoding(state, at: StatePath(parsing: "items.count"))).count < 1_100)
    }
}

/// Random states and paths for the path-limited encoding: every filter shortcut (a `count`, arrays written apart,
/// strings and integers in one pass) must agree with the whole state's JSON form at every path.
@Suite("Path-limited encoding, random states")
struct RandomPathProbeTests {
    indirect enum Tree: Codable, Sendable {
        case leaf(Int)
        case text(String)
        case list([Tree])
        case names([String])
        case numbers([Int])
        case record([String: Tree])
    }

    final class TreeReactor: Reactor {
        enum Action: Codable, Sendable { case noop }
        struct State: Codable, Sendable {
            var root: Tree
            var count: Int
            var items: [Tree]
        }
        let initialState: State
        let runtime = Runtime()
        init(_ state: State) { initialState = state }
        func reduce(state: State, mutation: Action) -> State { state }
    }

    static let keys = ["a", "b", "count", "list", "_0"]

    static func tree(_ depth: Int, _ random: inout Xorshift) -> Tree {
        switch Int.random(in: 0..<(depth > 3 ? 3 : 6), using: &random) {
        case 0: .leaf(Int.random(in: -5...5, using: &random))
        case 1: .names((0..<Int.random(in: 0...4, using: &random)).map { "n\($0)" })
        case 2: .numbers((0..<Int.random(in: 0...4, using: &random)).map { $0 * 7 })
        case 3: .list((0..<Int.random(in: 0...3, using: &random)).map { _ in tree(depth + 1, &random) })
        case 4: .record(Dictionary(keys.shuffled(using: &random).prefix(Int.random(in: 0...3, using: &random)).map { ($0, tree(depth + 1, &random)) }) { first, _ in first })
        default: .text("t")
        }
    }

    /// Paths that lead somewhere in `value`, plus a `count` or an index past the end on the way.
    static func paths(in value: JSONValue, _ random: inout Xorshift) -> [StatePath] {
        var found: [StatePath] = []
        for _ in 0..<12 {
            var current = value
            var components: [StatePath.Component] = []
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                switch current {
                case .object(let members) where !members.isEmpty && Int.random(in: 0..<5, using: &random) > 0:
                    let key = members.keys.sorted()[Int.random(in: 0..<members.count, using: &random)]
                    components.append(.key(key))
                    current = members[key]!
                case .array(let values) where !values.isEmpty && Int.random(in: 0..<5, using: &random) > 0:
                    let index = Int.random(in: 0..<values.count, using: &random)
                    components.append(.index(index))
                    current = values[index]
                default:
                    components.append(Bool.random(using: &random) ? .key("count") : .index(Int.random(in: 0...9, using: &random)))
                    current = .null
                }
            }
            found.append(StatePath(components))
        }
        return found
    }

    @Test("at every path of 300 random states, the path-limited value is the whole state's")
    func agrees() throws {
        var random = Xorshift(state: 20_261_125)
        var compared = 0
        for _ in 0..<300 {
            let state = TreeReactor.State(
                root: Self.tree(0, &random), count: Int.random(in: 0...3, using: &random),
                items: (0..<Int.random(in: 0...5, using: &random)).map { _ in Self.tree(1, &random) })
            let replayer = ReactorReplayer { TreeReactor(state) }
            let whole = try replayer.json(state)
            for path in Self.paths(in: whole, &random) {
                #expect(try replayer.json(state, at: path) == whole[path], "\(path)")
                compared += 1
            }
        }
        #expect(compared == 3_600)
    }
}

import EventLogKit
import Foundation
import ReactorLog
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
}

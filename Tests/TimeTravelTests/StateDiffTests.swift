import Foundation
import TimeTravel
import Testing

@Suite("Paths and diffs")
struct StateDiffTests {
    func json(_ text: String) throws -> JSONValue { try JSONValue(parsing: Data(text.utf8)) }

    @Test("paths parse, print canonically, and find values, with count on arrays and objects")
    func paths() throws {
        let state = try json(#"{"repos":["a","b","c"],"user":{"name":"ann"},"items":[{"done":false},{"done":true}],"count":7}"#)
        #expect(state[try StatePath(parsing: "repos[1]")] == .string("b"))
        #expect(state[try StatePath(parsing: "user.name")] == .string("ann"))
        #expect(state[try StatePath(parsing: "items[1].done")] == .bool(true))
        #expect(state[try StatePath(parsing: "repos.count")] == .number(3))
        #expect(state[try StatePath(parsing: "count")] == .number(7))
        #expect(state[try StatePath(parsing: "repos[9]")] == nil)
        #expect(state[try StatePath(parsing: "")] == state)
        #expect(try StatePath(parsing: "items[2].done").description == "items[2].done")
        for bad in ["repos[", "repos[x]", ".name", "a..b", "repos[1]x", "a.[1]", "repos[-1]"] {
            #expect(throws: TimeTravelError.self, "\(bad)") { try StatePath(parsing: bad) }
        }
        // A range as a diff prints one (`repos[20...29]: 10 added`) names the element meant.
        #expect(throws: TimeTravelError.malformedPath(path: "repos[20...29]", reason: "'[20...29]' is a range of elements, and a path names one, such as [20]")) {
            try StatePath(parsing: "repos[20...29]")
        }
    }

    @Test("a diff lists changed, added and removed paths and nothing unchanged")
    func diff() throws {
        let old = try json(#"{"query":"swift","repos":["a","b"],"page":2,"user":{"name":"ann","id":1}}"#)
        let new = try json(#"{"query":"rx","repos":["a","c","d"],"user":{"name":"ann","id":1},"loading":true}"#)
        let diff = StateDiff(from: old, to: new)
        #expect(diff.rendered() == [
            "+ loading: true",
            "- page: 2",
            #"~ query: "swift" → "rx""#,
            #"~ repos[1]: "b" → "c""#,
            #"+ repos[2]: "d""#,
        ])
        #expect(StateDiff(from: old, to: old).description == "No change.")
        // Two values at a path of their states: the changes' paths are the states'.
        let items = StateDiff(from: try json(#"[{"done":false},{"done":false}]"#), to: try json(#"[{"done":false},{"done":true}]"#),
                              at: try StatePath(parsing: "todo.items"))
        #expect(items.rendered() == ["~ todo.items[1].done: false → true"])
    }

    @Test("a run of four or more elements added to, removed from or replaced in an array is one line")
    func collapsedRuns() throws {
        let old = try json(#"{"repos":["r1","r2"]}"#)
        let new = try json(#"{"repos":["r1","r2","r3","r4","r5","r6","r7"]}"#)
        #expect(StateDiff(from: old, to: new).rendered() == [#"+ repos[2...6]: 5 added ("r3" … "r7")"#])
        #expect(StateDiff(from: new, to: old).rendered() == [#"- repos[2...6]: 5 removed ("r3" … "r7")"#])
        // A new search's results replace the old ones: one line for the replaced elements, one for those added.
        let replaced = try json(#"{"repos":["x1","x2","x3","x4","x5","x6","x7","x8"]}"#)
        #expect(StateDiff(from: new, to: replaced).rendered() == [
            #"~ repos[0...6]: 7 changed ("r1" → "x1" … "r7" → "x7")"#, #"+ repos[7]: "x8""#,
        ])
        // Three are listed one by one, as are elements changed inside (not replaced) and runs broken by an equal one.
        let three = try json(#"{"repos":["x1","x2","x3","r4","r5","x6","r7"]}"#)
        #expect(StateDiff(from: new, to: three).rendered().count == 4)
        let inner = try json(#"{"items":[{"done":false},{"done":false},{"done":false},{"done":false}]}"#)
        let innerDone = try json(#"{"items":[{"done":true},{"done":true},{"done":true},{"done":true}]}"#)
        #expect(StateDiff(from: inner, to: innerDone).rendered().first == "~ items[0].done: false → true")
    }

    @Test("JSON values keep booleans and numbers apart and print compactly")
    func jsonValues() throws {
        let value = try json(#"{"b":true,"n":1,"x":1.5,"s":"q\"uote","a":[null]}"#)
        #expect(value.description == #"{"a":[null],"b":true,"n":1,"s":"q\"uote","x":1.5}"#)
    }
}

@testable import ReactorLogInspector
import Testing

/// The nearest-name rule every suggestion of the inspector uses: commands, options, streams, cases, kinds, paths.
@Suite("reactorlog's suggestions")
struct UsageLineTests {
    @Test("a character inserted, deleted, replaced or swapped with the next is one step; a change of case none")
    func distance() {
        #expect(UsageLine.distance("title", "title") == 0)
        #expect(UsageLine.distance("titel", "title") == 1 && UsageLine.distance("stat", "state") == 1)
        #expect(UsageLine.distance("serch", "search") == 1 && UsageLine.distance("srch", "search") == 2)
        #expect(UsageLine.distance("", "abc") == 3 && UsageLine.distance("abc", "") == 3 && UsageLine.distance("", "") == 0)
        #expect(UsageLine.distance("ca", "abc") == 3)
    }

    @Test("a name is suggested when it is a step away for each three characters typed, at least one and at most two")
    func nearest() {
        let streams = ["counter", "search", "todo"]
        #expect(UsageLine.nearest(to: "serch", among: streams) == "search")
        #expect(UsageLine.nearest(to: "Search", among: streams) == "search")
        #expect(UsageLine.nearest(to: "cuontre", among: streams) == "counter")
        #expect(UsageLine.nearest(to: "sarch", among: streams) == "search")
        #expect(UsageLine.nearest(to: "h8", among: ["a1", "b2"]) == nil)
        #expect(UsageLine.nearest(to: "a2", among: ["a1", "b2"]) == "a1")
        #expect(UsageLine.nearest(to: "frobnicate", among: streams) == nil)
        #expect(UsageLine.nearest(to: "x", among: []) == nil)
    }
}

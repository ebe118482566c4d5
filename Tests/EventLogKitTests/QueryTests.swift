import EventLogKit
import Foundation
import TestSupport
import Testing

/// Replay bounds, in the manner of event-store journal test kits.
@Suite("Reading ranges")
struct QueryTests {
    let scratch = ScratchDirectory()
    let log: EventLog

    /// A log with entries 1 (opened marker) through 10.
    init() throws {
        log = try scratch.openLog()
        let stream = try log.counterStream()
        for i in 2...10 { try stream.append(.mutation("m", i)) }
        try log.flush()
    }

    func sequences(_ query: EntryQuery) throws -> [UInt64] {
        try log.readEntries(query).map(\.sequence)
    }

    @Test("a lower bound, an upper bound, and both")
    func bounds() throws {
        #expect(try sequences(EntryQuery(from: 4)) == Array(4...10))
        #expect(try sequences(EntryQuery(through: 3)) == [1, 2, 3])
        #expect(try sequences(EntryQuery(from: 4, through: 6)) == [4, 5, 6])
    }

    @Test("an entry matches a query's kind, case and time filters as reading with that query selects it")
    func matchesAnEntry() throws {
        let stream = try log.counterStream("other")
        try stream.append(.action("a"))
        try log.flush()
        let all = try log.readEntries(EntryQuery())
        let times = all.map(\.timestamp).sorted()
        let queries = [
            EntryQuery(), EntryQuery(kinds: [.action]), EntryQuery(kinds: [.mutation, .streamOpened]), EntryQuery(caseName: "m"),
            EntryQuery(caseName: "a"), EntryQuery(since: times[4]), EntryQuery(until: times[4]), EntryQuery(kinds: [.mutation], since: times[6]),
        ]
        for query in queries {
            let selected = try sequences(query)
            #expect(!selected.isEmpty, "\(query)")
            #expect(all.filter { query.matches($0) }.map(\.sequence) == selected, "\(query)")
        }
    }

    @Test("kinds narrow a scan and a stream's read alike, set at creation or changed after")
    func kinds() throws {
        let stream = try log.counterStream("other")
        try stream.append(.action("a"))
        try log.flush()
        #expect(try sequences(EntryQuery(kinds: [.streamOpened])) == [1, 11])
        var query = EntryQuery(stream: "other")
        #expect(try sequences(query) == [11, 12])
        query.kinds = [.action]
        #expect(try sequences(query) == [12])
        query.kinds = [.mutation, .effectError]
        #expect(try sequences(query).isEmpty)
        query.kinds = nil
        #expect(try sequences(query) == [11, 12])
        query.stream = nil
        query.kinds = [.mutation]
        #expect(try sequences(query) == Array(2...10))
    }

    @Test("a limit, alone and with bounds")
    func limits() throws {
        #expect(try sequences(EntryQuery(limit: 3)) == [1, 2, 3])
        #expect(try sequences(EntryQuery(from: 5, limit: 2)) == [5, 6])
        #expect(try sequences(EntryQuery(from: 5, through: 6, limit: 10)) == [5, 6])
        #expect(try sequences(EntryQuery(from: 9, limit: 10)) == [9, 10])
    }

    @Test("lower equal to upper reads exactly one entry")
    func singleEntry() throws {
        #expect(try sequences(EntryQuery(from: 7, through: 7)) == [7])
        #expect(try log.entry(at: 7)?.sequence == 7)
        #expect(try log.entry(at: 11) == nil)
    }

    @Test("a limit of 0 and a lower bound above the upper bound read nothing")
    func emptyRanges() throws {
        #expect(try sequences(EntryQuery(limit: 0)).isEmpty)
        #expect(try sequences(EntryQuery(from: 6, through: 5)).isEmpty)
        #expect(try sequences(EntryQuery(from: 11)).isEmpty)
        #expect(try sequences(EntryQuery(from: .max)).isEmpty)
    }

    @Test("an unknown stream has highest sequence number 0 and no entries")
    func unknownStream() throws {
        #expect(try log.highestSequence(stream: "nobody") == 0)
        #expect(try sequences(EntryQuery(stream: "nobody")).isEmpty)
        #expect(throws: EventLogError.unknownStream(name: "nobody")) {
            try log.latestSnapshot(stream: "nobody", atOrBefore: 5)
        }
        #expect(try log.highestSequence(stream: "counter") == 10)
        #expect(try log.highestSequence() == 10)
    }

    @Test("filters by kind, case name and time, since and until")
    func filters() throws {
        let stream = try log.counterStream("other")
        let action = try stream.append(.action("load"))
        try stream.append(.mutation("setLoading", 1, cause: action))
        try log.flush()
        #expect(try sequences(EntryQuery(kinds: [.action])) == [action])
        #expect(try sequences(EntryQuery(kinds: [.streamOpened])) == [1, 11])
        #expect(try sequences(EntryQuery(caseName: "setLoading")) == [action + 1])
        #expect(try sequences(EntryQuery(stream: "other", kinds: [.mutation])) == [action + 1])
        let future = Int64(Date().timeIntervalSince1970 * 1e9) + 60_000_000_000
        #expect(try sequences(EntryQuery(since: future)).isEmpty)
        #expect(try sequences(EntryQuery(since: 0)).count == 13)
        #expect(try sequences(EntryQuery(until: future)).count == 13)
        #expect(try sequences(EntryQuery(until: 0)).isEmpty)
        // A clock that stepped back: times filter every entry, the read does not stop at the first one past `until`.
        let late = try stream.append(EntryDraft(kind: .action, caseName: "late", payload: Data(), timestamp: 3_000))
        let early = try stream.append(EntryDraft(kind: .action, caseName: "early", payload: Data(), timestamp: 1_000))
        let middle = try stream.append(EntryDraft(kind: .action, caseName: "middle", payload: Data(), timestamp: 2_000))
        try log.flush()
        #expect(try sequences(EntryQuery(until: 1_000)) == [early])
        #expect(try sequences(EntryQuery(since: 1_001, until: 2_000)) == [middle])
        #expect(try sequences(EntryQuery(stream: "other", since: 2_000, until: 3_000)) == [late, middle])
    }

    @Test("sequence numbers of a stream's entries of some kinds come from the index, with bounds")
    func sequencesFromIndex() throws {
        let stream = try log.counterStream("other")
        let action = try stream.append(.action("load"))
        let mutation = try stream.append(.mutation("set", cause: action))
        try log.flush()
        #expect(try log.sequences(stream: "other", kinds: [.mutation]) == [mutation])
        #expect(try log.sequences(stream: "other", kinds: [.action, .mutation]) == [action, mutation])
        #expect(try log.sequences(stream: "counter", kinds: [.mutation], from: 4, through: 6) == [4, 5, 6])
        #expect(try log.sequences(stream: "counter", kinds: [.mutation], from: 7, through: 6).isEmpty)
        #expect(throws: EventLogError.unknownStream(name: "x")) { try log.sequences(stream: "x", kinds: [.action]) }
    }

    @Test("iterating more entries than one read chunk returns every entry once, in order")
    func manyChunks() throws {
        let stream = try log.counterStream("bulk")
        for i in 0..<20_000 { try stream.append(.mutation("m", i)) }
        try log.flush()
        var iterator = log.entries(EntryQuery(stream: "bulk", kinds: [.mutation]))
        var count = 0
        var previous: UInt64 = 0
        while let entry = try iterator.next() {
            #expect(entry.sequence > previous)
            previous = entry.sequence
            count += 1
        }
        #expect(count == 20_000)
        #expect(iterator.isComplete == false)
    }

    @Test("entries(at:) answers each number in the order asked, nil where there is no entry, across read chunks")
    func lookupsByNumber() throws {
        let stream = try log.counterStream("bulk")
        for i in 0..<3_000 { try stream.append(.mutation("m", i)) }
        try log.flush()
        let highest = try log.highestSequence()
        // Out of order, repeated, missing (0 and past the end), and more than one chunk of 1,024.
        let asked: [UInt64] = [highest, 0, 7, highest + 5, 7] + (1...highest).reversed()
        let found = try log.entries(at: asked)
        #expect(found.count == asked.count)
        for (sequence, entry) in zip(asked, found) {
            if sequence == 0 || sequence > highest {
                #expect(entry == nil, "#\(sequence)")
            } else {
                let expected = try #require(try log.readEntries(EntryQuery(from: sequence, through: sequence)).first)
                #expect(entry == expected, "#\(sequence)")
            }
        }
        #expect(found[0]?.stream == "bulk")
        #expect(found[2]?.stream == "counter")
        #expect(try log.entries(at: []).isEmpty)
    }

    @Test("forEachEntry reads in place exactly what entries() copies, with every filter")
    func inPlace() throws {
        let log = try scratch.twoStreamLog("in-place.reactorlog", mutations: 40)
        try log.flush()
        let queries = [
            EntryQuery(), EntryQuery(from: 7, through: 30), EntryQuery(kinds: [.mutation]), EntryQuery(caseName: "tick"),
            EntryQuery(stream: "plain"), EntryQuery(from: 9, through: 33, stream: "plain", kinds: [.mutation]), EntryQuery(limit: 5),
        ]
        for query in queries {
            var seen: [LogEntry] = []
            try log.forEachEntry(query) { seen.append(LogEntry(copying: $0)) }
            #expect(seen == (try log.readEntries(query)), "\(query)")
        }
    }

    @Test("an error thrown while reading in place reaches the caller as it was thrown, and stops the read")
    func inPlaceError() throws {
        struct Stop: Error, Equatable {}
        let log = try scratch.twoStreamLog("in-place-error.reactorlog", mutations: 40)
        try log.flush()
        for query in [EntryQuery(), EntryQuery(stream: "plain")] {
            var seen = 0
            #expect(throws: Stop()) {
                try log.forEachEntry(query) { _ in
                    seen += 1
                    if seen == 3 { throw Stop() }
                }
            }
            #expect(seen == 3)
        }
    }
}

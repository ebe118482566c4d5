import EventLogKit
import Testing

/// What a log reports when writing resumes, as its pins keep it.
@Suite("Write resumption")
struct WriteResumptionTests {
    func appends(entries: Int, mutations: Int, over nanoseconds: Int64) -> WriteResumption.RefusedAppends {
        WriteResumption.RefusedAppends(
            stream: "search", entries: entries, mutations: mutations, firstRefusedAt: 1_000, lastRefusedAt: 1_000 + nanoseconds,
            unwrittenEntry: 42)
    }

    @Test("a pin's reason counts the entries and mutations lost and the time they span, to the millisecond")
    func pinReason() {
        #expect(appends(entries: 22, mutations: 18, over: 3_215_400_000).pinReason == "write failure: 'search' lost 22 entries (18 mutations) over 3.215 s")
        #expect(appends(entries: 1, mutations: 1, over: 5_000_000).pinReason == "write failure: 'search' lost 1 entry (1 mutation) over 0.005 s")
        #expect(appends(entries: 2, mutations: 0, over: 0).pinReason == "write failure: 'search' lost 2 entries (0 mutations) over 0.000 s")
        #expect(appends(entries: 3, mutations: 3, over: 61_020_000_000).pinReason == "write failure: 'search' lost 3 entries (3 mutations) over 61.020 s")
    }
}

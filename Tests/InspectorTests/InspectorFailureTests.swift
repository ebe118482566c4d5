import EventLogKit
import LMDB
@testable import ReactorLogInspector
import Testing
import TimeTravel

/// The inspector words the library's errors with its own hints where a command helps more than a call: the
/// problem is the library's, the hint names `reactorlog`'s commands.
@Suite("the inspector's hints")
struct InspectorFailureTests {
    @Test("damage, an unknown stream, a missing reducer and other types get a command to run; the rest the library's hint")
    func commandsForHints() {
        let cases: [(any Error, String, InspectorExit)] = [
            (EventLogError.corruptEntry(sequence: 3, reason: "its checksum does not match"), "Run `reactorlog verify` to find every damaged entry.", .corrupt),
            (EventLogError.corruptSnapshot(stream: "s", sequence: 4, reason: "r"), "Run `reactorlog verify` for details.", .corrupt),
            (EventLogError.unknownStream(name: "nope"), "Run `reactorlog info` to list its streams.", .invalidArgument),
            (TimeTravelError.log(.corruptIndex(streamID: 1, block: 5, reason: "r")), "Run `reactorlog verify` for details.", .corrupt),
            (TimeTravelError.needsReducer(step: 5, stream: "s", nearest: [4]), "Read one of those, or run an inspector that knows the reactor (docs/INSPECTOR.md).", .needsReducer),
            (TimeTravelError.needsReducer(step: 5, stream: "s", nearest: []), "none. Run an inspector that knows the reactor (docs/INSPECTOR.md).", .needsReducer),
            (TimeTravelError.snapshotUnreadable(step: 5, stream: "s", damage: .corruptSnapshot(stream: "s", sequence: 5, reason: "r"), nearest: [8]),
             "Recorded states nearby that read: #8. Read one of those, or run an inspector that knows the reactor (docs/INSPECTOR.md); `reactorlog verify` names every damaged snapshot.", .corrupt),
            (TimeTravelError.noRecordedStates(stream: "s", from: 2, through: 9), "Run an inspector that knows the reactor (docs/INSPECTOR.md), or record snapshots more often.", .bisectFailed),
            (TimeTravelError.schemaMismatch(what: "Mutation #3 (bumpValue)", detail: "unknown case"), "Run an inspector built from the app version that recorded it", .schemaMismatch),
            (TimeTravelError.valueNotRecorded(step: 7, stream: "s", mutation: 6, missing: .unencodable, readableFrom: nil), "Pick a step before #6: no snapshot of the stream follows it.", .invalidArgument),
            (EventLogError.newerFormat(path: "/a", found: 9, supported: 7), EventLogError.newerFormat(path: "/a", found: 9, supported: 7).hint, .newerFormat),
            (EventLogError.damagedFile(path: "/a", reason: "it is truncated"), "Nothing was read; restore the log from a copy.", .corrupt),
            (EventLogError.damagedFile(path: "/a", reason: "its data.mdb has a damaged page structure (…), which only a writer trips on: readers can still open it"),
             "Nothing was written; commands that only read it work", .corrupt),
            (TimeTravelError.stepUnreadable(step: 5, stream: "s", damage: .corruptEntry(sequence: 4, reason: "r"), statesUnknown: [5..<9]),
             "Pick a step before #5, or from #9 on, rebuilt from a snapshot after the damage. `reactorlog verify` names every damaged entry.", .corrupt),
            // A page LMDB did not find (MDB_PAGE_NOTFOUND): damage, exit 5, where it was "cannot open", exit 3.
            (EventLogError.storage(path: "/a", LMDBError(code: -30797, operation: "mdb_cursor_get")), "run `reactorlog verify` to learn what can still be read.", .corrupt),
            (EventLogError.storage(path: "/a", LMDBError(code: 12, operation: "mdb_env_open")), "Check the path's permissions and free space.", .cannotOpen),
        ]
        for (error, hint, exit) in cases {
            let failure = InspectorFailure(error)
            let problem = (error as? EventLogError)?.problem ?? (error as? TimeTravelError)?.problem ?? ""
            #expect(failure.message.hasPrefix(problem + " ") && failure.message.contains(hint), "\(failure.message)")
            #expect(failure.exit == exit, "\(failure.message)")
            #expect(!failure.message.contains("EventLog.") && !failure.message.contains("ReactorReplayer"), "\(failure.message)")
        }
    }
}

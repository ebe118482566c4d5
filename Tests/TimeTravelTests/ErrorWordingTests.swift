import EventLogKit
import LMDB
import Testing
import TimeTravel

/// The library's errors speak to a program using the library: a sentence naming the problem, then a hint that names
/// the library's calls, never the inspector's commands or flags (the inspector words its own, see InspectorTests).
@Suite("library errors")
struct ErrorWordingTests {
    static let logErrors: [EventLogError] = [
        .notFound(path: "/a"), .notFound(path: ""), .notALog(path: "/a", reason: "no data.mdb"), .newerFormat(path: "/a", found: 9, supported: 7),
        .alreadyOpen(path: "/a", detail: "pid 4"), .replacedWhileOpen(path: "/a"), .readOnlyInThisProcess(path: "/a"), .readOnly(path: "/a"), .closed(path: "/a"),
        .corruptEntry(sequence: 3, reason: "its checksum does not match"), .corruptSnapshot(stream: "s", sequence: 4, reason: "r"),
        .corruptStream(id: 1, reason: "r"), .corruptIndex(streamID: 1, block: 5, reason: "r"), .corruptKeys(streamID: 1, records: "snapshot", reason: "r"), .corruptMetadata(reason: "r"),
        .damagedFile(path: "/a", reason: "it is truncated"),
        .damagedFile(path: "/a", reason: "its data.mdb has a damaged page structure (node 0 of page 13 (database 'entries') has flags no record has (8)), which only a writer trips on: readers can still open it"),
        .permissionDenied(path: "/a", reason: "its data.mdb cannot be read"),
        .cannotCreate(path: "/a", reason: "this user may not write in /"), .unknownStream(name: "nope"),
        .streamInUse(name: "s"), .invalidArgument("The limit must be positive."), .codec("Entry #3 does not decode."),
        .incompatibleSchema(stream: "s", recorded: "f1", current: "f2", problem: "a case was renamed"),
        .writeFailed(path: "/a", lastCommitted: 9, unwritten: 2, underlying: "No space left on device"),
        .storage(path: "/a", LMDBError.dropped("entries")), .storage(path: "/a", LMDBError(code: -30797, operation: "mdb_cursor_get")),
    ]

    static let timeTravelErrors: [TimeTravelError] = [
        .malformedPath(path: "repos[", reason: "a bracket is not closed"), .stepOutOfRange(step: 9, stream: "s", highest: 5),
        .stepTrimmed(step: 1, stream: "s", earliest: 4), .stepRemoved(step: 5, stream: "s", removed: 4...8),
        .needsReducer(step: 5, stream: "s", nearest: [4, 8]), .needsReducer(step: 5, stream: "s", nearest: []),
        .snapshotUnreadable(step: 5, stream: "s", damage: .corruptSnapshot(stream: "s", sequence: 5, reason: "r"), nearest: [8]),
        .bisectPrecondition("The state at #3 is already bad, so the bug came earlier. Start the bisect from an earlier step."),
        .noRecordedStates(stream: "s", from: 2, through: 9), .nothingToCompare(stream: "s", from: 0, through: 9),
        .notAnAction(step: 4, stream: "s"), .bisectLogIncomplete(step: 4),
        .log(.unknownStream(name: "nope")), .decoding("Entry #3 does not decode."),
        .schemaMismatch(what: "Mutation #3 (bumpValue)", detail: "unknown case"),
        .valueNotRecorded(step: 7, stream: "s", mutation: 6, missing: .unencodable, readableFrom: 9), .valueNotRecorded(step: 7, stream: "s", mutation: 6, missing: .unencodable, readableFrom: nil),
        .valueNotRecorded(step: 7, stream: "s", mutation: 6, missing: .unwritten, readableFrom: 9),
    ] + stepsUnreadable.map(\.error)

    /// Damage to entries and to a trimmed stream's base snapshot, with and without snapshots inside it or after it,
    /// and the hint naming the steps that can still be rebuilt.
    static let stepsUnreadable: [(error: TimeTravelError, hint: String)] = [
        (.stepUnreadable(step: 16, stream: "s", damage: .corruptEntry(sequence: 1, reason: "r"), statesUnknown: [3..<14, 16..<27, 28..<32]),
         "Pick a step before #3, or from #32 on, rebuilt from a snapshot after the damage. Snapshots inside the damage hold the states at #14…#15 and #27 too."),
        (.stepUnreadable(step: 5, stream: "s", damage: .corruptEntry(sequence: 4, reason: "r"), statesUnknown: [5..<9]),
         "Pick a step before #5, or from #9 on, rebuilt from a snapshot after the damage."),
        (.stepUnreadable(step: 5, stream: "s", damage: .corruptEntry(sequence: 4, reason: "r"), statesUnknown: [5..<7, 9..<11, 12..<20, 30..<(.max)]),
         "Pick a step before #5: no snapshot follows the damage. Snapshots inside the damage hold the states at #7…#8, #11 and #20…#29 too."),
        (.stepUnreadable(step: 5, stream: "s", damage: .corruptSnapshot(stream: "s", sequence: 4, reason: "r"), statesUnknown: [4..<9]),
         "Pick a step from #9 on, rebuilt from a snapshot after the damage."),
        (.stepUnreadable(step: 5, stream: "s", damage: .corruptSnapshot(stream: "s", sequence: 4, reason: "r"), statesUnknown: [4..<(.max)]),
         "No state after the damage can be rebuilt: no snapshot follows it."),
    ]

    @Test("a state rebuilt through damage names every step whose state can still be rebuilt")
    func unreadableWording() {
        for (error, hint) in Self.stepsUnreadable {
            #expect(error.hint == hint + " `EventLog.verify()` names every damaged entry.", "\(error)")
        }
    }

    @Test("a state rebuilt through a mutation without its value says why the value is missing")
    func missingValueWording() {
        let cases: [(MissingValue, String)] = [
            (.unencodable, "it could not be encoded when it was recorded"),
            (.unwritten, "it stands for what the stream appended while the log could not be written (a full disk)"),
        ]
        for (missing, why) in cases {
            let error = TimeTravelError.valueNotRecorded(step: 7, stream: "s", mutation: 6, missing: missing, readableFrom: 9)
            #expect(error.problem == "The state of 's' at #7 is rebuilt through mutation #6, which the log holds without its value: \(why).")
            #expect(MissingValue(caseName: missing.rawValue) == missing)
        }
    }

    @Test("every error is its problem and its hint, each a sentence, and names no command of the inspector")
    func sentencesForTheLibrary() {
        for (error, problem, hint) in Self.logErrors.map({ ("\($0)", $0.problem, $0.hint) }) + Self.timeTravelErrors.map({ ("\($0)", $0.problem, $0.hint) }) {
            #expect(error == (hint.isEmpty ? problem : problem + " " + hint))
            #expect(problem.hasSuffix(".") && (hint.isEmpty || hint.hasSuffix(".")), "\(error)")
            #expect(!error.contains("reactorlog ") && !error.contains("`reactorlog`") && !error.contains("--") && !error.contains("inspector"), "\(error)")
        }
        #expect(EventLogError.corruptEntry(sequence: 3, reason: "r").hint.contains("EventLog.verify()"))
        #expect(EventLogError.unknownStream(name: "nope").hint.contains("EventLog.streams()"))
        // Damage only a writer trips on says that the log still reads.
        #expect(Self.logErrors.filter(\.refusesOnlyWriters).map(\.hint) == ["Nothing was written: open it read-only to read or export it, or move it aside (keep it for a bug report) and open a new log at the path."])
        // A page LMDB did not find (MDB_PAGE_NOTFOUND) is damage, not a matter of permissions or free space.
        #expect(EventLogError.storage(path: "/a", LMDBError(code: -30797, operation: "mdb_cursor_get")).hint.hasPrefix("LMDB found the data file damaged"))
        #expect(TimeTravelError.log(.unknownStream(name: "nope")).description == EventLogError.unknownStream(name: "nope").description)
        #expect(TimeTravelError.needsReducer(step: 5, stream: "s", nearest: []).hint.hasPrefix("Travel with a replayer"))
    }
}

import EventLogKit
import Foundation
import TestSupport
import Testing

/// The README's example, kept compiling and correct.
@Suite("README")
struct ReadmeExampleTests {
    @Test("the ten-line example runs and lists what it appended")
    func tenLines() throws {
        let scratch = ScratchDirectory()
        let log = try EventLog.open(at: scratch.file("session.reactorlog"))
        let stream = try log.openStream(named: "counter", reactorType: "CounterReactor",
                                        schemaFingerprint: "v1", initialState: 0)
        let action = try stream.append(.action, "increase", caseName: "increase")
        let step = try stream.append(.mutation, 1, caseName: "increaseValue", cause: action)
        if stream.isSnapshotDue { try stream.writeSnapshot(1, at: step) }
        try log.flush()
        let listed = try log.readEntries(EntryQuery(stream: "counter")).map { "\($0.sequence) \($0.kind) \($0.caseName)" }
        try log.close()
        #expect(listed == ["1 opened opened", "2 action increase", "3 mutation increaseValue"])
    }
}

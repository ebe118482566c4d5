import EventLogKit
import Foundation
import Testing

/// Demo logs the damage tests start from.
enum DemoLog {
    /// Records at `path`, unless a log is there already, a demo log of `actions` actions and then one entry more, in a
    /// commit of its own (a stream `note`): the commit before then holds the pages of the demo's streams' ends too.
    static func withLastCommitApart(at path: String, actions: Int) async throws {
        guard !FileManager.default.fileExists(atPath: path) else { return }
        #expect(try await Tool.run(["demo", "--out", path, "--actions", "\(actions)"]).status == 0)
        let log = try EventLog.open(at: path)
        let note = try log.openStream(named: "note", reactorType: "Note", schemaFingerprint: "1", initialState: ["n": 0])
        try note.append(.action, ["note": "last"], caseName: "note")
        try await log.flush()
        try log.close()
    }
}

import EventLogKit
import Foundation
import TestSupport

extension EntryDraft {
    /// An action entry whose payload is the JSON string of its case name.
    static func action(_ name: String) -> EntryDraft {
        EntryDraft(kind: .action, caseName: name, payload: Data("\"\(name)\"".utf8))
    }

    /// A mutation entry with a JSON integer payload.
    static func mutation(_ name: String, _ value: Int = 1, cause: UInt64? = nil) -> EntryDraft {
        EntryDraft(kind: .mutation, caseName: name, payload: Data("{\"\(name)\":{\"_0\":\(value)}}".utf8), cause: cause)
    }
}

extension ScratchDirectory {
    /// Opens (creating) a log in the scratch directory, with `configure` applied to the defaults.
    func openLog(
        _ name: String = "test.reactorlog", configure: (inout EventLogConfiguration) -> Void = { _ in }
    ) throws -> EventLog {
        var configuration = EventLogConfiguration()
        configure(&configuration)
        return try EventLog.open(at: file(name), configuration: configuration)
    }

    /// A log with two streams: `counter` (id 1), adding 1, 2, 3, … with a snapshot of the total every 10
    /// mutations, and `plain` (id 2), one action after each of counter's mutations.
    func twoStreamLog(_ name: String, mutations: Int) throws -> EventLog {
        let log = try openLog(name) { $0.snapshotPolicy = .every(mutations: 10) }
        let counter = try log.counterStream(), plain = try log.counterStream("plain")
        var total = 0
        for i in 1...mutations {
            let sequence = try counter.append(.mutation("add", i))
            total += i
            if counter.isSnapshotDue { try counter.writeSnapshot(total, at: sequence) }
            try plain.append(.action("tick"))
        }
        return log
    }
}

extension EventLog {
    /// Opens a stream with an integer initial state.
    func counterStream(_ name: String = "counter", initial: Int = 0) throws -> LogStream {
        try openStream(named: name, reactorType: "Counter", schemaFingerprint: "counter-v1", initialState: initial)
    }

    /// Every sequence number in the log, in order.
    func allSequences() throws -> [UInt64] {
        try readEntries().map(\.sequence)
    }
}

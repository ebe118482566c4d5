// A child process for the crash tests: appends batches to a log until it is killed, and prints
// `ack N` once every entry up to sequence number N is durable, so the test knows what must survive.
//
// Usage: eventlog-crash-writer LOG sync|grouped|nosync RUN [STREAM]   (the stream: "crash" unless named; "+": a new
// stream for each batch, as a server making a stream per session)
import EventLogKit
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 4 || arguments.count == 5, let durability = Durability(rawValue: arguments[2]), let run = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: eventlog-crash-writer LOG sync|grouped|nosync RUN [STREAM]\n".utf8))
    exit(64)
}

/// What each entry's payload records, so the test can tell whether a batch is whole.
struct Marker: Codable {
    let run: Int
    let batch: Int
    let index: Int
    let count: Int
}

do {
    var configuration = EventLogConfiguration(durability: durability)
    configuration.initialMapSize = 1 << 16
    configuration.snapshotPolicy = .every(mutations: 50)
    let log = try EventLog.open(at: arguments[1], configuration: configuration)
    let name = arguments.count == 5 ? arguments[4] : "crash"
    let streamPerBatch = name == "+"
    var stream = try log.openStream(named: streamPerBatch ? "run-\(run)" : name, reactorType: "CrashWriter", schemaFingerprint: "v1", initialState: 0)
    var generator = SystemRandomNumberGenerator()
    var batch = 0
    var total = 0
    while true {
        batch += 1
        if streamPerBatch {
            try stream.close()
            stream = try log.openStream(named: "run-\(run)-\(batch)", reactorType: "CrashWriter", schemaFingerprint: "v1", initialState: 0)
        }
        let count = Int.random(in: 1...20, using: &generator)
        let drafts = try (0..<count).map { index in
            EntryDraft(kind: .mutation, caseName: "add", payload: try JSONEncoder().encode(Marker(run: run, batch: batch, index: index, count: count)))
        }
        let sequences = try stream.append(batch: drafts)
        total += count
        if stream.isSnapshotDue {
            try stream.writeSnapshot(total, at: sequences.upperBound)
        }
        if durability != .sync && batch % 8 == 0 {
            try log.flush()
        }
        if durability == .sync || batch % 8 == 0 {
            FileHandle.standardOutput.write(Data("ack \(sequences.upperBound)\n".utf8))
        }
    }
} catch {
    FileHandle.standardError.write(Data("eventlog-crash-writer: \(error)\n".utf8))
    exit(1)
}

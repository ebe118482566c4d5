// A child process for the crash tests: appends batches to a log until it is killed, and prints
// `ack N` once every entry up to sequence number N is durable, so the test knows what must survive.
//
// Usage: eventlog-crash-writer LOG sync|grouped|nosync RUN [STREAM]   (the stream: "crash" unless named; "+": a new
// stream for each batch, as a server making a stream per session)
//
// With CRASH_WRITER_RESUME set (`now`: it calls resumeWriting(); `retry`: it waits for the log's own retries), a write
// failure (a file size limit, as a full disk) does not end it: it prints `stopped N committed M` (N: the last number an
// append took; M: the last committed), tries 3 batches more, which are refused, lifts its file size limit to the hard
// one, resumes, appends 60 batches more, prints what the log reported as it resumed (`refused STREAM ENTRIES MUTATIONS
// UNWRITTEN after FAILURE, in order; K refused here`, a line a stream: "in order" when the first refusal's time is not
// after the last's, K the entries of the appends that threw here) and `resumed`, and ends. It snapshots then only when
// the log asks. With the stream `tally`, a recorded reactor does the same: it sends until its log fails, prints
// `stopped N committed M`, sends 100 actions more, resumes, sends 10, prints `resumed COUNT` (its state's count), and
// ends, closing its stream. With CRASH_WRITER_FREE set to a file's path, the disk gets room again by that file's
// removal instead (a full disk, not a file size limit).
import EventLogKit
import Foundation
import ReactorLog
import ReactorLogPersistence
import Synchronization

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

let resume = ProcessInfo.processInfo.environment["CRASH_WRITER_RESUME"]
/// What the log reported when it resumed writing.
let resumptions = Mutex<[WriteResumption]>([])

do {
    var configuration = EventLogConfiguration(durability: durability)
    configuration.initialMapSize = 1 << 16
    // Resuming, snapshots come only when the log asks for one: after the appends it refused.
    configuration.snapshotPolicy = resume == nil ? .every(mutations: 50) : .never
    configuration.writeRetryInterval = resume == "retry" ? .milliseconds(20) : nil
    configuration.onWriteResumed = { report in resumptions.withLock { $0.append(report) } }
    let log = try EventLog.open(at: arguments[1], configuration: configuration)
    let name = arguments.count == 5 ? arguments[4] : "crash"
    if name == "tally" {
        try recordTally(log)
        exit(0)
    }
    let streamPerBatch = name == "+"
    var stream = try log.openStream(named: streamPerBatch ? "run-\(run)" : name, reactorType: "CrashWriter", schemaFingerprint: "v1", initialState: 0)
    var generator = SystemRandomNumberGenerator()
    var batch = 0
    var total = 0
    var lastTaken: UInt64 = 0
    var resumedBatches: Int?
    /// The entries of appends that threw: the batch the failure stopped, when an append rather than a flush met it,
    /// and the three refused after it.
    var refusedHere = 0
    while resumedBatches.map({ $0 < 60 }) ?? true {
        batch += 1
        if let done = resumedBatches { resumedBatches = done + 1 }
        if streamPerBatch {
            try stream.close()
            stream = try log.openStream(named: "run-\(run)-\(batch)", reactorType: "CrashWriter", schemaFingerprint: "v1", initialState: 0)
        }
        let count = Int.random(in: 1...20, using: &generator)
        let drafts = try (0..<count).map { index in
            EntryDraft(kind: .mutation, caseName: "add", payload: try JSONEncoder().encode(Marker(run: run, batch: batch, index: index, count: count)))
        }
        let sequences: ClosedRange<UInt64>
        var taken = false
        do {
            sequences = try stream.append(batch: drafts)
            taken = true
            lastTaken = sequences.upperBound
            total += count
            if stream.isSnapshotDue {
                try stream.writeSnapshot(total, at: sequences.upperBound)
            }
            if durability != .sync && batch % 8 == 0 {
                try log.flush()
            }
        } catch {
            guard resume != nil, resumedBatches == nil, isWriteFailure(error) else { throw error }
            if !taken { refusedHere += count }
            refusedHere += try resumeAfterFailure(log, stream, lastTaken: lastTaken)
            resumedBatches = 0
            continue
        }
        if durability == .sync || batch % 8 == 0 {
            FileHandle.standardOutput.write(Data("ack \(sequences.upperBound)\n".utf8))
        }
    }
    // Flushed, the report is in: the writer made it before the commits after the one that resumed.
    try log.flush()
    for resumption in resumptions.withLock({ $0 }) {
        let failure = if case .writeFailed = resumption.failure { "writeFailed" } else { "\(resumption.failure)" }
        for refused in resumption.refused {
            let times = refused.firstRefusedAt <= refused.lastRefusedAt ? "in order" : "out of order"
            let line = """
                refused \(refused.stream) \(refused.entries) \(refused.mutations) \(refused.unwrittenEntry) after \(failure), \(times); \
                \(refusedHere) refused here

                """
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }
    FileHandle.standardOutput.write(Data("resumed\n".utf8))
    try log.close()
} catch {
    FileHandle.standardError.write(Data("eventlog-crash-writer: \(error)\n".utf8))
    exit(1)
}

/// After a write failure: appends that are refused, a file size limit lifted as a disk gets room again, and writing
/// resumed, by the log's retry or at once; returns how many entries were refused.
func resumeAfterFailure(_ log: EventLog, _ stream: LogStream, lastTaken: UInt64) throws -> Int {
    try reportStop(log, lastTaken: lastTaken)
    let refusedCount = 3
    for index in 0..<refusedCount {
        let refused = EntryDraft(kind: .mutation, caseName: "add", payload: try JSONEncoder().encode(Marker(run: -1, batch: index, index: 0, count: 1)))
        let taken: UInt64?
        do {
            taken = try stream.append(refused)
        } catch {
            guard isWriteFailure(error) else { throw error }
            taken = nil
        }
        if let taken {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "append #\(taken) was taken while the log was stopped"])
        }
    }
    try liftLimitAndResume(log)
    return refusedCount
}

/// Prints `stopped N committed M`: the last number an append took, and the last committed.
func reportStop(_ log: EventLog, lastTaken: UInt64) throws {
    guard case .writeFailed(_, let committed, _, _)? = log.writeFailure else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "the log has no write failure"])
    }
    FileHandle.standardOutput.write(Data("stopped \(lastTaken) committed \(committed)\n".utf8))
}

/// Lifts the file size limit to the hard one, or removes the file that filled the disk, as a disk that gets room
/// again, and resumes writing: at once, or by waiting for the log's own retry.
func liftLimitAndResume(_ log: EventLog) throws {
    if let filler = ProcessInfo.processInfo.environment["CRASH_WRITER_FREE"] {
        // The file system's next commit frees the file's room (btrfs keeps it until then): `sync` makes one.
        unlink(filler)
        sync()
    } else {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit)
    }
    if ProcessInfo.processInfo.environment["CRASH_WRITER_RESUME"] == "now" {
        try log.resumeWriting()
    } else {
        // The log retries by itself every 20 ms: nothing to await but its state.
        let deadline = ContinuousClock.now + .seconds(30)
        while log.writeFailure != nil && ContinuousClock.now < deadline { usleep(2_000) }
    }
}

/// Whether `error` is the log's write failure.
func isWriteFailure(_ error: any Error) -> Bool {
    if case .writeFailed? = error as? EventLogError { return true }
    return false
}

/// A recorded reactor that counts what it is sent.
final class TallyReactor: Reactor {
    enum Action: Codable, Sendable { case add }
    enum Mutation: Codable, Sendable { case added }
    struct State: Codable, Sendable { var count = 0 }

    let initialState = State()
    let runtime = Runtime()

    func mutate(action: Action) -> Effect { .just(.added) }
    func reduce(state: State, mutation: Mutation) -> State { State(count: state.count + 1) }
}

/// The `tally` run: a reactor sends until its log stops, 100 times more while it is stopped, and 10 times once
/// writing resumed.
func recordTally(_ log: EventLog) throws {
    do {
        let tally = TallyReactor()
        try tally.attach(to: log, stream: "tally")
        while tally.logFailure == nil { tally.send(.add) }
        try reportStop(log, lastTaken: try log.highestSequence())
        for _ in 0..<100 { tally.send(.add) }
        try liftLimitAndResume(log)
        for _ in 0..<10 { tally.send(.add) }
        FileHandle.standardOutput.write(Data("resumed \(tally.currentState.count)\n".utf8))
    }
    // Released above, the reactor has appended its closed entry and last snapshot.
    try log.flush()
    try log.close()
}

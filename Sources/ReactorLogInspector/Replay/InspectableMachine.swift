import EventLogKit
import TimeTravel

/// A ``TimeMachine`` with its state type erased to JSON, as the command line needs it.
protocol InspectableMachine: Sendable {
    var stream: StreamInfo { get }
    var canReduce: Bool { get }
    var reconstructions: Int { get }
    func earliestReplayableStep() throws -> UInt64
    func json(at step: UInt64) throws -> JSONValue
    func diff(from a: UInt64, to b: UInt64) throws -> StateDiff
    func blameReport(_ path: StatePath, from: UInt64, through: UInt64, latest: Int?) throws -> BlameReport
    func bisectJSON(from: UInt64?, through: UInt64?, judge: (JSONValue, UInt64) throws -> BisectVerdict) throws -> BisectResult
    func divergenceReport(from: UInt64?, through: UInt64) throws -> DivergenceReport
    func whatIfJSON(skipping skipped: Set<UInt64>, through: UInt64) throws -> (state: JSONValue, diff: StateDiff)
    /// The state right after `mutation`. With the reducer: reduced from `before`, the state right before it as an
    /// earlier call returned it (`typed`), when it is given; else rebuilt. Without it: the state the log recorded
    /// there, or `nil`.
    func state(after mutation: LogEntry, from before: Any?) throws -> (typed: Any, json: JSONValue)?
}

extension TimeMachine: InspectableMachine {
    var canReduce: Bool { replayer.canReduce }

    func bisectJSON(from: UInt64?, through: UInt64?, judge: (JSONValue, UInt64) throws -> BisectVerdict) throws -> BisectResult {
        try bisect(from: from, through: through) { state, step in try judge(try replayer.json(state), step) }
    }

    func whatIfJSON(skipping skipped: Set<UInt64>, through: UInt64) throws -> (state: JSONValue, diff: StateDiff) {
        let outcome = try whatIf(skipping: skipped, through: through)
        return (try replayer.json(outcome.state), outcome.diff)
    }

    func state(after mutation: LogEntry, from before: Any?) throws -> (typed: Any, json: JSONValue)? {
        guard canReduce else { return try recordedState(at: mutation.sequence).map { ($0, try replayer.json($0)) } }
        let state = if let before = before as? P.State {
            try replayer.reduce(before, mutation, recordedWith: schemaHistory.fingerprint(at: mutation.sequence), log: log)
        } else {
            try self.state(at: mutation.sequence)
        }
        return (state, try replayer.json(state))
    }
}

import EventLogKit
import Foundation
import ReactorLog

/// Time travel with a reactor's own `reduce`: any step can be rebuilt from the nearest snapshot.
///
/// ```swift
/// let machine = try TimeMachine(log: log, stream: "search", replayer: ReactorReplayer { GitHubSearchReactor() })
/// let state = try machine.state(at: 1234)          // a GitHubSearchReactor.State
/// ```
///
/// The factory makes one reactor, whose `reduce` is called; its runtime never starts, so no effect runs.
public struct ReactorReplayer<R: Reactor>: Replayer where R.Action: Codable, R.Mutation: Codable, R.State: Codable {
    private let reactor: R

    /// A replayer using a reactor made by `makeReactor`.
    public init(_ makeReactor: () -> R) {
        self.reactor = makeReactor()
    }

    /// Always `true`.
    public var canReduce: Bool { true }

    /// Decodes an `R.State`; a JSON decoding failure is Swift's `DecodingError`, naming the field.
    /// A state that no longer decodes with `R.State` throws ``TimeTravelError/schemaMismatch(what:detail:)``.
    public func decodeState(_ data: Data, codec: CodecID, log: EventLog) throws -> R.State {
        guard codec == .json else { return try log.decode(R.State.self, from: data, codec: codec) }
        do {
            return try JSONDecoder().decode(R.State.self, from: data)
        } catch let error as DecodingError where !error.isInvalidJSON {
            throw TimeTravelError.schemaMismatch(what: "A recorded state", detail: error.summary)
        }
    }

    /// Decodes the mutation and reduces it; a mutation that no longer decodes with `R.Mutation` throws
    /// ``TimeTravelError/schemaMismatch(what:detail:)``.
    public func reduce(_ state: R.State, _ mutation: LogEntry, log: EventLog) throws -> R.State {
        guard mutation.codec == .json else { return reactor.reduce(state: state, mutation: try log.decode(R.Mutation.self, from: mutation)) }
        do {
            return reactor.reduce(state: state, mutation: try JSONDecoder().decode(R.Mutation.self, from: mutation.payload))
        } catch let error as DecodingError where !error.isInvalidJSON {
            throw TimeTravelError.schemaMismatch(what: "Mutation #\(mutation.sequence) (\(mutation.caseName))", detail: error.summary)
        }
    }

    /// The state's JSON form.
    public func json(_ state: R.State) throws -> JSONValue {
        try JSONValue(encoding: state)
    }

    /// Decodes an action as `R.Action` and a mutation as `R.Mutation`, throwing Swift's `DecodingError`.
    public func checkDecodes(_ entry: LogEntry, log: EventLog) throws {
        let decoder = JSONDecoder()
        switch entry.kind {
        case .action: _ = try decoder.decode(R.Action.self, from: entry.payload)
        case .mutation: _ = try decoder.decode(R.Mutation.self, from: entry.payload)
        default: break
        }
    }
}

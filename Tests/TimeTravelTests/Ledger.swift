import EventLogKit
import ReactorLog
import ReactorLogPersistence
import Synchronization
import TestSupport

/// A small reactor for time-travel tests: deposits into a balance. Optionally with a planted bug (one
/// mutation corrupts the balance) or a one-line change to reduce (a deposit of 7 adds 8).
final class LedgerReactor: Reactor {
    enum Action: Codable, Sendable, Equatable { case deposit(Int) }
    enum Mutation: Codable, Sendable, Equatable { case add(Int) }
    struct State: Codable, Sendable, Equatable {
        var balance = 0
        var deposits = 0
        var last: [Int] = []
    }

    let initialState = State()
    let runtime = Runtime()
    let bugAtDeposit: Int?
    let changedReduce: Bool

    init(bugAtDeposit: Int? = nil, changedReduce: Bool = false) {
        self.bugAtDeposit = bugAtDeposit
        self.changedReduce = changedReduce
    }

    func mutate(action: Action) -> Effect {
        guard case let .deposit(amount) = action else { return .none }
        return .just(.add(amount))
    }

    func reduce(state: State, mutation: Mutation) -> State {
        guard case let .add(amount) = mutation else { return state }
        var state = state
        state.deposits += 1
        state.balance += (changedReduce && amount == 7) ? 8 : amount
        if state.deposits == bugAtDeposit { state.balance -= 1_000_000 }
        state.last = Array((state.last + [amount]).suffix(3))
        return state
    }
}

/// Records a ledger session of `deposits` deposits (amounts 1...9 cycling) into `log`, releases the reactor
/// and commits; returns every published state, the initial one first. With `crashedCopy`, the log as an app that
/// crashed leaves it is copied there first (`ScratchDirectory.copyLog`): its stream has no `closed` entry and no last
/// snapshot.
func recordLedger(
    _ log: EventLog, deposits: Int, bugAtDeposit: Int? = nil, stream: String = "ledger", crashedCopy: String? = nil
) throws -> [LedgerReactor.State] {
    let published = Mutex<[LedgerReactor.State]>([])
    var reactor: LedgerReactor? = LedgerReactor(bugAtDeposit: bugAtDeposit)
    try reactor?.attach(to: log, stream: stream)
    let observation = reactor?.observe { state in published.withLock { $0.append(state) } }
    for index in 0..<deposits { reactor?.send(.deposit(index % 9 + 1)) }
    observation?.cancel()
    if let crashedCopy {
        try log.flush()
        try ScratchDirectory.copyLog(at: log.path, to: crashedCopy)
    }
    // Released, the reactor appends its closed marker and last snapshot: commit them too.
    reactor = nil
    try log.flush()
    return published.withLock { $0 }
}

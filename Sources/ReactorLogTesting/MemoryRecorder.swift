import ReactorLog
import Synchronization

/// A `ReactorRecorder` that keeps everything in memory: for tests that check what a reactor records,
/// in order, without a log.
///
/// ```swift
/// let recorder = MemoryRecorder<Action, Mutation, State>()
/// try reactor.record(with: recorder)
/// reactor.send(.increase)
/// #expect(recorder.entries == [.action(.increase, sequence: 1), .mutation(.increaseValue, sequence: 2, cause: 1)])
/// ```
public final class MemoryRecorder<Action: Sendable, Mutation: Sendable, State: Sendable>: ReactorRecorder {
    /// One recorded event.
    public enum Entry: Sendable {
        /// An action and its sequence number.
        case action(Action, sequence: UInt64)
        /// A mutation, its sequence number and the sequence number of the action that caused it.
        case mutation(Mutation, sequence: UInt64, cause: UInt64?)
        /// An uncaught effect error, described, and its cause.
        case effectError(String, sequence: UInt64, cause: UInt64?)
    }

    private struct Books {
        var entries: [Entry] = []
        var nextSequence: UInt64 = 1
        var states: [State] = []
        var finalState: State?
        var callSites: [UInt64: CallSite] = [:]
    }

    private let books = Mutex(Books())

    /// An empty recorder.
    public init() {}

    /// Everything recorded, in order.
    public var entries: [Entry] { books.withLock { $0.entries } }

    /// The state after each recorded mutation, in order.
    public var states: [State] { books.withLock { $0.states } }

    /// The state the reactor was released with, once it has been.
    public var finalState: State? { books.withLock { $0.finalState } }

    /// Where the action numbered `sequence` was sent from, if it was sent with `send`.
    public func callSite(of sequence: UInt64) -> CallSite? { books.withLock { $0.callSites[sequence] } }

    /// Records the action and where it was sent from, and numbers it.
    public func recordAction(_ action: Action, sentFrom site: CallSite?) -> UInt64? {
        books.withLock { books in
            defer { books.nextSequence += 1 }
            books.entries.append(.action(action, sequence: books.nextSequence))
            books.callSites[books.nextSequence] = site
            return books.nextSequence
        }
    }

    /// Records the mutation and numbers it.
    public func recordMutation(_ mutation: Mutation, cause: UInt64?) -> UInt64? {
        record(CollectionOfOne(mutation), cause: cause)
    }

    /// Records the mutations an effect emitted at once and numbers them one after another.
    public func recordMutations(_ mutations: [Mutation], cause: UInt64?) -> UInt64? {
        record(mutations, cause: cause)
    }

    /// Numbers `mutations` one after another; returns the first's number, `nil` for none.
    private func record(_ mutations: some Collection<Mutation>, cause: UInt64?) -> UInt64? {
        guard !mutations.isEmpty else { return nil }
        return books.withLock { books in
            let first = books.nextSequence
            for mutation in mutations {
                books.entries.append(.mutation(mutation, sequence: books.nextSequence, cause: cause))
                books.nextSequence += 1
            }
            return first
        }
    }

    /// Records the error's description and numbers it.
    public func recordEffectError(_ error: any Error, cause: UInt64?) {
        books.withLock { books in
            defer { books.nextSequence += 1 }
            books.entries.append(.effectError("\(error)", sequence: books.nextSequence, cause: cause))
        }
    }

    /// Keeps the state.
    public func recordState(_ state: State, after sequence: UInt64) {
        books.withLock { $0.states.append(state) }
    }

    /// Keeps the final state.
    public func close(finalState: State) {
        books.withLock { $0.finalState = finalState }
    }
}

extension MemoryRecorder.Entry: Equatable where Action: Equatable, Mutation: Equatable {}

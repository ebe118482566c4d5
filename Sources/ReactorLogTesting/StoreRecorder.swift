#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ReactorLog
import Synchronization

/// The recorder a ``TestStore`` installs: numbers actions, pairs each mutation with the state `reduce`
/// made from it, and keeps the mutations effects fed back until the test receives them.
final class StoreRecorder<Action: Sendable, Mutation: Sendable, State: Sendable>: ReactorRecorder {
    /// A mutation and the state after it.
    struct Step: Sendable {
        let mutation: Mutation
        let state: State
        /// Recorded on the sending thread during `TestStore.send`, caused by the sent action: what `send` asserts.
        /// A mutation of the sent action's effect that another thread delivered, even before `send` returned, is not.
        let isSynchronous: Bool
    }

    fileprivate struct Books {
        var nextSequence: UInt64 = 1
        var steps: [Step] = []
        /// Mutations recorded and not yet reduced, by sequence number: one, or the run an effect emitted at once.
        var unreduced: [(sequence: UInt64, mutation: Mutation, isSynchronous: Bool)] = []
        /// The thread inside `TestStore.send`, and the sequence number of the action it recorded.
        var sendingThread: pthread_t?
        var sentSequence: UInt64?
        /// The steps of dispatch the sending thread has begun in this send. The sent action is handled in the first;
        /// later ones are work other threads queued meanwhile (a timing operator's output, another thread's send),
        /// which the sending thread dispatches before it returns.
        var sendingSteps = 0
    }

    private let books = Mutex(Books())
    private let (changes, changed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    /// Marks the calling thread as sending: the first action it records is the sent one.
    func beginSend() {
        books.withLock { books in
            books.sendingThread = pthread_self()
            books.sentSequence = nil
            books.sendingSteps = 0
        }
    }

    /// Ends the send; removes and returns the steps the sent action's effect emitted synchronously, none when the
    /// action was not recorded in the send (stubbed, filtered, or held by a timing operator).
    func endSend() -> [Step] {
        books.withLock { books in
            defer { (books.sendingThread, books.sentSequence) = (nil, nil) }
            let taken = books.steps.filter(\.isSynchronous)
            books.steps.removeAll(where: \.isSynchronous)
            return taken
        }
    }

    /// How many steps wait to be received.
    var pendingCount: Int { books.withLock { $0.steps.count } }

    /// The waiting mutations, for a failure message.
    var pendingDescription: String {
        books.withLock { $0.steps.map { "\($0.mutation)" }.joined(separator: ", ") }
    }

    /// Removes and returns the oldest waiting step.
    func takePending() -> Step? {
        books.withLock { $0.steps.isEmpty ? nil : $0.steps.removeFirst() }
    }

    /// Removes and returns every waiting step.
    func takeAllPending() -> [Step] {
        books.withLock { books in
            defer { books.steps.removeAll() }
            return books.steps
        }
    }

    /// Returns once a step is waiting, or when the calling task is cancelled. One waiter at a time.
    func waitForPending() async {
        if pendingCount > 0 { return }
        for await _ in changes where pendingCount > 0 { return }
    }

    func willDispatch() {
        books.withLock { books in
            if books.isSendingThread { books.sendingSteps += 1 }
        }
    }

    func recordAction(_ action: Action, sentFrom site: CallSite?) -> UInt64? {
        books.withLock { books in
            defer { books.nextSequence += 1 }
            // The sent action is the one the first step records. When a filter, a timing operator or the stub takes
            // it, that step records none, and the steps after it record what other threads sent.
            if books.sentSequence == nil, books.sendingSteps == 1, books.isSendingThread {
                books.sentSequence = books.nextSequence
            }
            return books.nextSequence
        }
    }

    func recordMutation(_ mutation: Mutation, cause: UInt64?) -> UInt64? {
        record(CollectionOfOne(mutation), cause: cause)
    }

    func recordMutations(_ mutations: [Mutation], cause: UInt64?) -> UInt64? {
        record(mutations, cause: cause)
    }

    /// Numbers `mutations` one after another, to be paired with their states; returns the first's number.
    private func record(_ mutations: some Collection<Mutation>, cause: UInt64?) -> UInt64? {
        guard !mutations.isEmpty else { return nil }
        return books.withLock { books in
            let first = books.nextSequence
            let isSynchronous = cause != nil && cause == books.sentSequence && books.isSendingThread
            for mutation in mutations {
                books.unreduced.append((books.nextSequence, mutation, isSynchronous))
                books.nextSequence += 1
            }
            return first
        }
    }

    func recordState(_ state: State, after sequence: UInt64) {
        books.withLock { books in
            // Paired by number: a mutation left unreduced (its reactor released) pairs with no later state.
            books.unreduced.removeAll { $0.sequence < sequence }
            guard let current = books.unreduced.first, current.sequence == sequence else { return }
            books.unreduced.removeFirst()
            books.steps.append(Step(mutation: current.mutation, state: state, isSynchronous: current.isSynchronous))
        }
        changed.yield()
    }
}

extension StoreRecorder.Books {
    /// Whether the calling thread is the one inside `TestStore.send`.
    var isSendingThread: Bool {
        guard let sendingThread else { return false }
        return pthread_equal(sendingThread, pthread_self()) != 0
    }
}

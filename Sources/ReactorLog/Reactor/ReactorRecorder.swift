/// What a reactor tells whoever records it, in exactly the order `reduce` applies it: the seam between the
/// runtime and a log. The runtime knows this protocol only; `ReactorLogPersistence` implements it on an
/// `EventLog`, and a test can record in memory.
///
/// Every method is called from inside dispatch, one at a time, in the reactor's total order, so a
/// recorder sees a consistent history. Keep them cheap: hand the value over and return; they must not
/// call back into the reactor. A recorder handles its own failures (the reactor keeps working).
///
/// A recorder is a class: dispatch holds it as one reference, which costs a sender nothing to check.
public protocol ReactorRecorder<Action, Mutation, State>: AnyObject, Sendable {
    /// The reactor's actions.
    associatedtype Action: Sendable
    /// The reactor's mutations.
    associatedtype Mutation: Sendable
    /// The reactor's state.
    associatedtype State: Sendable

    /// Called as dispatch begins each unit of work: an action taken from the queue, or a mutation, error or state an
    /// effect or a pipeline delivered later. What the work records until the next call happened in that one step
    /// of dispatch (an action and the mutations its effect emits synchronously), which a recorder may stamp with
    /// one time instead of reading the clock for each.
    func willDispatch()

    /// Records an action after `transform(action:)`, before `mutate` runs, with the call site of the `send` that
    /// sent it (`nil` for an outside action source); returns its sequence number, which the mutations and
    /// errors it causes carry as their cause, or `nil` when it has none.
    func recordAction(_ action: Action, sentFrom site: CallSite?) -> UInt64?

    /// Records a mutation after `transform(mutation:)`, before `reduce` runs (write-ahead); `cause` is the
    /// sequence number of the action whose effect emitted it, `nil` for a merged source. Returns its
    /// sequence number, or `nil` when it has none.
    func recordMutation(_ mutation: Mutation, cause: UInt64?) -> UInt64?

    /// Records the mutations an effect emitted at once (two or more, from a reactor without `transform(mutation:)`),
    /// before `reduce` runs on the first (write-ahead); `cause` is as for ``recordMutation(_:cause:)``. They take
    /// consecutive sequence numbers: returns the first's, or `nil` when they have none. One call instead of one a
    /// mutation, so that a recorder can hand them over together; ``recordState(_:after:)`` follows for each, in order.
    func recordMutations(_ mutations: [Mutation], cause: UInt64?) -> UInt64?

    /// Records an error an effect threw and nothing caught.
    func recordEffectError(_ error: any Error, cause: UInt64?)

    /// Called with the state `reduce` produced from the mutation numbered `sequence`: the place to take a
    /// snapshot when one is due.
    func recordState(_ state: State, after sequence: UInt64)

    /// Called once, when the reactor is released, with its last reduced state. (A log's recorder may have closed
    /// before: `attach` also closes it with the state when the log closes first.)
    func close(finalState: State)
}

extension ReactorRecorder {
    /// Does nothing.
    public func willDispatch() {}
    /// Records nothing.
    public func recordEffectError(_ error: any Error, cause: UInt64?) {}
    /// Takes no snapshot.
    public func recordState(_ state: State, after sequence: UInt64) {}
    /// Does nothing.
    public func close(finalState: State) {}
}

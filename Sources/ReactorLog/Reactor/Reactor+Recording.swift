extension Reactor {
    /// Records this reactor with `recorder`: every action, mutation and effect error, in `reduce`'s order.
    /// With `resumedState`, the reactor starts from it instead of `initialState` (the state a log rebuilt).
    /// Call it before the reactor's first use.
    ///
    /// Most apps call `attach(to:stream:)` from `ReactorLogPersistence` instead, which records to a log.
    public func record(
        with recorder: some ReactorRecorder<Action, Mutation, State>, resumingFrom resumedState: State? = nil
    ) throws(ReactorError) {
        try runtime.install(recorder, resumedState: resumedState)
    }

    /// The recorder this reactor was given, if any.
    public var recorder: (any ReactorRecorder<Action, Mutation, State>)? { runtime.recorder }
}

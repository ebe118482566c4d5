extension ReactorRuntime {
    /// What dispatch runs, fixed when the reactor starts: the reactor's functions (holding it weakly), its
    /// pipelines, scheduler and recorder, and the reduced state.
    @usableFromInline final class Engine: @unchecked Sendable {
        // Unchecked because of `reduced`, `launches` and `timedActionSites`: only the dispatcher reads or writes them, and the dispatcher is
        // whoever set `Shared.isDispatching` under the runtime's lock; taking and clearing that flag under
        // the lock orders every access. Everything else is immutable.
        /// The reactor, held weakly (it owns the runtime). Dispatch calls its `mutate` and `reduce` through the
        /// existential, which goes straight to the reactor's own witnesses: no generic closure in between.
        @usableFromInline weak let reactor: (any Reactor<Action, Mutation, State>)?
        @usableFromInline let actions: PipelineRun<Action>
        @usableFromInline let mutations: PipelineRun<Mutation>
        @usableFromInline let states: PipelineRun<State>
        @usableFromInline let scheduler: ReactorScheduler
        @usableFromInline let initialState: State
        @usableFromInline let recorder: Recorder?
        @exclusivity(unchecked) @usableFromInline var reduced: State
        /// The first published state: `initialState`, or the resumed state after `resume(from:)`, through
        /// `transform(state:)`.
        let startState: State
        /// Effects started during this drain, launched once it ends.
        @exclusivity(unchecked) @usableFromInline var launches: [(ticket: EffectTasks<Action>.Ticket, rest: EffectRemainder, cause: UInt64?)] = []

        /// The effects started so far, leaving none.
        @usableFromInline func takeLaunches() -> [(ticket: EffectTasks<Action>.Ticket, rest: EffectRemainder, cause: UInt64?)] {
            defer { launches = [] }
            return launches
        }
        /// The call site of the last action each timing operator of `transform(action:)` took, by the stage its
        /// output resumes at: what it lets through is credited to it.
        @exclusivity(unchecked) @usableFromInline var timedActionSites: [Int: CallSite] = [:]

        init<R: Reactor>(reactor: R, recorder: Recorder?, resumedState: State?)
        where R.Action == Action, R.Mutation == Mutation, R.State == State {
            self.reactor = reactor
            actions = PipelineRun(reactor.transform(action: Pipeline()))
            mutations = PipelineRun(reactor.transform(mutation: Pipeline()))
            states = PipelineRun(reactor.transform(state: Pipeline()))
            scheduler = reactor.scheduler
            initialState = reactor.initialState
            self.recorder = recorder
            reduced = resumedState ?? initialState
            // Resuming: the reactor's own adjustments, reduced and recorded before anything observes it.
            if let resumedState {
                for mutation in reactor.resume(from: resumedState) {
                    guard let transformed = mutations.apply(mutation) else { continue }
                    let sequence = recorder?.recordMutation(transformed, cause: nil)
                    reduced = reactor.reduce(state: reduced, mutation: transformed)
                    if let sequence { recorder?.recordState(reduced, after: sequence) }
                }
            }
            startState = states.apply(reduced) ?? reduced
        }

        deinit {
            actions.finish()
            mutations.finish()
            states.finish()
        }
    }
}

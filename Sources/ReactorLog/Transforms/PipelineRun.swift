/// A ``Pipeline`` at work inside a started reactor: its stages, plus an inlet for each timing operator.
@usableFromInline struct PipelineRun<Value: Sendable>: Sendable {
    @usableFromInline let stages: [Pipeline<Value>.Stage]
    @usableFromInline let inlets: [Int: Inlet<Value>]
    /// Each timing operator's input, to run in a task that hands what it emits back to dispatch.
    let timings: [(resumeAt: Int, values: Inlet<Value>, run: Pipeline<Value>.Timing)]
    /// The pipeline's merged sources.
    let sources: [@Sendable (@escaping @Sendable (Value) -> Void) async throws -> Void]

    init(_ pipeline: Pipeline<Value>) {
        stages = pipeline.stages
        sources = pipeline.sources
        var inlets: [Int: Inlet<Value>] = [:]
        var timings: [(Int, Inlet<Value>, Pipeline<Value>.Timing)] = []
        for (index, stage) in pipeline.stages.enumerated() {
            guard case let .timing(run, _) = stage else { continue }
            let inlet = Inlet<Value>()
            inlets[index] = inlet
            timings.append((index + 1, inlet, run))
        }
        self.inlets = inlets
        self.timings = timings
    }

    /// Whether the pipeline has no stage: most have none, and dispatch then hands values on as they are, which
    /// spares it an optional of each value (measured: a tenth of an in-memory send).
    @inlinable var isEmpty: Bool { stages.isEmpty }

    /// Runs the stages on `value` from stage `start`; `nil` when a step filtered it out or a timing
    /// operator took it.
    @inlinable func apply(_ value: Value, from start: Int = 0) -> Value? {
        var takenAt: Int?
        return apply(value, from: start, takenAt: &takenAt)
    }

    /// ``apply(_:from:)``, setting `takenAt` to the stage of the timing operator that took the value.
    @inlinable func apply(_ value: Value, from start: Int, takenAt: inout Int?) -> Value? {
        var current = value
        var index = start
        while index < stages.count {
            switch stages[index] {
            case .step(let step):
                guard let next = step(current) else { return nil }
                current = next
            case .timing(_, let selects):
                if selects?(current) ?? true {
                    inlets[index]?.yield(current)
                    takenAt = index
                    return nil
                }
            }
            index += 1
        }
        return current
    }

    /// Ends the timing operators' inputs.
    func finish() {
        for inlet in inlets.values { inlet.finish() }
    }

    /// Returns once every timing operator has taken every value handed to it.
    func waitUntilTaken() async {
        for inlet in inlets.values { await inlet.waitUntilTaken() }
    }
}

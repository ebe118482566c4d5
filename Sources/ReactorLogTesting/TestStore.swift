import CustomDump
import IssueReporting
import ReactorLog

/// Tests a reactor step by step, exhaustively by default (in the spirit of TCA's `TestStore`):
/// every state change is asserted, every mutation an effect feeds back is received, and no effect may
/// still be running at the end. A failure reads as a diff of the expected and actual states.
///
/// ```swift
/// @Test func search() async {
///     let clock = TestClock()
///     let store = TestStore(GitHubSearchReactor(service: fake, clock: clock))
///     await store.send(.updateQuery("swift")) { $0.query = "swift" }
///     await clock.advance(by: .milliseconds(300))
///     await store.receive(.setRepos(["swift/a"], nextPage: 2)) {
///         $0.repos = ["swift/a"]
///         $0.nextPage = 2
///     }
///     await store.finish()
/// }
/// ```
///
/// The store records the reactor through its `ReactorRecorder` seam, so it must be made before the
/// reactor's first use. States are compared as `reduce` produced them (before `transform(state:)`).
/// Send from the reactor's scheduler: an `.immediate` reactor from anywhere, a `.mainActor` one from a
/// `@MainActor` test.
public final class TestStore<R: Reactor> where R.State: Equatable {
    /// How strictly the store checks.
    public enum Exhaustivity: Sendable, Equatable {
        /// Every state change is asserted, every fed-back mutation received, every effect finished.
        case on
        /// Only what a test asserts is checked: the fields a closure sets, the mutations it receives
        /// (`receive` skips the mutations before the one it expects).
        case off
    }

    /// The reactor under test.
    public let reactor: R
    /// How strictly the store checks; `.on` unless set.
    public var exhaustivity: Exhaustivity = .on
    /// How long ``TestStore/receive(_:timeout:assert:fileID:filePath:line:column:isolation:)`` and
    /// ``TestStore/finish(timeout:fileID:filePath:line:column:isolation:)`` wait by default.
    public var timeout: Duration = .seconds(1)

    private let recorder = StoreRecorder<R.Action, R.Mutation, R.State>()
    private var state: R.State
    private let origin: SourceLocation

    /// A store testing `reactor`, which must not have been used yet.
    public init(
        _ reactor: R, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
        column: UInt = #column
    ) {
        self.reactor = reactor
        self.state = reactor.initialState
        self.origin = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        do {
            try reactor.record(with: recorder)
        } catch {
            origin.report("TestStore needs a reactor that has not been used yet: \(error)")
        }
    }

    deinit {
        guard exhaustivity == .on else { return }
        let pending = recorder.pendingCount
        if pending > 0 {
            origin.report("\(pending) mutation(s) fed back by effects were never received: \(recorder.pendingDescription).")
        }
        let running = reactor.runningEffectCount
        if running > 0 {
            origin.report("\(running) effect(s) were still running when the test ended: await store.finish(), or cancel them.")
        }
    }

    /// Sends `action` and asserts the state after the mutations its effect emitted synchronously:
    /// `update` turns the previous state into the expected one (no closure: the state must not change).
    /// Everything else is left to ``receive(_:timeout:assert:fileID:filePath:line:column:isolation:)``, even what
    /// arrived before this returns: what a timing operator lets through, another thread's sends, and what the
    /// effect sent from another thread.
    public func send(
        _ action: R.Action, assert update: ((inout R.State) throws -> Void)? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        if exhaustivity == .on, recorder.pendingCount > 0 {
            location.report("""
                Received \(recorder.pendingCount) mutation(s) from effects before sending \(action): \
                receive them first (\(recorder.pendingDescription)).
                """)
        }
        skipPending()
        recorder.beginSend()
        reactor.send(action)
        let steps = recorder.endSend()
        await reactor.waitForTimingOperators()
        check(after: "sending \(action)", actual: steps.last?.state ?? state, update: update, location)
    }

    /// Waits for the next mutation an effect fed back, asserts it equals `mutation`, and asserts the state
    /// after it: `update` turns the previous state into the expected one.
    public func receive(
        _ mutation: R.Mutation, timeout: Duration? = nil, assert update: ((inout R.State) throws -> Void)? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        isolation: isolated (any Actor)? = #isolation
    ) async where R.Mutation: Equatable {
        await receive(
            matching: { $0 == mutation }, described: "\(mutation)", timeout: timeout, assert: update,
            SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Waits for the next mutation an effect fed back, asserts `isExpected` holds for it, and asserts the
    /// state after it.
    public func receive(
        where isExpected: @escaping (R.Mutation) -> Bool, timeout: Duration? = nil,
        assert update: ((inout R.State) throws -> Void)? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        await receive(
            matching: isExpected, described: "a mutation matching the predicate", timeout: timeout, assert: update,
            SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Drops the mutations received so far without asserting them, keeping the state they produced.
    public func skipReceivedMutations() {
        skipPending()
    }

    /// Waits until every effect has finished (up to `timeout`), then fails for an effect still running or,
    /// when exhaustive, for a mutation never received.
    public func finish(
        timeout: Duration? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let limit = timeout ?? self.timeout
        let finished = await Self.race(limit) { [reactor] in
            await reactor.waitForEffects()
        }
        if !finished {
            location.report("""
                \(reactor.runningEffectCount) effect(s) still running after \(limit): cancel long-running \
                effects (an id, take(until:)) or give finish a longer timeout.
                """)
        }
        if exhaustivity == .on, recorder.pendingCount > 0 {
            location.report("\(recorder.pendingCount) mutation(s) fed back by effects were never received: \(recorder.pendingDescription).")
        }
        skipPending()
    }

    // MARK: Checking

    private func receive(
        matching isExpected: @escaping (R.Mutation) -> Bool, described: String, timeout: Duration?,
        assert update: ((inout R.State) throws -> Void)?, _ location: SourceLocation,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        let limit = timeout ?? self.timeout
        let recorder = self.recorder
        while true {
            let arrived = await Self.race(limit) { await recorder.waitForPending() }
            guard arrived, let step = recorder.takePending() else {
                location.report("Expected to receive \(described), but no mutation arrived within \(limit).")
                return
            }
            if !isExpected(step.mutation) {
                // Non-exhaustive: mutations before the expected one are skipped.
                if exhaustivity == .off {
                    state = step.state
                    continue
                }
                location.report("Received \(step.mutation), expected \(described).")
            }
            check(after: "receiving \(step.mutation)", actual: step.state, update: update, location)
            return
        }
    }

    private func check(
        after event: String, actual: R.State, update: ((inout R.State) throws -> Void)?, _ location: SourceLocation
    ) {
        var expected = exhaustivity == .on ? state : actual
        do {
            try update?(&expected)
        } catch {
            location.report("The assertion closure threw after \(event): \(error)")
        }
        if expected != actual {
            let difference = diff(expected, actual, format: .proportional) ?? "(no printable difference)"
            location.report("""
                The state after \(event) is not the expected one (− expected, + actual):
                \(difference)
                """)
        }
        state = actual
    }

    private func skipPending() {
        if let last = recorder.takeAllPending().last { state = last.state }
    }

    /// Runs `body` until it returns or `limit` passes; `true` when it returned.
    private static func race(_ limit: Duration, _ body: @escaping @Sendable () async -> Void) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await body()
                return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}

/// Where a test store call was made, for failures.
struct SourceLocation {
    let fileID: StaticString
    let filePath: StaticString
    let line: UInt
    let column: UInt

    func report(_ message: String) {
        reportIssue(message, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

import EventLogKit
import Foundation
import ReactorLog
import ReactorLogPersistence
import TestSupport
import Testing
import TimeTravel

/// An app that records in the field and is killed mid-checkout resumes in a usable state.
@Suite("Resume", .timeLimit(.minutes(3)))
struct ResumeTests {
    let scratch = ScratchDirectory()

    /// Checkout sets a flag, places the order (the alert pulse fires) and waits for a payment that never comes.
    final class CheckoutReactor: Reactor {
        enum Action: Codable, Sendable { case checkout }
        enum Mutation: Codable, Sendable, Equatable { case setCheckingOut(Bool), placeOrder }
        struct State: Codable, Sendable, Equatable {
            var isCheckingOut = false
            var orders = 0
            @Pulse var alert: String? = nil
        }
        let initialState = State()
        let runtime = Runtime()
        let clearsInFlight: Bool
        init(clearsInFlight: Bool) { self.clearsInFlight = clearsInFlight }

        func mutate(action: Action) -> Effect {
            guard !currentState.isCheckingOut else { return .none }
            return .concat(
                .just(.setCheckingOut(true), .placeOrder),
                .run { _ in try await Task.sleep(for: .seconds(3600)) },    // the payment, cut short by the kill
                .just(.setCheckingOut(false)))
        }

        func reduce(state: State, mutation: Mutation) -> State {
            var state = state
            switch mutation {
            case let .setCheckingOut(value): state.isCheckingOut = value
            case .placeOrder:
                state.orders += 1
                state.alert = "Order placed"
            }
            return state
        }

        func resume(from state: State) -> [Mutation] {
            clearsInFlight && state.isCheckingOut ? [.setCheckingOut(false)] : []
        }
    }

    /// Records a checkout that never finishes, then lets the reactor go, as a killed app would.
    func killedDuringCheckout() throws -> EventLog {
        let log = try EventLog.open(at: scratch.file("shop.reactorlog"))
        do {
            let reactor = CheckoutReactor(clearsInFlight: true)
            try reactor.attach(to: log, stream: "shop")
            reactor.send(.checkout)
            #expect(reactor.currentState.isCheckingOut)
        }
        try log.flush()
        return log
    }

    @Test("without a resume hook the in-flight flag comes back and checkout does nothing")
    func withoutHook() throws {
        let log = try killedDuringCheckout()
        let resumed = CheckoutReactor(clearsInFlight: false)
        try resumed.attach(to: log, stream: "shop")
        #expect(resumed.currentState.isCheckingOut)
        resumed.send(.checkout)
        #expect(resumed.currentState.orders == 1)
    }

    @Test("resume(from:) clears the flag before anything observes it, is recorded, and the log replays to the live state")
    func hookClearsFlag() throws {
        let log = try killedDuringCheckout()
        let resumed = CheckoutReactor(clearsInFlight: true)
        try resumed.attach(to: log, stream: "shop")
        let seen = Recorder<Bool>()
        let observation = resumed.observe { seen.append($0.isCheckingOut) }
        #expect(seen.all == [false])
        resumed.send(.checkout)
        #expect(resumed.currentState.orders == 2)
        try log.flush()
        let machine = try TimeMachine(log: log, stream: "shop", replayer: ReactorReplayer { CheckoutReactor(clearsInFlight: true) })
        #expect(try machine.state(at: try machine.lastStep()) == resumed.currentState)
        let mutations = Array(try log.readEntries(EntryQuery(stream: "shop", kinds: [.mutation]))).map(\.caseName)
        #expect(mutations == ["setCheckingOut", "placeOrder", "setCheckingOut", "setCheckingOut", "placeOrder"])
        observation.cancel()
    }

    @Test("a pulse restored by a resume does not fire again; the next assignment does")
    func pulseNotRefired() throws {
        let log = try killedDuringCheckout()
        let resumed = CheckoutReactor(clearsInFlight: true)
        try resumed.attach(to: log, stream: "shop")
        #expect(resumed.currentState.alert == "Order placed")
        let alerts = Recorder<String?>()
        let observation = resumed.observe(pulse: \.$alert) { alerts.append($0) }
        #expect(alerts.all.isEmpty)
        resumed.send(.checkout)
        #expect(alerts.all == ["Order placed"])
        observation.cancel()
    }
}

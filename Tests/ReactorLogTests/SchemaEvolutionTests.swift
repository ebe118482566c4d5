import EventLogKit
import Foundation
import ReactorLog
import ReactorLogPersistence
import TestSupport
import Testing
import TimeTravel

/// A cart app's types change between releases; the log recorded by the old release must never stop the new one
/// from starting, and nothing may be appended to a stream the new types cannot replay.
@Suite("Schema evolution", .timeLimit(.minutes(3)))
struct SchemaEvolutionTests {
    let scratch = ScratchDirectory()

    /// A cart whose state type varies between releases; its actions and mutations do not.
    final class Cart<State: CartState>: Reactor {
        enum Action: Codable, Sendable { case add(String) }
        enum Mutation: Codable, Sendable { case appendLine(String) }
        let initialState = State()
        let runtime = Runtime()
        func mutate(action: Action) -> Effect {
            switch action { case .add(let line): .just(.appendLine(line)) }
        }
        func reduce(state: State, mutation: Mutation) -> State {
            var state = state
            switch mutation { case .appendLine(let line): state.lines.append(line) }
            return state
        }
    }

    protocol CartState: Codable, Sendable {
        init()
        var lines: [String] { get set }
    }

    struct StateV1: CartState { var lines: [String] = [] }
    /// Compatible: an optional field, which old states decode without.
    struct StateWithCoupon: CartState { var lines: [String] = []; var coupon: String? }
    /// Incompatible: a field with a default value, which synthesized `Codable` still requires.
    struct StateWithCurrency: CartState { var lines: [String] = []; var currency = "EUR" }

    /// Release 1.
    typealias CartV1 = Cart<StateV1>
    /// Release 2, compatible.
    typealias CartV2Optional = Cart<StateWithCoupon>
    /// Release 2, incompatible: a new required field.
    typealias CartV2Field = Cart<StateWithCurrency>

    /// Release 2, incompatible: the mutation case was renamed (`appendLine` → `addLine`).
    final class CartV2Renamed: Reactor {
        enum Action: Codable, Sendable { case add(String) }
        enum Mutation: Codable, Sendable { case addLine(String) }
        struct State: Codable, Sendable { var lines: [String] = [] }
        let initialState = State()
        let runtime = Runtime()
        func mutate(action: Action) -> Effect {
            switch action { case .add(let line): .just(.addLine(line)) }
        }
        func reduce(state: State, mutation: Mutation) -> State {
            var state = state
            switch mutation { case .addLine(let line): state.lines.append(line) }
            return state
        }
    }

    /// Release 1 records three lines and quits.
    func recordedByV1() throws -> String {
        let path = scratch.file("cart.reactorlog")
        let log = try EventLog.open(at: path)
        do {
            let cart = CartV1()
            try cart.attach(to: log, stream: "cart")
            for line in ["apple", "pear", "fig"] { cart.send(.add(line)) }
        }
        try log.close()
        return path
    }

    @Test("the default fingerprint follows the types' structure: each change here changes it")
    func fingerprints() {
        let v1 = CartV1.defaultSchemaFingerprint
        #expect(v1.hasPrefix("structure-1:"))
        #expect(Set([v1, CartV2Optional.defaultSchemaFingerprint, CartV2Renamed.defaultSchemaFingerprint, CartV2Field.defaultSchemaFingerprint]).count == 4)
        #expect(v1 == CartV1.defaultSchemaFingerprint, "the fingerprint is stable")
    }

    @Test("a compatible change resumes the stream, with its state, under the new fingerprint")
    func compatible() throws {
        let path = try recordedByV1()
        let log = try EventLog.open(at: path)
        let cart = CartV2Optional()
        let change = try #require(try cart.attach(to: log, stream: "cart"))
        #expect(change.problem == nil && change.retiredAs == nil)
        #expect(change.description.contains("everything recorded still decodes"))
        #expect(cart.currentState.lines == ["apple", "pear", "fig"])
        #expect(try log.stream(named: "cart")?.schemaFingerprint == CartV2Optional.defaultSchemaFingerprint)
        #expect(try log.streams().count == 1)
    }

    @Test("a renamed mutation case starts a new generation: the app starts, the old entries stay readable")
    func renamedCase() throws {
        let path = try recordedByV1()
        let log = try EventLog.open(at: path)
        let cart = CartV2Renamed()
        let change = try #require(try cart.attach(to: log, stream: "cart"))
        #expect(change.retiredAs == "cart@1")
        #expect(change.problem?.contains("appendLine") == true, "\(change.problem ?? "")")
        #expect(cart.currentState.lines.isEmpty, "the new generation starts from the initial state")
        cart.send(.add("kiwi"))
        #expect(cart.currentState.lines == ["kiwi"])
        try log.flush()
        // The old generation keeps its entries and still replays with the old types.
        let old = try TimeMachine(log: log, stream: "cart@1", replayer: ReactorReplayer { CartV1() })
        #expect(try old.state(at: old.lastStep()).lines == ["apple", "pear", "fig"])
        let new = try TimeMachine(log: log, stream: "cart", replayer: ReactorReplayer { CartV2Renamed() })
        #expect(try new.state(at: new.lastStep()).lines == ["kiwi"])
        #expect(try log.stream(named: "cart")?.schemaFingerprint == CartV2Renamed.defaultSchemaFingerprint)
    }

    @Test("a field added with a default value does not brick start-up; a second change makes cart@2")
    func addedField() throws {
        let path = try recordedByV1()
        let log = try EventLog.open(at: path)
        do {
            let cart = CartV2Field()
            let change = try #require(try cart.attach(to: log, stream: "cart"))
            #expect(change.retiredAs == "cart@1")
            #expect(change.problem?.contains("currency") == true, "\(change.problem ?? "")")
            cart.send(.add("plum"))
        }
        let renamed = CartV2Renamed()
        let second = try renamed.attach(to: log, stream: "cart")
        #expect(second?.retiredAs == "cart@2", "\(String(describing: second))")
        #expect(try Set(log.streams().map(\.name)) == ["cart", "cart@1", "cart@2"])
    }

    @Test("with the .fail policy, attach throws a sentence naming the problem and leaves the stream as it was")
    func failPolicy() throws {
        let path = try recordedByV1()
        let log = try EventLog.open(at: path)
        let before = try log.highestSequence()
        let cart = CartV2Renamed()
        #expect {
            try cart.attach(to: log, stream: "cart", onSchemaChange: .fail)
        } throws: { error in
            guard let error = error as? EventLogError, case .incompatibleSchema(let stream, _, _, let problem) = error else { return false }
            return stream == "cart" && problem.contains("appendLine") && error.description.contains("new generation")
        }
        #expect(try log.highestSequence() == before, "nothing was appended")
        #expect(try log.stream(named: "cart")?.schemaFingerprint == CartV1.defaultSchemaFingerprint)
    }

    @Test("time travel with the new types names a schema mismatch, never damage")
    func timeTravelMismatch() throws {
        let path = try recordedByV1()
        let log = try EventLog.openReadOnly(at: path)
        let machine = try TimeMachine(log: log, stream: "cart", replayer: ReactorReplayer { CartV2Renamed() })
        // #3 is the first mutation: its state is rebuilt from the initial state through it.
        #expect {
            try machine.state(at: 3)
        } throws: { error in
            guard case TimeTravelError.schemaMismatch(let what, _) = error else { return false }
            return what.contains("appendLine") && (error as? TimeTravelError)?.description.contains("recorded with other types") == true
        }
    }
}

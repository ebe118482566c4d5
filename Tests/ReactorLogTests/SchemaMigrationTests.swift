import EventLogKit
import Foundation
import ReactorLog
import ReactorLogPersistence
import TestSupport
import Testing
import TimeTravel
@testable import ReactorLogInspector

/// Three releases of a cart app whose types change incompatibly each time. Release 3 reads everything the two
/// before it recorded, through migrations, in one stream that keeps growing: at start-up, in time travel and in
/// the app's own inspector.
@Suite("Schema migrations", .timeLimit(.minutes(3)))
struct SchemaMigrationTests {
    let scratch = ScratchDirectory()

    /// Release 1: a line is a plain string.
    final class Cart1: Reactor {
        enum Action: Codable, Sendable { case add(String) }
        enum Mutation: Codable, Sendable { case appendLine(String) }
        struct State: Codable, Sendable { var lines: [String] = [] }
        let initialState = State()
        let runtime = Runtime()
        func mutate(action: Action) -> Effect {
            switch action { case .add(let title): .just(.appendLine(title)) }
        }
        func reduce(state: State, mutation: Mutation) -> State {
            var state = state
            switch mutation { case .appendLine(let title): state.lines.append(title) }
            return state
        }
    }

    struct Line: Codable, Sendable, Hashable {
        var title: String
        var quantity: Int
    }

    /// Release 2: lines have a quantity, the mutation case is renamed, and the state has a required currency.
    final class Cart2: Reactor {
        enum Action: Codable, Sendable { case add(String, quantity: Int) }
        enum Mutation: Codable, Sendable { case addLine(Line) }
        struct State: Codable, Sendable { var lines: [Line] = []; var currency = "EUR" }
        let initialState = State()
        let runtime = Runtime()
        func mutate(action: Action) -> Effect {
            switch action { case .add(let title, let quantity): .just(.addLine(Line(title: title, quantity: quantity))) }
        }
        func reduce(state: State, mutation: Mutation) -> State {
            var state = state
            switch mutation { case .addLine(let line): state.lines.append(line) }
            return state
        }
    }

    /// Release 3: the case is renamed again and the state counts its items.
    final class Cart3: Reactor {
        enum Action: Codable, Sendable { case add(String, quantity: Int) }
        enum Mutation: Codable, Sendable { case insert(Line) }
        struct State: Codable, Sendable, Equatable { var lines: [Line] = []; var currency = "EUR"; var items = 0 }
        let initialState = State()
        let runtime = Runtime()
        func mutate(action: Action) -> Effect {
            switch action { case .add(let title, let quantity): .just(.insert(Line(title: title, quantity: quantity))) }
        }
        func reduce(state: State, mutation: Mutation) -> State {
            var state = state
            switch mutation {
            case .insert(let line):
                state.lines.append(line)
                state.items += line.quantity
            }
            return state
        }
    }

    /// The types release 1 recorded with, kept in release 2 and 3.
    enum Release1: ReactorSchema {
        typealias Action = Cart1.Action
        typealias Mutation = Cart1.Mutation
        typealias State = Cart1.State
    }

    /// The types release 2 recorded with, kept in release 3.
    enum Release2: ReactorSchema {
        typealias Action = Cart2.Action
        typealias Mutation = Cart2.Mutation
        typealias State = Cart2.State
    }

    /// Release 2's migrations.
    static let toRelease2 = SchemaMigrations<Cart2>()
        .from(Release1.self, mutation: upgrade1, state: upgrade1)

    /// Release 3's: a chain from release 1 through release 2, and a step from release 2.
    static let toRelease3 = SchemaMigrations<Cart3>()
        .from(Release1.self, to: Release2.self, mutation: upgrade1, state: upgrade1)
        .from(Release2.self, mutation: upgrade2, state: upgrade2)

    @Sendable static func upgrade1(_ old: Cart1.Mutation) -> Cart2.Mutation {
        switch old { case .appendLine(let title): .addLine(Line(title: title, quantity: 1)) }
    }

    @Sendable static func upgrade1(_ old: Cart1.State) -> Cart2.State {
        Cart2.State(lines: old.lines.map { Line(title: $0, quantity: 1) }, currency: "EUR")
    }

    @Sendable static func upgrade2(_ old: Cart2.Mutation) -> Cart3.Mutation {
        switch old { case .addLine(let line): .insert(line) }
    }

    @Sendable static func upgrade2(_ old: Cart2.State) -> Cart3.State {
        Cart3.State(lines: old.lines, currency: old.currency, items: old.lines.reduce(0) { $0 + $1.quantity })
    }

    /// Release 1 adds `titles` and quits; returns the log's path.
    func recordRelease1(_ titles: [String]) throws -> String {
        let path = scratch.file("cart.reactorlog")
        let log = try EventLog.open(at: path)
        do {
            let cart = Cart1()
            try cart.attach(to: log, stream: "cart")
            for title in titles { cart.send(.add(title)) }
        }
        try log.close()
        return path
    }

    @Test("a migrated stream resumes with its state, keeps growing, and remembers which types wrote what")
    func resumesThroughMigration() throws {
        let path = try recordRelease1(["apple", "pear", "fig"])
        let log = try EventLog.open(at: path)
        let lastOfRelease1 = try log.highestSequence(stream: "cart")
        let cart = Cart2()
        let change = try #require(try cart.attach(to: log, stream: "cart", migrations: Self.toRelease2))
        #expect(change.retiredAs == nil && change.problem == nil && change.migrated)
        #expect(change.description.contains("through the migrations"), "\(change)")
        #expect(cart.currentState.lines.map(\.title) == ["apple", "pear", "fig"])
        #expect(cart.currentState.lines.allSatisfy { $0.quantity == 1 })
        cart.send(.add("kiwi", quantity: 3))
        try log.flush()
        #expect(try log.streams().map(\.name) == ["cart"], "one stream, no new generation")

        let history = try log.schemaHistory(stream: "cart")
        #expect(history.eras == [SchemaHistory.Era(fingerprint: Release1.schemaFingerprint, through: lastOfRelease1)])
        #expect(history.current == Cart2.defaultSchemaFingerprint)
        #expect(history.fingerprint(at: 0) == Release1.schemaFingerprint)
        #expect(history.fingerprint(at: lastOfRelease1 + 1) == Cart2.defaultSchemaFingerprint)
        #expect(try log.metadata().formatVersion == EventLog.formatVersion)
        #expect(try log.verify().isHealthy)

        // Time travel reads both eras through the same migrations.
        let machine = try TimeMachine(log: log, stream: "cart", replayer: ReactorReplayer(migrations: Self.toRelease2) { Cart2() })
        let mutations = try log.sequences(stream: "cart", kinds: [.mutation], from: 1, through: .max)
        #expect(try machine.state(at: mutations[1]).lines.map(\.title) == ["apple", "pear"])
        #expect(try machine.state(at: try machine.lastStep()).lines == cart.currentState.lines)
        #expect(try machine.divergence() == nil, "replay reproduces every recorded state, old and new")
        let blame = try machine.blame(StatePath(parsing: "lines"))
        #expect(blame.map(\.mutation.sequence) == mutations, "each mutation of either era changed the lines")

        // Without the migrations, release 1's entries are a schema mismatch, never damage.
        let plain = try TimeMachine(log: log, stream: "cart", replayer: ReactorReplayer { Cart2() })
        #expect {
            try plain.state(at: mutations[0])
        } throws: { error in
            guard case TimeTravelError.schemaMismatch = error else { return false }
            return true
        }
    }

    @Test("three releases: release 3 reads release 1's entries through release 2, at start-up and in time travel")
    func chain() throws {
        let path = try recordRelease1(["apple", "pear"])
        do {
            let log = try EventLog.open(at: path)
            let cart = Cart2()
            try cart.attach(to: log, stream: "cart", migrations: Self.toRelease2)
            cart.send(.add("fig", quantity: 2))
            try log.close()
        }
        let log = try EventLog.open(at: path)
        let cart = Cart3()
        let change = try #require(try cart.attach(to: log, stream: "cart", migrations: Self.toRelease3))
        #expect(change.migrated && change.retiredAs == nil, "\(change)")
        #expect(cart.currentState.items == 4, "1 + 1 + 2, the first two migrated twice")
        cart.send(.add("kiwi", quantity: 5))
        try log.flush()
        #expect(try log.schemaHistory(stream: "cart").eras.map(\.fingerprint) == [Release1.schemaFingerprint, Release2.schemaFingerprint])

        let machine = try TimeMachine(log: log, stream: "cart", replayer: ReactorReplayer(migrations: Self.toRelease3) { Cart3() })
        let mutations = try log.sequences(stream: "cart", kinds: [.mutation], from: 1, through: .max)
        let items = try mutations.map { try machine.state(at: $0).items }
        #expect(items == [1, 2, 4, 9])
        #expect(try machine.state(at: 0) == Cart3.State(), "the initial state, written by release 1, migrates too")
        #expect(try machine.divergence() == nil)
        #expect(try machine.checkSchema(currentFingerprint: Cart3.defaultSchemaFingerprint).verdict == .safe)
        #expect(try log.verify().isHealthy)
    }

    @Test("the app's own inspector reads a migrated stream through the migrations it registers")
    func inspectorRegistration() throws {
        let path = try recordRelease1(["apple", "pear", "fig"])
        let log = try EventLog.open(at: path)
        let cart = Cart2()
        try cart.attach(to: log, stream: "cart", migrations: Self.toRelease2)
        cart.send(.add("kiwi", quantity: 3))
        try log.flush()
        let first = try #require(try log.sequences(stream: "cart", kinds: [.mutation], from: 1, through: .max).first)

        let registered = ReactorRegistration.reactor(Cart2.self, migrations: Self.toRelease2) { Cart2() }
        let machine = try registered.makeMachine(log, "cart")
        #expect(try machine.json(at: first)["lines"] == JSONValue.array([.object(["title": .string("apple"), "quantity": .number(1)])]))
        let report = try machine.divergenceReport(from: nil, through: .max)
        #expect(report.divergence == nil && report.unchecked.isEmpty)

        let unmigrated = try ReactorRegistration.reactor(Cart2.self) { Cart2() }.makeMachine(log, "cart")
        #expect {
            try unmigrated.json(at: first)
        } throws: { error in
            guard case TimeTravelError.schemaMismatch = error else { return false }
            return true
        }
    }

    @Test("a step that throws, or no step for the recorded types, starts a new generation; .fail throws")
    func failingStep() throws {
        struct Refused: Error {}
        let refusing = SchemaMigrations<Cart2>()
            .from(Release1.self, mutation: { (_: Cart1.Mutation) throws -> Cart2.Mutation in throw Refused() }, state: Self.upgrade1)
        let path = try recordRelease1(["apple"])
        let log = try EventLog.open(at: path)
        #expect {
            try Cart2().attach(to: log, stream: "cart", migrations: refusing, onSchemaChange: .fail)
        } throws: { error in
            guard let error = error as? EventLogError, case .incompatibleSchema(_, _, _, let problem) = error else { return false }
            return problem.contains("migration") && problem.contains("Refused")
        }
        #expect(try log.schemaHistory(stream: "cart").eras.isEmpty, "nothing changed")
        let change = try #require(try Cart2().attach(to: log, stream: "cart", migrations: refusing))
        #expect(change.retiredAs == "cart@1" && !change.migrated)
        #expect(try log.schemaHistory(stream: "cart@1").eras.isEmpty, "the old generation keeps its own types")
    }
}

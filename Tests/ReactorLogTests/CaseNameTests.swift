import EventLogKit
import Foundation
import ReactorLog
import ReactorLogPersistence
import TestSupport
import Testing

@Suite("Case names in the log")
struct CaseNameTests {
    /// Actions of every shape: enum cases with and without payloads, and structs.
    final class ShapesReactor: Reactor {
        enum Action: Codable, Sendable { case plain, payload(String), labelled(name: String, count: Int) }
        struct Mutation: Codable, Sendable { var name: String }
        struct Wide: Codable, Sendable { var a = 1, b = 2 }
        struct State: Codable, Sendable { var last = "" }
        let initialState = State()
        let runtime = Runtime()
        func mutate(action: Action) -> Effect { .just(Mutation(name: "\(action)")) }
        func reduce(state: State, mutation: Mutation) -> State { State(last: mutation.name) }
    }

    @Test("enum cases are named by their case, with or without payload; structs by their type, even with one field",
          arguments: [CodecID.binary, .json])
    func shapes(codec: CodecID) throws {
        let scratch = ScratchDirectory()
        var configuration = EventLogConfiguration()
        configuration.codec = codec == .json ? JSONLogCodec() : BinaryLogCodec()
        let log = try EventLog.open(at: scratch.file("shapes.reactorlog"), configuration: configuration)
        let reactor = ShapesReactor()
        try reactor.attach(to: log, stream: "shapes")
        reactor.send(.plain)
        reactor.send(.payload("x"))
        reactor.send(.labelled(name: "y", count: 2))
        try log.flush()
        let names = try log.readEntries(EntryQuery(stream: "shapes")).map { "\($0.kind) \($0.caseName)" }
        #expect(names == [
            "opened opened",
            "action plain", "mutation Mutation",
            "action payload", "mutation Mutation",
            "action labelled", "mutation Mutation",
        ])
    }
}

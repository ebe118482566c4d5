import EventLogKit
import ReactorLog
import ReactorLogPersistence
import TestSupport
import Testing

/// The user API the guide's ProfileViewReactor calls (a fake: the real one is outside this project).
enum UserAPI {
    static func follow(_ userID: Int) async throws {}
}

/// docs/GUIDE.md's first example, verbatim (`guideIsVerbatim` checks that it is).
final class ProfileViewReactor: Reactor {
    enum Action: Codable, Sendable {
        case follow(Int)
        case toggleBookmarked
    }

    enum Mutation: Codable, Sendable {
        case setFollowing(Bool)
        case setBookmarked(Bool)
    }

    struct State: Codable, Sendable, Equatable {
        var isFollowing = false
        var isBookmarked = false
    }

    let initialState = State()
    let runtime = Runtime()                    // the one stored property a reactor needs

    func mutate(action: Action) -> Effect {
        switch action {
        case let .follow(userID):
            return .run { send in                       // async work, any number of mutations
                try await UserAPI.follow(userID)
                send(.setFollowing(true))
            }
        case .toggleBookmarked:
            return .just(.setBookmarked(!currentState.isBookmarked))   // reduced before send returns
        }
    }

    func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation {
        case let .setFollowing(isFollowing): state.isFollowing = isFollowing
        case let .setBookmarked(isBookmarked): state.isBookmarked = isBookmarked
        }
        return state
    }
}

// The guide's hand-written binary coding, as written there.
extension ProfileViewReactor.Mutation: BinaryPayloadCodable {
    func encode(to writer: inout BinaryPayloadWriter) throws {
        switch self {
        case let .setFollowing(value): try writer.encodeCase("setFollowing") { try $0.encode(value, forKey: "_0") }
        case let .setBookmarked(value): try writer.encodeCase("setBookmarked") { try $0.encode(value, forKey: "_0") }
        }
    }

    init(from reader: inout BinaryPayloadReader) throws {
        self = try reader.decodeCase { name, reader in
            switch name {
            case "setFollowing": .setFollowing(try reader.decodeMember(Bool.self, forKey: "_0"))
            case "setBookmarked": .setBookmarked(try reader.decodeMember(Bool.self, forKey: "_0"))
            default: throw reader.unknownCase(name, of: Self.self)
            }
        }
    }
}

extension ProfileViewReactor.Mutation: Equatable {}

@Suite("The guide's examples", .timeLimit(.minutes(3)))
struct GuideExampleTests {
    @Test("the guide's first reactor, its test and its hand-written coding are this file's, verbatim")
    func guideIsVerbatim() throws {
        let file = try DocumentedCode.file("Tests/ReactorLogTests/GuideExampleTests.swift")
        let first = try DocumentedCode.swiftBlocks(of: "docs/GUIDE.md", after: "## A first reactor", before: "## Effects")
        let byHand = try DocumentedCode.swiftBlocks(of: "docs/GUIDE.md", after: "**Or write it by hand**", before: "- The bytes must be")
        #expect(first.count == 2 && byHand.count == 1)
        for block in first + byHand {
            #expect(DocumentedCode.holds(file, block), "GuideExampleTests.swift lacks:\n\(block)")
        }
    }

    @Test("the guide's hand-written binary coding of Mutation agrees with Codable for every case")
    func handWrittenCoding() throws {
        for mutation: ProfileViewReactor.Mutation in [.setFollowing(true), .setFollowing(false), .setBookmarked(true)] {
            try BinaryPayload.checkHandWrittenCoding(of: mutation)
        }
    }

    @Test("testIsBookmarked, as in the seed: synchronous, no waiting")
    func isBookmarked() {
        let reactor = ProfileViewReactor()
        reactor.send(.toggleBookmarked)
        #expect(reactor.currentState.isBookmarked == true)
        reactor.send(.toggleBookmarked)
        #expect(reactor.currentState.isBookmarked == false)
    }

    @Test("following arrives asynchronously and is recorded in the log")
    func follow() async throws {
        let scratch = ScratchDirectory()
        let log = try EventLog.open(at: scratch.file("profile.reactorlog"))
        let reactor = ProfileViewReactor()
        try reactor.attach(to: log, stream: "profile")
        reactor.send(.follow(42))
        _ = await reactor.state { $0.isFollowing }
        try await log.flush()
        #expect(try log.readEntries(EntryQuery(stream: "profile")).map(\.caseName) == ["opened", "follow", "setFollowing"])
    }
}

@testable import BinaryPayloadKit
import BinaryPayloadMacros
import ReactorLog
import Foundation
import TestSupport
import Testing

/// What `@BinaryPayloadCoding` writes, on real types: the bytes, case names and readings of their synthesized
/// `Codable` conformances, and `Codable`'s refusals.
@Suite("@BinaryPayloadCoding on real types")
struct BinaryPayloadCodingTests {
    static let profile = Profile(name: "Ada", nickname: nil, scores: [3, 1], tags: ["a": 1], x: 1.5, y: -2, kind: "profile", default: true)

    static let mutations: [SearchMutation] = [
        .setQuery("swift"), .setQuery(""), .setRepos(["a/b", "c/d"], nextPage: 2), .setRepos([], nextPage: 0),
        .setNextPage(3), .setNextPage(nil), .move(from: 1, to: 2), .labelledOptional(note: "n", count: 1),
        .labelledOptional(note: nil, count: 0), .mixed(7, label: "x", false), .clear, .default, .nested(profile),
        .shapes([.circle(radius: 2), .square(3), .empty]),
    ]

    @Test("every case of an enum writes the bytes Codable writes, names the same case and reads them back")
    func enumMatchesCodable() throws {
        for mutation in Self.mutations { try BinaryPayload.checkHandWrittenCoding(of: mutation) }
    }

    @Test("a struct writes its stored properties as Codable does: declaration order, a nil optional left out, none computed or static")
    func structMatchesCodable() throws {
        var profile = Self.profile
        try BinaryPayload.checkHandWrittenCoding(of: profile)
        profile.nickname = "ada"
        profile.observed = 4
        try BinaryPayload.checkHandWrittenCoding(of: profile)
        let json = try String(decoding: BinaryPayloadEncoder.encode(profile).payload.withUnsafeBytes { try BinaryPayload.json($0) }, as: UTF8.self)
        #expect(json.hasPrefix(#"{"name":"ada","nickname":"ada","scores":[3,1]"#) || json.hasPrefix(#"{"name":"Ada","nickname":"ada","scores":[3,1]"#))
        #expect(!json.contains("computed") && !json.contains("shared"))
    }

    @Test("raw-value enums write their raw values, however the raw type is spelled, and other shapes nest", arguments: [
        Tagged(kind: .plain, level: .high, empty: Empty(), maybeShapes: [.empty]),
        Tagged(kind: .fancy, level: nil, empty: Empty(), maybeShapes: nil),
    ])
    func nestedAndRawValues(_ tagged: Tagged) throws {
        try BinaryPayload.checkHandWrittenCoding(of: tagged)
        try BinaryPayload.checkHandWrittenCoding(of: tagged.kind)
        for value in [Qualified.on, .off] { try BinaryPayload.checkHandWrittenCoding(of: value) }
        for value in [Aliased.debug, .info] { try BinaryPayload.checkHandWrittenCoding(of: value) }
        for value in [Direction.up, .down] { try BinaryPayload.checkHandWrittenCoding(of: value) }
        try BinaryPayload.checkHandWrittenCoding(of: UserID(rawValue: "u-1"))
        try BinaryPayload.checkHandWrittenCoding(of: Empty())
        try BinaryPayload.checkHandWrittenCoding(of: PublicCounter(count: 9))
        try BinaryPayload.checkHandWrittenCoding(of: Sealed(secret: 4, visible: "v"))
        try BinaryPayload.checkHandWrittenCoding(of: Page(items: [Shape.circle(radius: 1), .empty], next: 2))
        try BinaryPayload.checkHandWrittenCoding(of: Page(items: [Date(timeIntervalSinceReferenceDate: 5)], next: nil))
        try BinaryPayload.checkHandWrittenCoding(of: Tree.node(.leaf(1), .node(.leaf(2), .leaf(3))))
    }

    @Test("a type's own coding keys rename, order and leave out members as Codable's do")
    func ownCodingKeys() throws {
        // What the keys leave out is not written, and is read as its default, by Codable and the macro alike.
        var repository = RepositoryModel(fullName: "apple/swift", stars: 60_000, isFork: nil)
        try BinaryPayload.checkHandWrittenCoding(of: repository)
        repository.isFork = false
        repository.cachedAt = 5
        repository.scratch = 7
        try BinaryPayload.checkHandWrittenCoding(of: repository)
        let json = try String(decoding: BinaryPayloadEncoder.encode(repository).payload.withUnsafeBytes { try BinaryPayload.json($0) }, as: UTF8.self)
        #expect(json == #"{"stargazers_count":60000,"full_name":"apple/swift","fork":false,"schema":2}"#)
        #expect(try read(RepositoryModel.self, json) == JSONDecoder().decode(RepositoryModel.self, from: Data(json.utf8)))
        #expect(try read(RepositoryModel.self, json).cachedAt == 0)

        for value in [Renamed.setRepos(["a"], nextPage: 2), .setRepos([], nextPage: 0, source: "cache"), .clear, .default(3)] {
            try BinaryPayload.checkHandWrittenCoding(of: value)
        }
        let renamed = try String(decoding: BinaryPayloadEncoder.encode(Renamed.setRepos(["a"], nextPage: 2, source: "cache")).payload.withUnsafeBytes { try BinaryPayload.json($0) }, as: UTF8.self)
        #expect(renamed == #"{"repos":{"items":["a"],"page":2}}"#)
        #expect(try read(Renamed.self, renamed) == .setRepos(["a"], nextPage: 2, source: "api"))
        #expect(try read(Renamed.self, renamed) == JSONDecoder().decode(Renamed.self, from: Data(renamed.utf8)))
        for value in [Numbered.first(), .second(label: "b")] { try BinaryPayload.checkHandWrittenCoding(of: value) }
        #expect(try read(Numbered.self, #"{"first":{}}"#) == .first(1))
        try BinaryPayload.checkHandWrittenCoding(of: Umlaut.über(3))
    }

    @Test("a constant with an initial value is written and not read, also in a struct the macro could read as a raw value")
    func constantWithInitialValue() throws {
        try BinaryPayload.checkHandWrittenCoding(of: Versioned(name: "a"))
        try BinaryPayload.checkHandWrittenCoding(of: Constant())
        #expect(try read(Versioned.self, #"{"version":9,"name":"b"}"#) == Versioned(name: "b"))
    }

    @Test("a wrapped property's storage is written under the property's name as Codable writes it, pulses and the app's own wrappers alike")
    func wrappedProperties() throws {
        var state = PulsedState(volume: 14)
        try BinaryPayload.checkHandWrittenCoding(of: state)
        #expect(try json(of: state) == #"{"alert":{"value":null,"valueUpdatedCount":0},"count":{"value":0,"valueUpdatedCount":0},"volume":{"level":10},"title":"inbox","subtitle":"","isSynced":false}"#)
        state.alert = "Sent"
        state.alert = "Sent"
        state.count += 1
        state.volume = -3
        try BinaryPayload.checkHandWrittenCoding(of: state)
        #expect(try read(PulsedState.self, json(of: state)).$alert.valueUpdatedCount == 2)
        // A pulse's value and count are required, even for an optional value, as Codable requires them (the same
        // state with both reads).
        let complete = #"{"alert":{"value":null,"valueUpdatedCount":1},"count":{"value":0,"valueUpdatedCount":0},"volume":{"level":1},"title":"","subtitle":"","isSynced":true}"#
        #expect(try read(PulsedState.self, complete).$alert.valueUpdatedCount == 1)
        let missing = #"{"alert":{"valueUpdatedCount":1},"count":{"value":0,"valueUpdatedCount":0},"volume":{"level":1},"title":"","subtitle":"","isSynced":true}"#
        #expect(throws: DecodingError.self) { try read(PulsedState.self, missing) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PulsedState.self, from: Data(missing.utf8)) }
        let absent = #"{"count":{"value":0,"valueUpdatedCount":0},"volume":{"level":1},"title":"","subtitle":"","isSynced":true}"#
        #expect(throws: DecodingError.self) { try read(PulsedState.self, absent) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PulsedState.self, from: Data(absent.utf8)) }

        var banner = Banner(message: "Hello", shownAt: nil)
        banner.message = "Bye"
        try BinaryPayload.checkHandWrittenCoding(of: banner)
        #expect(try json(of: banner) == #"{"text":{"value":"Bye","valueUpdatedCount":1}}"#)
        try BinaryPayload.checkHandWrittenCoding(of: Pulse(value: [1, 2], updatedCount: .max))
    }

    @Test("Foundation's dates, identifiers and URLs are written as through Codable")
    func foundationValues() throws {
        let id = UUID()
        try BinaryPayload.checkHandWrittenCoding(of: Event(at: Date(timeIntervalSinceReferenceDate: 12.25), id: id, link: URL(string: "https://example.com/a?b=c")))
        try BinaryPayload.checkHandWrittenCoding(of: Event(at: Date(timeIntervalSinceReferenceDate: -1), id: id, link: nil))
        #expect(throws: DecodingError.self) { try read(UUID.self, #""not-a-uuid""#) }
    }

    @Test("what lies on a path is written as through Codable, as blame writes a state's path", arguments: [
        [], [.key("scores"), .index(1)], [.key("scores"), .count], [.key("nickname")], [.key("tags"), .key("a")], [.key("nope")],
    ] as [[BinaryPayload.PathStep]])
    func pathsMatchCodable(_ path: [BinaryPayload.PathStep]) throws {
        let wrapped = SearchMutation.nested(Self.profile)
        for (value, prefix) in [(Self.profile as any BinaryPayloadCodable, [BinaryPayload.PathStep]()), (wrapped, [.key("nested"), .key("_0")])] {
            func check<Value: BinaryPayloadCodable>(_ value: Value) throws {
                let direct = try BinaryPayloadEncoder.encode(value, keepingOnly: prefix + path)
                let viaCodable = try BinaryPayloadEncoder.encode(value, keepingOnly: prefix + path, direct: false)
                #expect(direct.payload == viaCodable.payload, "\(prefix + path)")
            }
            try check(value)
        }
    }

    @Test("the guide's example writes what Codable writes; an optional with a default reads as nil when missing, as Codable reads it")
    func guideExample() throws {
        for mutation: Mutation in [.setQuery("swift"), .setRepos(["a"], nextPage: nil), .setRepos([], nextPage: 3), .setLoading(true)] {
            try BinaryPayload.checkHandWrittenCoding(of: mutation)
        }
        try BinaryPayload.checkHandWrittenCoding(of: State())
        var state = State(query: "q", repos: ["r"], nextPage: nil, isLoading: true)
        try BinaryPayload.checkHandWrittenCoding(of: state)
        state.alertMessage = "Rate limited"
        try BinaryPayload.checkHandWrittenCoding(of: state)
        #expect(try read(State.self, #"{"query":"","repos":[],"isLoading":false,"alertMessage":{"value":null,"valueUpdatedCount":0}}"#).nextPage == nil)
        // Its coding keys: the property they leave out is neither written nor read.
        let repository = Repository(fullName: "apple/swift", stars: 3, isStarred: true)
        try BinaryPayload.checkHandWrittenCoding(of: repository)
        let json = try String(decoding: BinaryPayloadEncoder.encode(repository).payload.withUnsafeBytes { try BinaryPayload.json($0) }, as: UTF8.self)
        #expect(json == #"{"full_name":"apple/swift","stargazers_count":3}"#)
        #expect(try read(Repository.self, json) == Repository(fullName: "apple/swift", stars: 3, isStarred: false))
    }

    @Test("the guide's macro example is this module's, verbatim")
    func guideExampleIsVerbatim() throws {
        let file = try DocumentedCode.file("Tests/BinaryPayloadMacrosTests/GuideMacroExample.swift")
        let blocks = try DocumentedCode.swiftBlocks(of: "docs/GUIDE.md", after: "**Let the compiler write it.**", before: "**Or write it by hand**")
        #expect(blocks.count == 2)
        for block in blocks {
            #expect(DocumentedCode.holds(file, block), "GuideMacroExample.swift lacks:\n\(block)")
        }
    }

    /// The JSON `value`'s binary payload renders as.
    private func json<Value: Encodable>(of value: Value) throws -> String {
        try String(decoding: BinaryPayloadEncoder.encode(value).payload.withUnsafeBytes { try BinaryPayload.json($0) }, as: UTF8.self)
    }

    /// Reads `json` through the conformance alone, without the fallback to `Codable` the codec has.
    private func read<Value: BinaryPayloadDecodable>(_ type: Value.Type, _ json: String) throws -> Value {
        let bytes = try BinaryPayload.fromJSON(Data(json.utf8))
        return try bytes.withUnsafeBytes { buffer in
            var reader = BinaryPayloadReader(buffer)
            return try Value(from: &reader)
        }
    }

    @Test("members in another order, an unknown member and a missing optional read as Codable reads them")
    func readsLikeCodable() throws {
        #expect(try read(SearchMutation.self, #"{"setRepos":{"nextPage":4,"extra":[1],"_0":["x"]}}"#) == .setRepos(["x"], nextPage: 4))
        #expect(try read(SearchMutation.self, #"{"labelledOptional":{"count":2}}"#) == .labelledOptional(note: nil, count: 2))
        #expect(try read(Kind.self, #""FANCY""#) == .fancy)
        #expect(try read(Level.self, "2") == .high)
        let profile = try read(Profile.self, #"{"default":false,"y":2,"x":1,"tags":{},"scores":[],"name":"B","kind":"k","observed":1,"observedChanges":0}"#)
        #expect(profile.name == "B" && profile.nickname == nil && profile.kind == "k" && profile.observed == 1)
    }

    @Test("what Codable refuses is refused", arguments: [
        #"{"setRepos":{"_0":["x"]}}"#,  // a missing required value
        #"{"unknown":{}}"#,  // a case the enum lacks
        #"{"clear":{},"setQuery":{"_0":"a"}}"#,  // two cases
        #"{"clear":5}"#,  // a case without values that is not an object
        #"{"setQuery":{"_0":5}}"#,  // a value of the wrong type
    ])
    func refusesWhatCodableRefuses(_ json: String) throws {
        #expect(throws: DecodingError.self) { try read(SearchMutation.self, json) }
        #expect(throws: DecodingError.self) {
            try BinaryPayload.fromJSON(Data(json.utf8)).withUnsafeBytes { try BinaryPayloadDecoder.decode(SearchMutation.self, from: $0, direct: false) }
        }
    }

    @Test("a raw value the enum lacks and a struct missing a property are refused")
    func refusesMissingValues() {
        #expect(throws: DecodingError.self) { try read(Kind.self, #""plain2""#) }
        #expect(throws: DecodingError.self) { try read(Level.self, "9") }
        #expect(throws: DecodingError.self) { try read(Profile.self, #"{"name":"B"}"#) }
        #expect(throws: DecodingError.self) { try read(Empty.self, "[]") }
    }
}

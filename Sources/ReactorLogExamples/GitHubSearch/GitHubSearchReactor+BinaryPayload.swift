import BinaryPayloadKit

// The example's values write and read the binary codec's bytes themselves, as an app's model module would for the
// types it logs most: BinaryPayloadKit links no LMDB, so this module stays runtime-only. The bytes are those of
// the `Codable` conformances; `ExampleTests` checks every case with `BinaryPayload.checkHandWrittenCoding(of:)`.

extension GitHubSearchReactor.Action: BinaryPayloadCodable {
    /// Writes the action as its `Codable` conformance does.
    public func encode(to writer: inout BinaryPayloadWriter) throws {
        switch self {
        case let .updateQuery(query): try writer.encodeCase("updateQuery") { try $0.encodeIfPresent(query, forKey: "_0") }
        case .loadNextPage: writer.encodeCase("loadNextPage") { _ in }
        }
    }

    /// Reads an action as its `Codable` conformance does.
    public init(from reader: inout BinaryPayloadReader) throws {
        self = try reader.decodeCase { name, reader in
            switch name {
            case "updateQuery": .updateQuery(try reader.decodeOptionalMember(String.self, forKey: "_0"))
            case "loadNextPage": .loadNextPage
            default: throw reader.unknownCase(name, of: Self.self)
            }
        }
    }
}

extension GitHubSearchReactor.Mutation: BinaryPayloadCodable {
    /// Writes the mutation as its `Codable` conformance does.
    public func encode(to writer: inout BinaryPayloadWriter) throws {
        switch self {
        case let .setQuery(query): try writer.encodeCase("setQuery") { try $0.encodeIfPresent(query, forKey: "_0") }
        case let .setRepos(repos, nextPage):
            try writer.encodeCase("setRepos") {
                try $0.encode(repos, forKey: "_0")
                try $0.encodeIfPresent(nextPage, forKey: "nextPage")
            }
        case let .appendRepos(repos, nextPage):
            try writer.encodeCase("appendRepos") {
                try $0.encode(repos, forKey: "_0")
                try $0.encodeIfPresent(nextPage, forKey: "nextPage")
            }
        case let .setLoadingNextPage(loading): try writer.encodeCase("setLoadingNextPage") { try $0.encode(loading, forKey: "_0") }
        }
    }

    /// Reads a mutation as its `Codable` conformance does.
    public init(from reader: inout BinaryPayloadReader) throws {
        self = try reader.decodeCase { name, reader in
            switch name {
            case "setQuery": return .setQuery(try reader.decodeOptionalMember(String.self, forKey: "_0"))
            case "setRepos", "appendRepos":
                var repos: [String]?, nextPage: Int?
                try reader.decodeObject { key, reader in
                    switch key {
                    case "_0": repos = try reader.decode()
                    case "nextPage": nextPage = try reader.decode(Int?.self)
                    default: break
                    }
                }
                let found = try repos ?? reader.keyNotFound("_0")
                return name == "setRepos" ? .setRepos(found, nextPage: nextPage) : .appendRepos(found, nextPage: nextPage)
            case "setLoadingNextPage": return .setLoadingNextPage(try reader.decodeMember(Bool.self, forKey: "_0"))
            default: throw reader.unknownCase(name, of: Self.self)
            }
        }
    }
}

import EventLogKit

// The workload's values write and read themselves in the binary codec's form, as an app would for the types it
// logs most: the same bytes as their `Codable` conformances (`BinaryPayload.checkHandWrittenCoding(of:)` checks
// each case on every run), without `Codable`'s containers. The figures through `Codable` use
// `BinaryLogCodec(directCoding: false)`, which sets them aside.

extension BenchReactor.Action: BinaryPayloadCodable {
    func encode(to writer: inout BinaryPayloadWriter) throws {
        switch self {
        case let .updateQuery(query): try writer.encodeCase("updateQuery") { try $0.encode(query, forKey: "_0") }
        case .loadNextPage: writer.encodeCase("loadNextPage") { _ in }
        case let .toggleStar(id): try writer.encodeCase("toggleStar") { try $0.encode(id, forKey: "_0") }
        }
    }

    init(from reader: inout BinaryPayloadReader) throws {
        self = try reader.decodeCase { name, reader in
            switch name {
            case "updateQuery": .updateQuery(try reader.decodeMember(String.self, forKey: "_0"))
            case "loadNextPage": .loadNextPage
            case "toggleStar": .toggleStar(try reader.decodeMember(Int.self, forKey: "_0"))
            default: throw reader.unknownCase(name, of: Self.self)
            }
        }
    }
}

extension BenchReactor.Mutation: BinaryPayloadCodable {
    func encode(to writer: inout BinaryPayloadWriter) throws {
        switch self {
        case let .setQuery(query): try writer.encodeCase("setQuery") { try $0.encode(query, forKey: "_0") }
        case let .setRepos(repos, nextPage):
            try writer.encodeCase("setRepos") {
                try $0.encode(repos, forKey: "_0")
                try $0.encode(nextPage, forKey: "nextPage")
            }
        case let .setLoadingNextPage(loading): try writer.encodeCase("setLoadingNextPage") { try $0.encode(loading, forKey: "_0") }
        case let .appendRepos(repos, nextPage):
            try writer.encodeCase("appendRepos") {
                try $0.encode(repos, forKey: "_0")
                try $0.encode(nextPage, forKey: "nextPage")
            }
        case let .setStarred(id): try writer.encodeCase("setStarred") { try $0.encode(id, forKey: "_0") }
        }
    }

    init(from reader: inout BinaryPayloadReader) throws {
        self = try reader.decodeCase { name, reader in
            switch name {
            case "setQuery": return .setQuery(try reader.decodeMember(String.self, forKey: "_0"))
            case "setRepos", "appendRepos":
                var repos: [String]?, nextPage: Int?
                try reader.decodeObject { key, reader in
                    switch key {
                    case "_0": repos = try reader.decode([String].self)
                    case "nextPage": nextPage = try reader.decode(Int.self)
                    default: break
                    }
                }
                let values = (try repos ?? reader.keyNotFound("_0"), try nextPage ?? reader.keyNotFound("nextPage"))
                return name == "setRepos" ? .setRepos(values.0, nextPage: values.1) : .appendRepos(values.0, nextPage: values.1)
            case "setLoadingNextPage": return .setLoadingNextPage(try reader.decodeMember(Bool.self, forKey: "_0"))
            case "setStarred": return .setStarred(try reader.decodeMember(Int.self, forKey: "_0"))
            default: throw reader.unknownCase(name, of: Self.self)
            }
        }
    }
}

extension BenchReactor.State: BinaryPayloadCodable {
    func encode(to writer: inout BinaryPayloadWriter) throws {
        try writer.encodeObject {
            try $0.encode(query, forKey: "query")
            try $0.encode(repos, forKey: "repos")
            try $0.encode(nextPage, forKey: "nextPage")
            try $0.encode(isLoadingNextPage, forKey: "isLoadingNextPage")
            try $0.encode(starred, forKey: "starred")
            try $0.encode(mutations, forKey: "mutations")
            try $0.encode(corrupted, forKey: "corrupted")
        }
    }

    init(from reader: inout BinaryPayloadReader) throws {
        var query: String?, repos: [String]?, nextPage: Int?, isLoadingNextPage: Bool?, starred: Int?, mutations: Int?, corrupted: Bool?
        try reader.decodeObject { key, reader in
            switch key {
            case "query": query = try reader.decode()
            case "repos": repos = try reader.decode()
            case "nextPage": nextPage = try reader.decode()
            case "isLoadingNextPage": isLoadingNextPage = try reader.decode()
            case "starred": starred = try reader.decode()
            case "mutations": mutations = try reader.decode()
            case "corrupted": corrupted = try reader.decode()
            default: break
            }
        }
        self.init()
        self.query = try query ?? reader.keyNotFound("query")
        self.repos = try repos ?? reader.keyNotFound("repos")
        self.nextPage = try nextPage ?? reader.keyNotFound("nextPage")
        self.isLoadingNextPage = try isLoadingNextPage ?? reader.keyNotFound("isLoadingNextPage")
        self.starred = try starred ?? reader.keyNotFound("starred")
        self.mutations = try mutations ?? reader.keyNotFound("mutations")
        self.corrupted = try corrupted ?? reader.keyNotFound("corrupted")
    }
}

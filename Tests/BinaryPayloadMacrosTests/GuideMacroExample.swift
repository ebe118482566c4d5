import BinaryPayloadMacros   // re-exports BinaryPayloadKit

// docs/GUIDE.md's macro example ("Let the compiler write it"), verbatim; BinaryPayloadCodingTests checks its values.

@BinaryPayloadCoding
enum Mutation: Codable, Sendable {
    case setQuery(String)
    case setRepos([String], nextPage: Int?)
    case setLoading(Bool)
}

@BinaryPayloadCoding
struct State: Codable, Sendable {
    var query = ""
    var repos: [String] = []
    var nextPage: Int? = 1
    var isLoading = false
}

extension Mutation: Equatable {}
extension State: Equatable {}

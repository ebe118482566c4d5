import BinaryPayloadMacros   // re-exports BinaryPayloadKit
import ReactorLog

// docs/GUIDE.md's macro example ("Let the compiler write it"), verbatim: BinaryPayloadCodingTests checks that it is,
// and checks its values.

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
    @Pulse var alertMessage: String? = nil    // a pulse writes itself, as Codable writes it
}

@BinaryPayloadCoding
struct Repository: Codable, Sendable {
    var fullName: String
    var stars = 0
    var isStarred = false        // not among the keys: neither written nor read, so it keeps its default

    enum CodingKeys: String, CodingKey {
        case fullName = "full_name"
        case stars = "stargazers_count"
    }
}

extension Mutation: Equatable {}
extension State: Equatable {}
extension Repository: Equatable {}

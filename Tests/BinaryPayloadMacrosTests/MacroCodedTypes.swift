import BinaryPayloadMacros
import ReactorLog
import Foundation

// Types whose binary conformances the macro writes, one of every shape it handles: the tests check each value
// against the type's synthesized Codable conformance.

@BinaryPayloadCoding
enum SearchMutation: Codable, Equatable {
    case setQuery(String)
    case setRepos([String], nextPage: Int)
    case setNextPage(Int?)
    case move(from: Int, to: Int)
    case labelledOptional(note: String?, count: Int)
    case mixed(Int, label: String, Bool)
    case clear
    case `default`
    case nested(Profile)
    case shapes([Shape])
}

@BinaryPayloadCoding
struct Profile: Codable, Equatable {
    var name: String
    var nickname: String?
    var scores: [Int]
    var tags: [String: Int]
    var x, y: Double
    let kind: String
    var observed = 0 {
        didSet { observedChanges += 1 }
    }
    var observedChanges = 0
    var `default`: Bool
    static let shared = 1
    var computed: Int { scores.count }
}

@BinaryPayloadCoding
enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case square(Double)
    case empty
}

@BinaryPayloadCoding
enum Kind: String, Codable, Equatable {
    case plain
    case fancy = "FANCY"
}

@BinaryPayloadCoding
enum Level: Int, Codable, Equatable {
    case low = 1, high
}

@BinaryPayloadCoding
struct Empty: Codable, Equatable {}

@BinaryPayloadCoding
struct Tagged: Codable, Equatable {
    var kind: Kind
    var level: Level?
    var empty: Empty
    var maybeShapes: [Shape]?
}

/// Public, so that the conformance's members must be public too (this file compiles only if they are).
@BinaryPayloadCoding
public struct PublicCounter: Codable, Equatable {
    public var count: Int

    public init(count: Int) { self.count = count }
}

@BinaryPayloadCoding
struct Event: Codable, Equatable {
    var at: Date
    var id: UUID
    var link: URL?
}

/// Private storage, which the conformance reads and writes from its extension as synthesized Codable does.
@BinaryPayloadCoding
struct Sealed: Codable, Equatable {
    private var secret: Int
    /// A language attribute, which the macro lets through.
    @usableFromInline private(set) var visible: String

    init(secret: Int, visible: String) {
        self.secret = secret
        self.visible = visible
    }
}

/// A recursive enum, through an indirect case.
@BinaryPayloadCoding
enum Tree: Codable, Equatable {
    indirect case node(Tree, Tree)
    case leaf(Int)
}

/// A generic page of items, which conforms where its items do.
@BinaryPayloadCoding
struct Page<Item: Codable & Equatable>: Codable, Equatable {
    var items: [Item]
    var next: Int?
}

typealias LevelName = String

/// Raw values the macro cannot see: a qualified raw type, and one through a type alias.
@BinaryPayloadCoding
enum Qualified: Swift.String, Codable, Equatable {
    case on, off
}

@BinaryPayloadCoding
enum Aliased: LevelName, Codable, Equatable {
    case debug, info = "INFO"
}

/// Cases without values or raw values: written as cases, each an object of one empty member.
@BinaryPayloadCoding
enum Direction: Codable, Equatable {
    case up, down
}

/// A struct with raw values of its own, which `Codable` writes as its raw value.
@BinaryPayloadCoding
struct UserID: RawRepresentable, Codable, Equatable {
    let rawValue: String
}

/// A model named for a JSON API: its own keys, in an order of their own, one property left out (it keeps its
/// default), one wrapped property left out too, and a `let` with a value that is written and never read.
@BinaryPayloadCoding
struct RepositoryModel: Codable, Equatable {
    var fullName: String
    var stars = 0
    var isFork: Bool?
    var cachedAt: Double = 0
    @Uncoded var scratch = 0
    let schema = 2

    enum CodingKeys: String, CodingKey {
        case stars = "stargazers_count"
        case fullName = "full_name"
        case isFork = "fork"
        case schema
    }
}

/// A property wrapper the type above leaves out of its keys, so that neither `Codable` nor the macro writes it.
@propertyWrapper
struct Uncoded: Equatable {
    var wrappedValue: Int
}

/// An enum whose own keys rename its cases (with raw values and without) and a case's values, one of which they
/// leave out (it has a default).
@BinaryPayloadCoding
enum Renamed: Codable, Equatable {
    case setRepos([String], nextPage: Int, source: String = "api")
    case clear
    case `default`(Int)

    enum CodingKeys: String, CodingKey {
        case setRepos = "repos"
        case clear
        case `default` = "fallback"
    }

    enum SetReposCodingKeys: String, CodingKey {
        case nextPage = "page"
        case _0 = "items"
    }
}

/// Coding keys with an integer raw type write their case names, as `Codable` writes them; a case whose keys leave
/// out every value is an empty object.
@BinaryPayloadCoding
enum Numbered: Codable, Equatable {
    case first(Int = 1)
    case second(label: String)

    enum CodingKeys: Int, CodingKey {
        case second = 2
        case first = 1
    }

    enum FirstCodingKeys: CodingKey {}
}

/// A constant with an initial value beside a variable, and a struct of constants alone: `init(from:)` cannot assign
/// the whole of `self` in either (a value read as a raw value is taken property by property).
@BinaryPayloadCoding
struct Versioned: Codable, Equatable {
    let version = 1
    var name: String

    /// Declared so that `Codable` writes the constant without warning that it will not read it.
    enum CodingKeys: CodingKey { case version, name }
}

@BinaryPayloadCoding
struct Constant: Codable, Equatable {
    let version = 1

    enum CodingKeys: CodingKey { case version }
}

/// A case whose name begins with a letter outside ASCII: synthesized `Codable` looks for its value keys under the
/// name as it is (`überCodingKeys`), not capitalized, and so must the macro.
@BinaryPayloadCoding
enum Umlaut: Codable, Equatable {
    case über(Int)

    enum überCodingKeys: String, CodingKey { case _0 = "x" }
    /// Not the case's keys for `Codable`, which does not capitalize `ü`.
    enum ÜberCodingKeys: String, CodingKey { case _0 = "y" }
}

/// A ReactorKit-style state: pulses (ReactorLog's wrapper, conformed by hand), a wrapper of the app's own conformed
/// by the macro, and properties isolated to global actors, which wrap nothing.
@BinaryPayloadCoding
struct PulsedState: Codable, Equatable {
    @Pulse var alert: String?
    @Pulse var count = 0
    @Clamped var volume: Int
    @MainActor var title = "inbox"
    @Swift.MainActor var subtitle = ""
    @DatabaseActor var isSynced = false
}

/// A global actor of the app's own, isolating a plain property as `@MainActor` does.
@globalActor
actor DatabaseActor {
    static let shared = DatabaseActor()
}

/// A wrapper of the app's own: its storage is written as the wrapper's conformance writes it.
@BinaryPayloadCoding
@propertyWrapper
struct Clamped: Codable, Equatable {
    private var level: Int

    init(wrappedValue: Int) { level = min(max(wrappedValue, 0), 10) }

    var wrappedValue: Int {
        get { level }
        set { level = min(max(newValue, 0), 10) }
    }
}

/// A wrapped property its coding keys rename: the key names the property, not its storage.
@BinaryPayloadCoding
struct Banner: Codable, Equatable {
    @Pulse var message: String
    var shownAt: Int?

    enum CodingKeys: String, CodingKey {
        case message = "text"
        case shownAt
    }
}

import BinaryPayloadMacros
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

import BinaryPayloadKit

// Values with hand-written binary conformances (`BinaryPayloadCodable`) beside their `Codable` ones, for the tests of
// hand-written coding, for `binary-payload-check`, which checks them in a release build, and for the fuzz target,
// which reads damaged bytes as a `Tree`.

/// An enum of every shape of case, conformed by hand as the guide shows.
public enum Shape: Codable, Equatable, Sendable, BinaryPayloadCodable {
    case empty
    case point(Int)
    case labelled(name: String, ratio: Double)
    case mixed([String], count: Int?, tags: [String: Int])
    case wide(UInt64, Int8, Float, Bool)

    /// Writes what the `Codable` conformance writes.
    public func encode(to writer: inout BinaryPayloadWriter) throws {
        switch self {
        case .empty: writer.encodeCase("empty") { _ in }
        case let .point(x): try writer.encodeCase("point") { try $0.encode(x, forKey: "_0") }
        case let .labelled(name, ratio):
            try writer.encodeCase("labelled") {
                try $0.encode(name, forKey: "name")
                try $0.encode(ratio, forKey: "ratio")
            }
        case let .mixed(words, count, tags):
            try writer.encodeCase("mixed") {
                try $0.encode(words, forKey: "_0")
                try $0.encodeIfPresent(count, forKey: "count")
                try $0.encode(tags, forKey: "tags")
            }
        case let .wide(big, small, float, flag):
            try writer.encodeCase("wide") {
                try $0.encode(big, forKey: "_0")
                try $0.encode(small, forKey: "_1")
                try $0.encode(float, forKey: "_2")
                try $0.encode(flag, forKey: "_3")
            }
        }
    }

    /// Reads what the `Codable` conformance writes.
    public init(from reader: inout BinaryPayloadReader) throws {
        self = try reader.decodeCase { name, reader in
            switch name {
            case "empty": return .empty
            case "point": return .point(try reader.decodeMember(Int.self, forKey: "_0"))
            case "labelled":
                var name: String?, ratio: Double?
                try reader.decodeObject { key, reader in
                    switch key {
                    case "name": name = try reader.decode()
                    case "ratio": ratio = try reader.decode()
                    default: break
                    }
                }
                return .labelled(name: try name ?? reader.keyNotFound("name"), ratio: try ratio ?? reader.keyNotFound("ratio"))
            case "mixed":
                var words: [String]?, count: Int?, tags: [String: Int]?
                try reader.decodeObject { key, reader in
                    switch key {
                    case "_0": words = try reader.decode()
                    case "count": count = try reader.decode(Int?.self)
                    case "tags": tags = try reader.decode()
                    default: break
                    }
                }
                return .mixed(try words ?? reader.keyNotFound("_0"), count: count, tags: try tags ?? reader.keyNotFound("tags"))
            case "wide":
                var big: UInt64?, small: Int8?, float: Float?, flag: Bool?
                try reader.decodeObject { key, reader in
                    switch key {
                    case "_0": big = try reader.decode()
                    case "_1": small = try reader.decode()
                    case "_2": float = try reader.decode()
                    case "_3": flag = try reader.decode()
                    default: break
                    }
                }
                return .wide(
                    try big ?? reader.keyNotFound("_0"), try small ?? reader.keyNotFound("_1"),
                    try float ?? reader.keyNotFound("_2"), try flag ?? reader.keyNotFound("_3")
                )
            default:
                throw reader.unknownCase(name, of: Shape.self)
            }
        }
    }
}

/// A struct with an optional, arrays and nested conforming values.
public struct Record: Codable, Equatable, Sendable, BinaryPayloadCodable {
    /// A number.
    public var id: Int
    /// A text.
    public var title: String
    /// A text that may be absent: a synthesized conformance leaves it out.
    public var note: String?
    /// Numbers in an array.
    public var scores: [Double]
    /// Nested conforming values.
    public var shapes: [Shape]

    /// A record of these members.
    public init(id: Int, title: String, note: String?, scores: [Double], shapes: [Shape]) {
        (self.id, self.title, self.note, self.scores, self.shapes) = (id, title, note, scores, shapes)
    }

    /// Writes what the `Codable` conformance writes.
    public func encode(to writer: inout BinaryPayloadWriter) throws {
        try writer.encodeObject {
            try $0.encode(id, forKey: "id")
            try $0.encode(title, forKey: "title")
            try $0.encodeIfPresent(note, forKey: "note")
            try $0.encode(scores, forKey: "scores")
            try $0.encode(shapes, forKey: "shapes")
        }
    }

    /// Reads what the `Codable` conformance writes.
    public init(from reader: inout BinaryPayloadReader) throws {
        var id: Int?, title: String?, note: String?, scores: [Double]?, shapes: [Shape]?
        try reader.decodeObject { key, reader in
            switch key {
            case "id": id = try reader.decode()
            case "title": title = try reader.decode()
            case "note": note = try reader.decode(String?.self)
            case "scores": scores = try reader.decode()
            case "shapes": shapes = try reader.decode()
            default: break
            }
        }
        self.init(
            id: try id ?? reader.keyNotFound("id"), title: try title ?? reader.keyNotFound("title"), note: note,
            scores: try scores ?? reader.keyNotFound("scores"), shapes: try shapes ?? reader.keyNotFound("shapes")
        )
    }
}

/// A recursive value: containers inside containers, a nil member, then a dictionary.
public indirect enum Tree: Codable, Equatable, Sendable, BinaryPayloadCodable {
    case leaf(label: String, depth: Int8, share: Double?, marks: [Bool], big: UInt64)
    case node([Tree], weights: [String: Int])

    /// Writes what the `Codable` conformance writes.
    public func encode(to writer: inout BinaryPayloadWriter) throws {
        switch self {
        case let .leaf(label, depth, share, marks, big):
            try writer.encodeCase("leaf") {
                try $0.encode(label, forKey: "label")
                try $0.encode(depth, forKey: "depth")
                try $0.encodeIfPresent(share, forKey: "share")
                try $0.encode(marks, forKey: "marks")
                try $0.encode(big, forKey: "big")
            }
        case let .node(children, weights):
            try writer.encodeCase("node") {
                try $0.encode(children, forKey: "_0")
                try $0.encode(weights, forKey: "weights")
            }
        }
    }

    /// Reads what the `Codable` conformance writes.
    public init(from reader: inout BinaryPayloadReader) throws {
        self = try reader.decodeCase { name, reader in
            switch name {
            case "leaf":
                var label: String?, depth: Int8?, share: Double?, marks: [Bool]?, big: UInt64?
                try reader.decodeObject { key, reader in
                    switch key {
                    case "label": label = try reader.decode()
                    case "depth": depth = try reader.decode()
                    case "share": share = try reader.decode(Double?.self)
                    case "marks": marks = try reader.decode()
                    case "big": big = try reader.decode()
                    default: break
                    }
                }
                return .leaf(
                    label: try label ?? reader.keyNotFound("label"), depth: try depth ?? reader.keyNotFound("depth"),
                    share: share, marks: try marks ?? reader.keyNotFound("marks"), big: try big ?? reader.keyNotFound("big"))
            case "node":
                var children: [Tree]?, weights: [String: Int]?
                try reader.decodeObject { key, reader in
                    switch key {
                    case "_0": children = try reader.decode()
                    case "weights": weights = try reader.decode()
                    default: break
                    }
                }
                return .node(try children ?? reader.keyNotFound("_0"), weights: try weights ?? reader.keyNotFound("weights"))
            default: throw reader.unknownCase(name, of: Self.self)
            }
        }
    }
}

/// The values the tests and the release check compare with `Codable`.
public enum HandWrittenFixtures {
    /// A value of each case, some at the edges of their types.
    public static let shapes: [Shape] = [
        .empty, .point(-7), .point(.max), .labelled(name: "café ☕️", ratio: 0.1), .labelled(name: "", ratio: -1e300),
        .mixed([], count: nil, tags: [:]), .mixed(["a", "b"], count: 3, tags: ["x": 1, "y": -2, "z": 3]),
        .mixed(["a"], count: nil, tags: ["after a nil member": 1]),
        .wide(.max, .min, 0.1, true), .wide(0, 0, -2.5, false),
    ]

    /// A struct without and with everything.
    public static let records: [Record] = [
        Record(id: 1, title: "one", note: nil, scores: [], shapes: []),
        Record(id: -42, title: String(repeating: "long ", count: 40), note: "kept", scores: [1, 2.5, -0.0], shapes: shapes),
    ]

    /// Trees from a lone leaf to containers three deep, with nil members before dictionaries.
    public static let trees: [Tree] = [
        .leaf(label: "alone", depth: 0, share: nil, marks: [], big: 0),
        .node([.leaf(label: "é", depth: -3, share: 0.5, marks: [true], big: .max)], weights: ["a": 1]),
        // What the first release-built fuzz run found: containers that wrote through a pointer to the writer lost
        // its bytes after a nil optional member (2026-11-25).
        .node([.leaf(label: "é", depth: -3, share: nil, marks: [true], big: .max)], weights: ["a": 123]),
        .node([.leaf(label: "nil first", depth: 1, share: nil, marks: [false, true], big: 7), .node([], weights: [:])], weights: ["b": 2, "c": 3]),
        .node([.node([.leaf(label: "deep", depth: 9, share: nil, marks: [], big: 1 << 63)], weights: ["d": 4])], weights: [:]),
    ]
}

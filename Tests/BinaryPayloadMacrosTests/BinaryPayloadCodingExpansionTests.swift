import BinaryPayloadMacrosPlugin
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// What `@BinaryPayloadCoding` expands to, and the types it refuses with an error rather than write other bytes
/// than their `Codable` conformance.
@Suite("@BinaryPayloadCoding's expansion and refusals")
struct BinaryPayloadCodingExpansionTests {
    private let macros = ["BinaryPayloadCoding": MacroSpec(type: BinaryPayloadCodingMacro.self, conformances: ["BinaryPayloadEncodable", "BinaryPayloadDecodable"])]

    private func expand(_ source: String, to expanded: String, diagnostics: [DiagnosticSpec] = [], sourceLocation: SourceLocation = #_sourceLocation) {
        assertMacroExpansion(source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: macros) { failure in
            Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
        }
    }

    @Test("an enum's cases are written and read by name, with their values by label or position")
    func enumExpansion() {
        expand(
            """
            @BinaryPayloadCoding
            public enum Mutation: Codable {
                case setRepos([String], page: Int?)
                case clear
            }
            """,
            to: """
            public enum Mutation: Codable {
                case setRepos([String], page: Int?)
                case clear
            }

            extension Mutation: BinaryPayloadKit.BinaryPayloadEncodable, BinaryPayloadKit.BinaryPayloadDecodable {
                public func encode(to writer: inout BinaryPayloadKit.BinaryPayloadWriter) throws {
                    if try BinaryPayloadMacros.BinaryPayloadCodingSupport.encodeRawValue(of: self, to: &writer) {
                        return
                    }
                    switch self {
                    case .setRepos(let __macro_local_2_0fMu_, page: let __macro_local_4pagefMu_):
                        try writer.encodeCase("setRepos") { values in
                            try BinaryPayloadMacros.BinaryPayloadCodingSupport.encode(__macro_local_2_0fMu_, forKey: "_0", into: &values)
                            try BinaryPayloadMacros.BinaryPayloadCodingSupport.encode(__macro_local_4pagefMu_, forKey: "page", into: &values)
                        }
                    case .clear:
                        writer.encodeCase("clear") { _ in
                        }
                    }
                }

                public init(from reader: inout BinaryPayloadKit.BinaryPayloadReader) throws {
                    if let value = try BinaryPayloadMacros.BinaryPayloadCodingSupport.decodeRawValue(of: Self.self, from: &reader) {
                        self = value
                        return
                    }
                    self = try reader.decodeCase { (name, reader) -> Self in
                        switch name {
                        case "setRepos":
                            var __macro_local_2_0fMu0_: ([String])? = nil
                            var __macro_local_4pagefMu0_: (Int?)? = nil
                            try reader.decodeObject { key, reader in
                                switch key {
                                case "_0":
                                    try BinaryPayloadMacros.BinaryPayloadCodingSupport.read(&__macro_local_2_0fMu0_, from: &reader)
                                case "page":
                                    try BinaryPayloadMacros.BinaryPayloadCodingSupport.read(&__macro_local_4pagefMu0_, from: &reader)
                                default:
                                    break
                                }
                            }
                            return .setRepos(try BinaryPayloadMacros.BinaryPayloadCodingSupport.value(__macro_local_2_0fMu0_, forKey: "_0", in: reader), page: try BinaryPayloadMacros.BinaryPayloadCodingSupport.value(__macro_local_4pagefMu0_, forKey: "page", in: reader))
                        case "clear":
                            try reader.decodeObject { _, _ in
                            }
                            return .clear
                        default:
                            throw reader.unknownCase(name, of: Self.self)
                        }
                    }
                }
            }
            """
        )
    }

    @Test("a struct's stored properties are written in order and read by key, their types left to the compiler")
    func structExpansion() {
        expand(
            """
            @BinaryPayloadCoding
            struct State: Codable {
                var query = ""
                let id: Int
                var total: Int { 0 }
            }
            """,
            to: """
            struct State: Codable {
                var query = ""
                let id: Int
                var total: Int { 0 }
            }

            extension State: BinaryPayloadKit.BinaryPayloadEncodable, BinaryPayloadKit.BinaryPayloadDecodable {
                func encode(to writer: inout BinaryPayloadKit.BinaryPayloadWriter) throws {
                    if try BinaryPayloadMacros.BinaryPayloadCodingSupport.encodeRawValue(of: self, to: &writer) {
                        return
                    }
                    try writer.encodeObject { members in
                        try BinaryPayloadMacros.BinaryPayloadCodingSupport.encode(self.query, forKey: "query", into: &members)
                        try BinaryPayloadMacros.BinaryPayloadCodingSupport.encode(self.id, forKey: "id", into: &members)
                    }
                }

                init(from reader: inout BinaryPayloadKit.BinaryPayloadReader) throws {
                    if let value = try BinaryPayloadMacros.BinaryPayloadCodingSupport.decodeRawValue(of: Self.self, from: &reader) {
                        self = value
                        return
                    }
                    var __macro_local_5queryfMu_ = BinaryPayloadMacros.BinaryPayloadCodingSupport.absent { (value: Self) in
                        value.query
                    }
                    var __macro_local_2idfMu_ = BinaryPayloadMacros.BinaryPayloadCodingSupport.absent { (value: Self) in
                        value.id
                    }
                    try reader.decodeObject { key, reader in
                        switch key {
                        case "query":
                            try BinaryPayloadMacros.BinaryPayloadCodingSupport.read(&__macro_local_5queryfMu_, from: &reader)
                        case "id":
                            try BinaryPayloadMacros.BinaryPayloadCodingSupport.read(&__macro_local_2idfMu_, from: &reader)
                        default:
                            break
                        }
                    }
                    self.query = try BinaryPayloadMacros.BinaryPayloadCodingSupport.value(__macro_local_5queryfMu_, forKey: "query", in: reader)
                    self.id = try BinaryPayloadMacros.BinaryPayloadCodingSupport.value(__macro_local_2idfMu_, forKey: "id", in: reader)
                }
            }
            """
        )
    }

    @Test("a wrapped property's storage is written and read under the property's name; @MainActor wraps nothing")
    func wrappedPropertyExpansion() {
        expand(
            """
            @BinaryPayloadCoding
            struct Alert: RawRepresentable, Codable {
                @Pulse var rawValue: String
                @MainActor var shown = false
                let version = 1
            }
            """,
            to: """
            struct Alert: RawRepresentable, Codable {
                @Pulse var rawValue: String
                @MainActor var shown = false
                let version = 1
            }

            extension Alert: BinaryPayloadKit.BinaryPayloadEncodable, BinaryPayloadKit.BinaryPayloadDecodable {
                func encode(to writer: inout BinaryPayloadKit.BinaryPayloadWriter) throws {
                    if try BinaryPayloadMacros.BinaryPayloadCodingSupport.encodeRawValue(of: self, to: &writer) {
                        return
                    }
                    try writer.encodeObject { members in
                        try BinaryPayloadMacros.BinaryPayloadCodingSupport.encode(self._rawValue, forKey: "rawValue", into: &members)
                        try BinaryPayloadMacros.BinaryPayloadCodingSupport.encode(self.shown, forKey: "shown", into: &members)
                        try BinaryPayloadMacros.BinaryPayloadCodingSupport.encode(self.version, forKey: "version", into: &members)
                    }
                }

                init(from reader: inout BinaryPayloadKit.BinaryPayloadReader) throws {
                    if let value = try BinaryPayloadMacros.BinaryPayloadCodingSupport.decodeRawValue(of: Self.self, from: &reader) {
                        self._rawValue = value._rawValue
                        self.shown = value.shown
                        return
                    }
                    var __macro_local_9_rawValuefMu_ = BinaryPayloadMacros.BinaryPayloadCodingSupport.absent { (value: Self) in
                        value._rawValue
                    }
                    var __macro_local_5shownfMu_ = BinaryPayloadMacros.BinaryPayloadCodingSupport.absent { (value: Self) in
                        value.shown
                    }
                    try reader.decodeObject { key, reader in
                        switch key {
                        case "rawValue":
                            try BinaryPayloadMacros.BinaryPayloadCodingSupport.read(&__macro_local_9_rawValuefMu_, from: &reader)
                        case "shown":
                            try BinaryPayloadMacros.BinaryPayloadCodingSupport.read(&__macro_local_5shownfMu_, from: &reader)
                        default:
                            break
                        }
                    }
                    self._rawValue = try BinaryPayloadMacros.BinaryPayloadCodingSupport.value(__macro_local_9_rawValuefMu_, forKey: "rawValue", in: reader)
                    self.shown = try BinaryPayloadMacros.BinaryPayloadCodingSupport.value(__macro_local_5shownfMu_, forKey: "shown", in: reader)
                }
            }
            """
        )
    }

    @Test("a generic type conforms where its type parameters do")
    func genericExpansion() {
        expand(
            """
            @BinaryPayloadCoding
            enum Loadable<Value: Codable, Failure: Codable>: Codable {
                case loaded(Value)
                case failed(Failure)
            }
            """,
            to: """
            enum Loadable<Value: Codable, Failure: Codable>: Codable {
                case loaded(Value)
                case failed(Failure)
            }

            extension Loadable: BinaryPayloadKit.BinaryPayloadEncodable, BinaryPayloadKit.BinaryPayloadDecodable where Value: BinaryPayloadKit.BinaryPayloadEncodable & BinaryPayloadKit.BinaryPayloadDecodable, Failure: BinaryPayloadKit.BinaryPayloadEncodable & BinaryPayloadKit.BinaryPayloadDecodable {
                func encode(to writer: inout BinaryPayloadKit.BinaryPayloadWriter) throws {
                    if try BinaryPayloadMacros.BinaryPayloadCodingSupport.encodeRawValue(of: self, to: &writer) {
                        return
                    }
                    switch self {
                    case .loaded(let __macro_local_2_0fMu_):
                        try writer.encodeCase("loaded") { values in
                            try BinaryPayloadMacros.BinaryPayloadCodingSupport.encode(__macro_local_2_0fMu_, forKey: "_0", into: &values)
                        }
                    case .failed(let __macro_local_2_0fMu0_):
                        try writer.encodeCase("failed") { values in
                            try BinaryPayloadMacros.BinaryPayloadCodingSupport.encode(__macro_local_2_0fMu0_, forKey: "_0", into: &values)
                        }
                    }
                }

                init(from reader: inout BinaryPayloadKit.BinaryPayloadReader) throws {
                    if let value = try BinaryPayloadMacros.BinaryPayloadCodingSupport.decodeRawValue(of: Self.self, from: &reader) {
                        self = value
                        return
                    }
                    self = try reader.decodeCase { (name, reader) -> Self in
                        switch name {
                        case "loaded":
                            var __macro_local_2_0fMu1_: (Value)? = nil
                            try reader.decodeObject { key, reader in
                                switch key {
                                case "_0":
                                    try BinaryPayloadMacros.BinaryPayloadCodingSupport.read(&__macro_local_2_0fMu1_, from: &reader)
                                default:
                                    break
                                }
                            }
                            return .loaded(try BinaryPayloadMacros.BinaryPayloadCodingSupport.value(__macro_local_2_0fMu1_, forKey: "_0", in: reader))
                        case "failed":
                            var __macro_local_2_0fMu2_: (Failure)? = nil
                            try reader.decodeObject { key, reader in
                                switch key {
                                case "_0":
                                    try BinaryPayloadMacros.BinaryPayloadCodingSupport.read(&__macro_local_2_0fMu2_, from: &reader)
                                default:
                                    break
                                }
                            }
                            return .failed(try BinaryPayloadMacros.BinaryPayloadCodingSupport.value(__macro_local_2_0fMu2_, forKey: "_0", in: reader))
                        default:
                            throw reader.unknownCase(name, of: Self.self)
                        }
                    }
                }
            }
            """
        )
    }

    @Test("coding keys rename a case and its values; a value they leave out is bound to _ and not passed back")
    func codingKeysExpansion() {
        expand(
            """
            @BinaryPayloadCoding
            enum Mutation: Codable {
                case setRepos([String], source: String = "api")
                enum CodingKeys: String, CodingKey {
                    case setRepos = "repos"
                }
                enum SetReposCodingKeys: String, CodingKey {
                    case _0 = "items"
                }
            }
            """,
            to: """
            enum Mutation: Codable {
                case setRepos([String], source: String = "api")
                enum CodingKeys: String, CodingKey {
                    case setRepos = "repos"
                }
                enum SetReposCodingKeys: String, CodingKey {
                    case _0 = "items"
                }
            }

            extension Mutation: BinaryPayloadKit.BinaryPayloadEncodable, BinaryPayloadKit.BinaryPayloadDecodable {
                func encode(to writer: inout BinaryPayloadKit.BinaryPayloadWriter) throws {
                    if try BinaryPayloadMacros.BinaryPayloadCodingSupport.encodeRawValue(of: self, to: &writer) {
                        return
                    }
                    switch self {
                    case .setRepos(let __macro_local_2_0fMu_, _):
                        try writer.encodeCase("repos") { values in
                            try BinaryPayloadMacros.BinaryPayloadCodingSupport.encode(__macro_local_2_0fMu_, forKey: "items", into: &values)
                        }
                    }
                }

                init(from reader: inout BinaryPayloadKit.BinaryPayloadReader) throws {
                    if let value = try BinaryPayloadMacros.BinaryPayloadCodingSupport.decodeRawValue(of: Self.self, from: &reader) {
                        self = value
                        return
                    }
                    self = try reader.decodeCase { (name, reader) -> Self in
                        switch name {
                        case "repos":
                            var __macro_local_2_0fMu0_: ([String])? = nil
                            try reader.decodeObject { key, reader in
                                switch key {
                                case "items":
                                    try BinaryPayloadMacros.BinaryPayloadCodingSupport.read(&__macro_local_2_0fMu0_, from: &reader)
                                default:
                                    break
                                }
                            }
                            return .setRepos(try BinaryPayloadMacros.BinaryPayloadCodingSupport.value(__macro_local_2_0fMu0_, forKey: "items", in: reader))
                        default:
                            throw reader.unknownCase(name, of: Self.self)
                        }
                    }
                }
            }
            """
        )
    }

    /// A declaration the macro refuses, the error it must give, and where.
    struct Refusal: CustomTestStringConvertible, Sendable {
        let declaration: String
        let message: String
        let line: Int
        let column: Int
        var testDescription: String { message }
    }

    static let refusals: [Refusal] = [
        Refusal(declaration: "class Model: Codable {\n    var count = 0\n}", message: "@BinaryPayloadCoding applies to a struct or an enum.", line: 1, column: 1),
        Refusal(declaration: "struct Tuple<each Element>: Codable {\n    var count: Int\n}", message: "@BinaryPayloadCoding cannot write a type whose parameter is 'each Element'; conform it by hand.", line: 1, column: 14),
        Refusal(declaration: "struct Renamed: Codable {\n    var count: Int\n    enum CodingKeys: String, CodingKey {\n        case total = \"n\"\n    }\n}", message: "@BinaryPayloadCoding: CodingKeys names 'total', which is not a stored property.", line: 4, column: 14),
        Refusal(declaration: "enum Mode: Codable {\n    case on, off\n    enum CodingKeys: String, CodingKey {\n        case on\n    }\n}", message: "@BinaryPayloadCoding cannot write case 'off', which CodingKeys leaves out and synthesized Codable cannot encode; add it or conform the type by hand.", line: 2, column: 14),
        Refusal(declaration: "enum Step: Codable {\n    case move(from: Int)\n    enum MoveCodingKeys: CodingKey {\n        case to\n    }\n}", message: "@BinaryPayloadCoding: MoveCodingKeys names 'to', which is not a value of case 'move'.", line: 4, column: 14),
        Refusal(declaration: "struct Escaped: Codable {\n    var count: Int\n    enum CodingKeys: String, CodingKey {\n        case count = \"a\\nb\"\n    }\n}", message: "@BinaryPayloadCoding needs each key of CodingKeys as a plain string literal.", line: 4, column: 22),
        Refusal(declaration: "struct Aliased: Codable {\n    var count: Int\n    typealias CodingKeys = OtherKeys\n}", message: "@BinaryPayloadCoding cannot see the keys of a type alias; declare CodingKeys as an enum here or conform the type by hand.", line: 3, column: 15),
        Refusal(declaration: "struct Keyed: Codable {\n    var count: Int\n    struct CodingKeys: CodingKey {\n        var stringValue: String\n    }\n}", message: "@BinaryPayloadCoding cannot see the keys of a struct; declare CodingKeys as an enum here or conform the type by hand.", line: 3, column: 12),
        Refusal(declaration: "struct Spelled: Codable {\n    var count: Int\n    enum CodingKeys: CodingKey {\n        case count\n        var stringValue: String { \"c\" }\n    }\n}", message: "@BinaryPayloadCoding reads the keys of CodingKeys from its cases alone, and it declares more; conform the type by hand.", line: 5, column: 9),
        Refusal(declaration: "struct Typed: Codable {\n    var count: Int\n    enum CodingKeys: KeyName, CodingKey {\n        case count\n    }\n}", message: "@BinaryPayloadCoding cannot tell which keys CodingKeys writes with raw type 'KeyName'; use String, or conform the type by hand.", line: 3, column: 22),
        Refusal(declaration: "struct Custom: Codable {\n    var count: Int\n    func encode(to encoder: any Encoder) throws {}\n}", message: "@BinaryPayloadCoding writes what synthesized Codable writes, and this type encodes itself; conform it by hand.", line: 3, column: 10),
        Refusal(declaration: "enum Custom: Codable {\n    case one\n    init(from decoder: Decoder) throws { self = .one }\n}", message: "@BinaryPayloadCoding reads what synthesized Codable reads, and this type decodes itself; conform it by hand.", line: 3, column: 5),
        Refusal(declaration: "struct Cached: Codable {\n    lazy var total: Int = 0\n}", message: "@BinaryPayloadCoding does not write a lazy property, which synthesized Codable does not either; make it computed or conform the type by hand.", line: 2, column: 10),
        Refusal(declaration: "struct Platform: Codable {\n    #if DEBUG\n    @Traced\n    #endif\n    var level: Int\n}", message: "@BinaryPayloadCoding cannot see which attributes an #if keeps; conform the type by hand.", line: 2, column: 5),
        Refusal(declaration: "struct Pair: Codable {\n    var (a, b): (Int, Int)\n}", message: "@BinaryPayloadCoding needs one name per stored property, not a pattern.", line: 2, column: 9),
        Refusal(declaration: "struct Platform: Codable {\n    #if os(Linux)\n    var linux: Bool\n    #endif\n}", message: "@BinaryPayloadCoding cannot see which members an #if keeps; conform the type by hand.", line: 2, column: 5),
        Refusal(declaration: "enum Never2: Codable {}", message: "@BinaryPayloadCoding needs an enum with at least one case: a value of this one cannot be logged.", line: 1, column: 6),
    ]

    @Test("what synthesized Codable would not write as the macro does is refused, with an error at its place", arguments: refusals)
    func refusesWithAnError(_ refusal: Refusal) {
        expand(
            "@BinaryPayloadCoding\n" + refusal.declaration,
            to: refusal.declaration,
            diagnostics: [DiagnosticSpec(message: refusal.message, line: refusal.line + 1, column: refusal.column)]
        )
    }
}

import SwiftSyntax
import SwiftSyntaxMacros

/// The conformance of an enum: each case as an object of one member, the case name, whose value is an object of
/// the associated values; or, for an enum with raw values, the raw value.
struct EnumConformance {
    /// A case and its associated values.
    struct Case {
        let name: String
        let values: [CodedValue]
        /// Each value's type, as written.
        let types: [TypeSyntax]
        /// Each value's label, nil where it has none.
        let labels: [String?]
    }

    let cases: [Case]
    /// Whether the enum has raw values, which synthesized `Codable` writes in place of the case.
    let hasRawValues: Bool

    /// The raw-value types an enum's first inherited type can be, when its cases write no raw values.
    private static let rawValueTypes: Set<String> = [
        "String", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Double", "Float",
    ]

    init(_ declaration: EnumDeclSyntax) throws(CodingRefusal) {
        var cases: [Case] = []
        var anyRawValue = false
        for member in declaration.memberBlock.members {
            if let conditional = member.decl.as(IfConfigDeclSyntax.self) {
                throw CodingRefusal("@BinaryPayloadCoding cannot see which cases an #if keeps; conform the type by hand.", at: conditional.clauses.first?.poundKeyword ?? conditional.poundEndif)
            }
            guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in caseDecl.elements {
                if element.rawValue != nil { anyRawValue = true }
                let parameters = element.parameterClause?.parameters.map { $0 } ?? []
                let labels = parameters.map { $0.firstName.map(\.unescapedName).flatMap { $0 == "_" ? nil : $0 } }
                let values = labels.enumerated().map { index, label in CodedValue(key: label ?? "_\(index)") }
                cases.append(Case(name: element.name.unescapedName, values: values, types: parameters.map { $0.type.trimmed }, labels: labels))
            }
        }
        guard !cases.isEmpty else {
            throw CodingRefusal("@BinaryPayloadCoding needs an enum with at least one case: a value of this one cannot be logged.", at: declaration.name)
        }
        let firstInherited = declaration.inheritanceClause?.inheritedTypes.first?.type.trimmedDescription
        self.cases = cases
        hasRawValues = anyRawValue || firstInherited.map(Self.rawValueTypes.contains) == true
    }

    /// `encode(to:)` and `init(from:)`, declared with `access` (`public ` or empty).
    func members(access: String, in context: some MacroExpansionContext) -> [DeclSyntax] {
        if hasRawValues {
            return [
                "\(raw: access)func encode(to writer: inout BinaryPayloadKit.BinaryPayloadWriter) throws { try self.rawValue.encode(to: &writer) }",
                """
                \(raw: access)init(from reader: inout BinaryPayloadKit.BinaryPayloadReader) throws {
                    let rawValue = try reader.decode() as RawValue
                    guard let value = Self(rawValue: rawValue) else {
                        throw DecodingError.dataCorrupted(DecodingError.Context(
                            codingPath: [], debugDescription: "Cannot initialize \\(Self.self) from invalid \\(RawValue.self) value \\(rawValue)"))
                    }
                    self = value
                }
                """,
            ]
        }
        let encodeCases = cases.map { coded -> String in
            guard !coded.values.isEmpty else {
                return "case .\(coded.name): writer.encodeCase(\"\(coded.name)\") { _ in }"
            }
            let locals = coded.values.map { context.makeUniqueName($0.key).text }
            let bindings = zip(coded.labels, locals).map { label, local in label.map { "\($0): let \(local)" } ?? "let \(local)" }
            let statements = zip(coded.values, locals).map { value, local in value.encodeStatement(local, into: "values") }
            return """
                case .\(coded.name)(\(bindings.joined(separator: ", "))):
                    try writer.encodeCase("\(coded.name)") { values in
                        \(statements.joined(separator: "\n"))
                    }
                """
        }
        let decodeCases = cases.map { coded -> String in
            guard !coded.values.isEmpty else {
                return """
                    case "\(coded.name)":
                        try reader.decodeObject { _, _ in }
                        return .\(coded.name)
                    """
            }
            let locals = coded.values.map { context.makeUniqueName($0.key).text }
            let declarations = zip(coded.types, locals).map { type, local in "var \(local): (\(type))? = nil" }
            let reads = zip(coded.values, locals).map { value, local in value.readStatement(into: local) }
            let arguments = zip(zip(coded.values, coded.labels), locals).map { valueAndLabel, local in
                let (value, label) = valueAndLabel
                return (label.map { "\($0): " } ?? "") + value.valueExpression(of: local)
            }
            return """
                case "\(coded.name)":
                    \(declarations.joined(separator: "\n"))
                    try reader.decodeObject { key, reader in
                        switch key {
                        \(reads.joined(separator: "\n"))
                        default: break
                        }
                    }
                    return .\(coded.name)(\(arguments.joined(separator: ", ")))
                """
        }
        return [
            """
            \(raw: access)func encode(to writer: inout BinaryPayloadKit.BinaryPayloadWriter) throws {
                switch self {
                \(raw: encodeCases.joined(separator: "\n"))
                }
            }
            """,
            """
            \(raw: access)init(from reader: inout BinaryPayloadKit.BinaryPayloadReader) throws {
                self = try reader.decodeCase { (name, reader) -> Self in
                    switch name {
                    \(raw: decodeCases.joined(separator: "\n"))
                    default:
                        throw reader.unknownCase(name, of: Self.self)
                    }
                }
            }
            """,
        ]
    }
}

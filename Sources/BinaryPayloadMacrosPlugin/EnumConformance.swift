import SwiftSyntax
import SwiftSyntaxMacros

/// The conformance of an enum: each case as an object of one member, the case name, whose value is an object of
/// the associated values; the names and values' keys those of the enum's own `CodingKeys` and `<Case>CodingKeys`
/// where it declares them.
struct EnumConformance {
    /// A case and its associated values.
    struct Case {
        let name: String
        /// The key the case is written under.
        let key: String
        /// Its associated values, in order.
        let values: [Value]
        /// Whether it declares associated values (so reading it calls `.name(…)`, even with none written).
        var hasValues: Bool { !values.isEmpty }
        /// The values written and read, with how each is written.
        var written: [(value: Value, coded: CodedValue)] { values.compactMap { value in value.coded.map { (value, $0) } } }
    }

    /// An associated value: its label (nil where it has none), its type as written, and how it is written; nil
    /// when the case's own coding keys leave it out, so that it keeps its default.
    struct Value {
        let label: String?
        let type: TypeSyntax
        let coded: CodedValue?
    }

    let cases: [Case]
    init(_ declaration: EnumDeclSyntax) throws(CodingRefusal) {
        let caseKeys = try DeclaredKeys.find("CodingKeys", in: declaration.memberBlock)
        var cases: [Case] = []
        for member in declaration.memberBlock.members {
            if let conditional = member.decl.as(IfConfigDeclSyntax.self) {
                throw CodingRefusal("@BinaryPayloadCoding cannot see which cases an #if keeps; conform the type by hand.", at: conditional.clauses.first?.poundKeyword ?? conditional.poundEndif)
            }
            guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in caseDecl.elements {
                let name = element.name.unescapedName
                let parameters = element.parameterClause?.parameters.map { $0 } ?? []
                let labels = parameters.map { $0.firstName.map(\.unescapedName).flatMap { $0 == "_" ? nil : $0 } }
                let members = labels.enumerated().map { index, label in label ?? "_\(index)" }
                // A case's own keys rename its values; one they leave out is neither written nor read (it needs a default).
                let valueKeys = try DeclaredKeys.find(Self.valueKeysName(of: name), in: declaration.memberBlock)
                try valueKeys?.checkEachNames(members, "a value of case '\(name)'")
                guard let key = caseKeys.map({ $0.key(for: name) }) ?? name else {
                    throw CodingRefusal("@BinaryPayloadCoding cannot write case '\(name)', which CodingKeys leaves out and synthesized Codable cannot encode; add it or conform the type by hand.", at: element.name)
                }
                let values = zip(zip(labels, parameters), members).map { labelAndParameter, member in
                    let key = valueKeys.map { $0.key(for: member) } ?? member
                    return Value(label: labelAndParameter.0, type: labelAndParameter.1.type.trimmed, coded: key.map { CodedValue(name: member, key: $0) })
                }
                cases.append(Case(name: name, key: key, values: values))
            }
        }
        try caseKeys?.checkEachNames(cases.map(\.name), "a case")
        guard !cases.isEmpty else {
            throw CodingRefusal("@BinaryPayloadCoding needs an enum with at least one case: a value of this one cannot be logged.", at: declaration.name)
        }
        self.cases = cases
    }

    /// The name of the coding keys that synthesized `Codable` looks for to rename `caseName`'s values: the case
    /// name with its first letter capitalized (an ASCII one only, as the compiler does: `überCodingKeys`), then
    /// `CodingKeys`.
    static func valueKeysName(of caseName: String) -> String {
        guard let first = caseName.unicodeScalars.first, ("a"..."z").contains(first) else { return caseName + "CodingKeys" }
        return caseName.prefix(1).uppercased() + caseName.dropFirst() + "CodingKeys"
    }

    /// The bodies of `encode(to:)` and `init(from:)`.
    func bodies(in context: some MacroExpansionContext) -> ConformanceBodies {
        let encodeCases = cases.map { enumCase -> String in
            let key = CodedValue.quoted(enumCase.key)
            guard !enumCase.written.isEmpty else {
                return "case .\(enumCase.name): writer.encodeCase(\(key)) { _ in }"
            }
            // A value the case's keys leave out is bound to `_`.
            let locals = enumCase.values.map { $0.coded.map { context.makeUniqueName($0.name).text } }
            let bindings = zip(enumCase.values, locals).map { value, local in
                guard let local else { return "_" }
                return value.label.map { "\($0): let \(local)" } ?? "let \(local)"
            }
            let statements = zip(enumCase.values, locals).compactMap { value, local in
                local.flatMap { local in value.coded?.encodeStatement(local, into: "values") }
            }
            return """
                case .\(enumCase.name)(\(bindings.joined(separator: ", "))):
                    try writer.encodeCase(\(key)) { values in
                        \(statements.joined(separator: "\n"))
                    }
                """
        }
        let decodeCases = cases.map { enumCase -> String in
            let key = CodedValue.quoted(enumCase.key)
            let written = enumCase.written
            guard !written.isEmpty else {
                return """
                    case \(key):
                        try reader.decodeObject { _, _ in }
                        return .\(enumCase.name)\(enumCase.hasValues ? "()" : "")
                    """
            }
            let locals = written.map { context.makeUniqueName($0.coded.name).text }
            let declarations = zip(written, locals).map { value, local in "var \(local): (\(value.value.type))? = nil" }
            let arguments = zip(written, locals).map { value, local in
                (value.value.label.map { "\($0): " } ?? "") + value.coded.valueExpression(of: local)
            }
            return """
                case \(key):
                \(CodedValue.readObject(written.map(\.coded), into: locals, declaring: declarations))
                return .\(enumCase.name)(\(arguments.joined(separator: ", ")))
                """
        }
        return (
            """
            switch self {
            \(encodeCases.joined(separator: "\n"))
            }
            """,
            """
            self = try reader.decodeCase { (name, reader) -> Self in
            switch name {
            \(decodeCases.joined(separator: "\n"))
            default:
            throw reader.unknownCase(name, of: Self.self)
            }
            }
            """,
            "self = value"
        )
    }
}

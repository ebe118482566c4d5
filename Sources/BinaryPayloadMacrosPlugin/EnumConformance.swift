import SwiftSyntax
import SwiftSyntaxMacros

/// The conformance of an enum: each case as an object of one member, the case name, whose value is an object of
/// the associated values.
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
    init(_ declaration: EnumDeclSyntax) throws(CodingRefusal) {
        var cases: [Case] = []
        for member in declaration.memberBlock.members {
            if let conditional = member.decl.as(IfConfigDeclSyntax.self) {
                throw CodingRefusal("@BinaryPayloadCoding cannot see which cases an #if keeps; conform the type by hand.", at: conditional.clauses.first?.poundKeyword ?? conditional.poundEndif)
            }
            guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in caseDecl.elements {
                let parameters = element.parameterClause?.parameters.map { $0 } ?? []
                let labels = parameters.map { $0.firstName.map(\.unescapedName).flatMap { $0 == "_" ? nil : $0 } }
                let values = labels.enumerated().map { index, label in CodedValue(key: label ?? "_\(index)") }
                cases.append(Case(name: element.name.unescapedName, values: values, types: parameters.map { $0.type.trimmed }, labels: labels))
            }
        }
        guard !cases.isEmpty else {
            throw CodingRefusal("@BinaryPayloadCoding needs an enum with at least one case: a value of this one cannot be logged.", at: declaration.name)
        }
        self.cases = cases
    }

    /// The bodies of `encode(to:)` and `init(from:)`.
    func bodies(in context: some MacroExpansionContext) -> (encode: String, decode: String) {
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
            let arguments = zip(zip(coded.values, coded.labels), locals).map { valueAndLabel, local in
                let (value, label) = valueAndLabel
                return (label.map { "\($0): " } ?? "") + value.valueExpression(of: local)
            }
            return """
                case "\(coded.name)":
                \(CodedValue.readObject(coded.values, into: locals, declaring: declarations))
                return .\(coded.name)(\(arguments.joined(separator: ", ")))
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
            """
        )
    }
}

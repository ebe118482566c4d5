import SwiftSyntax
import SwiftSyntaxMacros

/// The conformance of a struct: an object of its stored properties, in declaration order.
struct StructConformance {
    let properties: [CodedValue]

    /// Reads the stored properties of `members`, refusing what synthesized `Codable` would not write as a plain
    /// member.
    init(_ members: MemberBlockSyntax) throws(CodingRefusal) {
        var properties: [CodedValue] = []
        for member in members.members {
            if let conditional = member.decl.as(IfConfigDeclSyntax.self) {
                throw CodingRefusal("@BinaryPayloadCoding cannot see which members an #if keeps; conform the type by hand.", at: conditional.clauses.first?.poundKeyword ?? conditional.poundEndif)
            }
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            let modifiers = variable.modifiers.map(\.name.tokenKind)
            if modifiers.contains(.keyword(.static)) || modifiers.contains(.keyword(.class)) { continue }
            let stored = variable.bindings.filter { $0.accessorBlock.map(Self.onlyObservesChanges) ?? true }
            guard !stored.isEmpty else { continue }
            if modifiers.contains(.keyword(.lazy)) {
                throw CodingRefusal("@BinaryPayloadCoding does not write a lazy property, which synthesized Codable does not either; make it computed or conform the type by hand.", at: variable.bindingSpecifier)
            }
            // A property wrapper is a type, named as types are; the language's own attributes (`@available`) are lowercase.
            if let wrapper = variable.attributes.first(where: { $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription.first?.isUppercase ?? true }) {
                throw CodingRefusal("@BinaryPayloadCoding does not write a property wrapper's storage; conform the type by hand.", at: wrapper)
            }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            for binding in stored {
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier else {
                    throw CodingRefusal("@BinaryPayloadCoding needs one name per stored property, not a pattern.", at: binding.pattern)
                }
                properties.append(CodedValue(key: name.unescapedName, isRead: !(isLet && binding.initializer != nil)))
            }
        }
        self.properties = properties
    }

    /// Whether the accessors are only `willSet` and `didSet`, which a stored property may have.
    private static func onlyObservesChanges(_ block: AccessorBlockSyntax) -> Bool {
        guard case .accessors(let accessors) = block.accessors else { return false }
        return accessors.allSatisfy { [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind) }
    }

    /// The bodies of `encode(to:)` and `init(from:)`.
    func bodies(in context: some MacroExpansionContext) -> (encode: String, decode: String) {
        let encode = properties.isEmpty ? "writer.encodeObject { _ in }" : """
            try writer.encodeObject { members in
            \(properties.map { $0.encodeStatement("self.\($0.key)", into: "members") }.joined(separator: "\n"))
            }
            """
        let read = properties.filter(\.isRead)
        guard !read.isEmpty else { return (encode, "try reader.decodeObject { _, _ in }") }
        let locals = read.map { context.makeUniqueName($0.key).text }
        let declarations = zip(read, locals).map { value, local in
            "var \(local) = \(CodedValue.support).absent { (value: Self) in value.\(value.key) }"
        }
        let assignments = zip(read, locals).map { value, local in "self.\(value.key) = \(value.valueExpression(of: local))" }
        return (encode, CodedValue.readObject(read, into: locals, declaring: declarations) + "\n" + assignments.joined(separator: "\n"))
    }
}

import SwiftSyntax
import SwiftSyntaxMacros

/// The conformance of a struct: an object of its stored properties, in declaration order, or of those its own
/// `CodingKeys` names, in that enum's order and under its keys.
struct StructConformance {
    let properties: [CodedValue]
    /// Every stored property, coded or not.
    private let stored: [StoredProperty]

    /// Reads the stored properties of `members`, refusing what synthesized `Codable` would not write as a plain
    /// member.
    init(_ members: MemberBlockSyntax) throws(CodingRefusal) {
        var stored: [StoredProperty] = []
        for member in members.members {
            if let conditional = member.decl.as(IfConfigDeclSyntax.self) {
                throw CodingRefusal("@BinaryPayloadCoding cannot see which members an #if keeps; conform the type by hand.", at: conditional.clauses.first?.poundKeyword ?? conditional.poundEndif)
            }
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            stored += try StoredProperty.all(in: variable)
        }
        self.stored = stored
        guard let declared = try DeclaredKeys.find("CodingKeys", in: members) else {
            properties = try stored.map { property throws(CodingRefusal) in try property.coded(key: nil) }
            return
        }
        // Synthesized `Codable` writes the properties its keys name, in the keys' order; the others keep their values.
        try declared.checkEachNames(stored.map(\.name), "a stored property")
        properties = try declared.keys.map { key throws(CodingRefusal) in
            try stored.first { $0.name == key.member }!.coded(key: key.key)
        }
    }

    /// A stored property as declared, with what would stop the macro from writing it.
    private struct StoredProperty {
        let name: String
        /// What the conformance reads and assigns: the property, or a wrapped property's storage (`_name`), which
        /// synthesized `Codable` writes under the property's name.
        let storage: String
        /// A `let` with an initial value: written, never read.
        let isConstant: Bool
        /// A `lazy var`, which a value read as a whole cannot lend.
        let isLazy: Bool
        /// Why the macro cannot write it, when it is coded.
        let refusal: CodingRefusal?

        /// The stored properties `variable` declares (none for a static or computed one).
        static func all(in variable: VariableDeclSyntax) throws(CodingRefusal) -> [StoredProperty] {
            let modifiers = variable.modifiers.map(\.name.tokenKind)
            if modifiers.contains(.keyword(.static)) || modifiers.contains(.keyword(.class)) { return [] }
            let stored = variable.bindings.filter { $0.accessorBlock.map(StructConformance.onlyObservesChanges) ?? true }
            let isLazy = modifiers.contains(.keyword(.lazy))
            var refusal: CodingRefusal?
            if isLazy {
                refusal = CodingRefusal("@BinaryPayloadCoding does not write a lazy property, which synthesized Codable does not either; make it computed or conform the type by hand.", at: variable.bindingSpecifier)
            }
            // A property wrapper is a type, named as types are; the language's own attributes (`@available`) are
            // lowercase, and a global actor (`@MainActor`, `@DatabaseActor`: named so by convention) isolates a plain
            // property.
            var isWrapped = false
            for attribute in variable.attributes {
                guard let attribute = attribute.as(AttributeSyntax.self) else {
                    throw CodingRefusal("@BinaryPayloadCoding cannot see which attributes an #if keeps; conform the type by hand.", at: attribute)
                }
                let name = attribute.attributeName.trimmedDescription
                isWrapped = isWrapped || name.first?.isUppercase == true && !name.hasSuffix("Actor")
            }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            return try stored.map { binding throws(CodingRefusal) in
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier else {
                    throw CodingRefusal("@BinaryPayloadCoding needs one name per stored property, not a pattern.", at: binding.pattern)
                }
                return StoredProperty(
                    name: name.unescapedName, storage: isWrapped ? "_" + name.unescapedName : name.unescapedName,
                    isConstant: isLet && binding.initializer != nil, isLazy: isLazy, refusal: refusal)
            }
        }

        /// The property as the conformance writes it, under `key` (its name when nil), or the refusal.
        func coded(key: String?) throws(CodingRefusal) -> CodedValue {
            if let refusal { throw refusal }
            return CodedValue(name: storage, key: key ?? name, isRead: !isConstant)
        }
    }

    /// Whether the accessors are only `willSet` and `didSet`, which a stored property may have.
    fileprivate static func onlyObservesChanges(_ block: AccessorBlockSyntax) -> Bool {
        guard case .accessors(let accessors) = block.accessors else { return false }
        return accessors.allSatisfy { [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind) }
    }

    /// The bodies of `encode(to:)` and `init(from:)`.
    func bodies(in context: some MacroExpansionContext) -> ConformanceBodies {
        // A constant with an initial value is set before `init(from:)` runs, so a value read as the raw value is
        // taken property by property.
        let taken = stored.filter { !$0.isConstant && !$0.isLazy }.map { "self.\($0.storage) = value.\($0.storage)" }
        let adopt = !stored.contains(where: \.isConstant) ? "self = value" : taken.isEmpty ? "_ = value" : taken.joined(separator: "\n")
        let encode = properties.isEmpty ? "writer.encodeObject { _ in }" : """
            try writer.encodeObject { members in
            \(properties.map { $0.encodeStatement("self.\($0.name)", into: "members") }.joined(separator: "\n"))
            }
            """
        let read = properties.filter(\.isRead)
        guard !read.isEmpty else { return (encode, "try reader.decodeObject { _, _ in }", adopt) }
        let locals = read.map { context.makeUniqueName($0.name).text }
        let declarations = zip(read, locals).map { value, local in
            "var \(local) = \(CodedValue.support).absent { (value: Self) in value.\(value.name) }"
        }
        let assignments = zip(read, locals).map { value, local in "self.\(value.name) = \(value.valueExpression(of: local))" }
        return (encode, CodedValue.readObject(read, into: locals, declaring: declarations) + "\n" + assignments.joined(separator: "\n"), adopt)
    }
}

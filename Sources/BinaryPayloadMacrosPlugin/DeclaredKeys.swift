import SwiftSyntax

/// A coding-keys enum a type declares for its synthesized `Codable` (`CodingKeys`, or an enum case's
/// `<Case>CodingKeys`): the members it names, in its order, and the key each is written under, as `Codable` reads
/// them: a `String` raw value where the enum has one, the case name otherwise.
struct DeclaredKeys {
    /// One of the enum's cases: the member it names and the key written for it.
    struct Key {
        let member: String
        let key: String
        let node: EnumCaseElementSyntax
    }

    let keys: [Key]
    /// The enum's name, for the errors.
    let name: String

    /// The enum named `name` among `members`, read; nil when there is none. A type alias, struct or class by that
    /// name, whose keys the macro cannot read, is refused.
    static func find(_ name: String, in members: MemberBlockSyntax) throws(CodingRefusal) -> DeclaredKeys? {
        for member in members.members {
            if let declaration = member.decl.as(EnumDeclSyntax.self), declaration.name.text == name {
                return try DeclaredKeys(declaration)
            }
            let other: (kind: String, name: TokenSyntax)? = member.decl.as(TypeAliasDeclSyntax.self).map { ("a type alias", $0.name) }
                ?? member.decl.as(StructDeclSyntax.self).map { ("a struct", $0.name) }
                ?? member.decl.as(ClassDeclSyntax.self).map { ("a class", $0.name) }
            if let other, other.name.text == name {
                throw CodingRefusal("@BinaryPayloadCoding cannot see the keys of \(other.kind); declare \(name) as an enum here or conform the type by hand.", at: other.name)
            }
        }
        return nil
    }

    private init(_ declaration: EnumDeclSyntax) throws(CodingRefusal) {
        name = declaration.name.text
        let first = declaration.inheritanceClause?.inheritedTypes.first?.type
        let stringRaw = ["String", "Swift.String"].contains(first?.trimmedDescription ?? "")
        if let first, !stringRaw, !Self.namesItsCases(first.trimmedDescription) {
            throw CodingRefusal("@BinaryPayloadCoding cannot tell which keys \(name) writes with raw type '\(first.trimmedDescription)'; use String, or conform the type by hand.", at: first)
        }
        var keys: [Key] = []
        for member in declaration.memberBlock.members {
            guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else {
                throw CodingRefusal("@BinaryPayloadCoding reads the keys of \(name) from its cases alone, and it declares more; conform the type by hand.", at: member.decl)
            }
            for element in caseDecl.elements {
                var key = element.name.unescapedName
                if stringRaw, let rawValue = element.rawValue?.value {
                    guard let literal = rawValue.as(StringLiteralExprSyntax.self), let text = literal.plainText else {
                        throw CodingRefusal("@BinaryPayloadCoding needs each key of \(name) as a plain string literal.", at: rawValue)
                    }
                    key = text
                }
                keys.append(Key(member: element.name.unescapedName, key: key, node: element))
            }
        }
        self.keys = keys
    }

    /// Whether a coding-keys enum whose first inherited type is `type` writes its case names: one without a raw
    /// type (`CodingKey` first) or with an integer one.
    private static func namesItsCases(_ type: String) -> Bool {
        let name = type.hasPrefix("Swift.") ? String(type.dropFirst(6)) : type
        return ["CodingKey", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64"].contains(name)
    }

    /// The key written for `member`, nil when the enum leaves it out.
    func key(for member: String) -> String? { keys.first { $0.member == member }?.key }

    /// Refuses a key that names none of `members` (synthesized `Codable` would not compile), calling them `what`.
    func checkEachNames(_ members: [String], _ what: String) throws(CodingRefusal) {
        if let stray = keys.first(where: { !members.contains($0.member) }) {
            throw CodingRefusal("@BinaryPayloadCoding: \(name) names '\(stray.member)', which is not \(what).", at: stray.node.name)
        }
    }
}

extension StringLiteralExprSyntax {
    /// The literal's text when it is a single-line literal without interpolation or escapes (a key the written
    /// code can quote as it is); nil otherwise.
    var plainText: String? {
        guard openingPounds == nil, openingQuote.tokenKind == .stringQuote else { return nil }
        guard segments.count == 1, let segment = segments.first?.as(StringSegmentSyntax.self) else {
            return segments.isEmpty ? "" : nil
        }
        let text = segment.content.text
        return text.contains("\\") ? nil : text
    }
}

import SwiftSyntax

/// A value the conformance writes and reads under a key: a struct's stored property or an enum case's associated
/// value. Its type and whether it is optional are left to the compiler (`BinaryPayloadCodingSupport`'s overloads).
struct CodedValue {
    /// The member: the property's name (a wrapped property's storage, `_name`) or the value's label, or `_0`, `_1`,
    /// … for an unlabelled value.
    let name: String
    /// The key it is written under: its name, or what the type's coding keys say (``DeclaredKeys``).
    let key: String
    /// Whether the conformance reads it: a `let` with an initial value is written and never read.
    var isRead = true

    init(name: String, key: String? = nil, isRead: Bool = true) {
        self.name = name
        self.key = key ?? name
        self.isRead = isRead
    }

    /// The key as a string literal.
    var literal: String { Self.quoted(key) }

    /// `text` as a string literal: an identifier, or a plain literal of a coding-keys enum, so nothing in it needs
    /// escaping (``DeclaredKeys`` refuses a key with a backslash).
    static func quoted(_ text: String) -> String { "\"\(text)\"" }

    /// The statement that writes the value `expression` as a member of the object `members`.
    func encodeStatement(_ expression: String, into members: String) -> String {
        "try \(Self.support).encode(\(expression), forKey: \(literal), into: &\(members))"
    }

    /// The statement that reads the next value into the local `local`.
    func readStatement(into local: String) -> String {
        "case \(literal): try \(Self.support).read(&\(local), from: &reader)"
    }

    /// The statements that declare `declarations` and read an object's members into `locals`, one for each of
    /// `values`, skipping any other member: what a struct's and an enum case's readings share.
    static func readObject(_ values: [CodedValue], into locals: [String], declaring declarations: [String]) -> String {
        """
        \(declarations.joined(separator: "\n"))
        try reader.decodeObject { key, reader in
        switch key {
        \(zip(values, locals).map { value, local in value.readStatement(into: local) }.joined(separator: "\n"))
        default: break
        }
        }
        """
    }

    /// The expression for the value read into `local`, or the error for a required one that was missing.
    func valueExpression(of local: String) -> String {
        "try \(Self.support).value(\(local), forKey: \(literal), in: reader)"
    }

    /// Where the helpers the written code calls live.
    static let support = "BinaryPayloadMacros.BinaryPayloadCodingSupport"
}

extension TokenSyntax {
    /// The identifier's name without the backticks that let it spell a keyword.
    var unescapedName: String {
        let text = trimmed.text
        return text.count > 2 && text.hasPrefix("`") && text.hasSuffix("`") ? String(text.dropFirst().dropLast()) : text
    }
}

import SwiftBasicFormat
import SwiftSyntax
import SwiftSyntaxMacros

/// `@BinaryPayloadCoding`: adds `BinaryPayloadEncodable` and `BinaryPayloadDecodable` to a struct or an enum, with
/// an `encode(to:)` and an `init(from:)` that write and read what its synthesized `Codable` conformance does.
public struct BinaryPayloadCodingMacro: ExtensionMacro {
    /// The extension adding the conformances to `declaration`; throws diagnostics naming what stops it where the
    /// type's `Codable` is not the synthesized one.
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        do {
            let bodies = try conformance(of: declaration, in: context)
            let access = declaration.modifiers.contains { [.keyword(.public), .keyword(.open)].contains($0.name.tokenKind) } ? "public "
                : declaration.modifiers.contains { $0.name.tokenKind == .keyword(.package) } ? "package " : ""
            let adopted = (protocols.isEmpty ? "" : ": " + protocols.map { "BinaryPayloadKit.\($0.trimmedDescription)" }.joined(separator: ", "))
                + (try requirements(of: declaration).map { " where " + $0 } ?? "")
            // A type with raw values, however its declaration spells them (`enum Kind: Swift.String`, a type alias, a
            // struct of its own `rawValue`), is written as `Codable` writes it, as its raw value: the compiler picks
            // the overload for `RawRepresentable` where it applies. The lines are indented afresh below.
            let body = """
                \(access)func encode(to writer: inout BinaryPayloadKit.BinaryPayloadWriter) throws {
                if try \(CodedValue.support).encodeRawValue(of: self, to: &writer) { return }
                \(bodies.encode)
                }

                \(access)init(from reader: inout BinaryPayloadKit.BinaryPayloadReader) throws {
                if let value = try \(CodedValue.support).decodeRawValue(of: Self.self, from: &reader) {
                \(bodies.adopt)
                return
                }
                \(bodies.decode)
                }
                """
                .split(separator: "\n", omittingEmptySubsequences: false).map { $0.drop { $0 == " " } }.joined(separator: "\n")
            let declaration = try ExtensionDeclSyntax("extension \(type.trimmed)\(raw: adopted) {\n\(raw: body)\n}")
            return [declaration.formatted().cast(ExtensionDeclSyntax.self)]
        } catch let refusal as CodingRefusal {
            throw refusal.diagnostics
        }
    }

    /// A generic type conforms where each of its type parameters does, as a synthesized `Codable` conformance of a
    /// generic type is written (`extension Page: Codable where Item: Codable`); nil for a type that is not generic.
    private static func requirements(of declaration: some DeclGroupSyntax) throws(CodingRefusal) -> String? {
        guard let clause = declaration.as(StructDeclSyntax.self)?.genericParameterClause ?? declaration.as(EnumDeclSyntax.self)?.genericParameterClause else {
            return nil
        }
        return try clause.parameters.map { parameter throws(CodingRefusal) in
            // A pack (`each T`) or a value (`let N: Int`); read from the tokens, which every swift-syntax from 600 names alike.
            if let specifier = parameter.firstToken(viewMode: .sourceAccurate), [.keyword(.each), .keyword(.let)].contains(specifier.tokenKind) {
                throw CodingRefusal("@BinaryPayloadCoding cannot write a type whose parameter is '\(specifier.text) \(parameter.name.text)'; conform it by hand.", at: parameter)
            }
            return "\(parameter.name.text): BinaryPayloadKit.BinaryPayloadEncodable & BinaryPayloadKit.BinaryPayloadDecodable"
        }.joined(separator: ", ")
    }

    /// The bodies of the members, or the refusal that explains why the macro cannot write them.
    private static func conformance(
        of declaration: some DeclGroupSyntax, in context: some MacroExpansionContext
    ) throws(CodingRefusal) -> ConformanceBodies {
        for member in declaration.memberBlock.members {
            if let function = member.decl.as(FunctionDeclSyntax.self), function.name.text == "encode",
               function.signature.parameterClause.parameters.first?.type.trimmedDescription == "Encoder"
                || function.signature.parameterClause.parameters.first?.type.trimmedDescription == "any Encoder" {
                throw CodingRefusal("@BinaryPayloadCoding writes what synthesized Codable writes, and this type encodes itself; conform it by hand.", at: function.name)
            }
            if let initializer = member.decl.as(InitializerDeclSyntax.self),
               ["Decoder", "any Decoder"].contains(initializer.signature.parameterClause.parameters.first?.type.trimmedDescription ?? "") {
                throw CodingRefusal("@BinaryPayloadCoding reads what synthesized Codable reads, and this type decodes itself; conform it by hand.", at: initializer.initKeyword)
            }
        }
        if let structDecl = declaration.as(StructDeclSyntax.self) {
            return try StructConformance(structDecl.memberBlock).bodies(in: context)
        }
        if let enumDecl = declaration.as(EnumDeclSyntax.self) {
            return try EnumConformance(enumDecl).bodies(in: context)
        }
        throw CodingRefusal("@BinaryPayloadCoding applies to a struct or an enum.", at: declaration.introducer)
    }
}

/// What a conformance writes: the body of `encode(to:)`, the body of `init(from:)`, and the statements by which
/// `init(from:)` takes a value read as the type's raw value (`self = value`, unless a constant with an initial value
/// forbids assigning the whole of `self`).
typealias ConformanceBodies = (encode: String, decode: String, adopt: String)

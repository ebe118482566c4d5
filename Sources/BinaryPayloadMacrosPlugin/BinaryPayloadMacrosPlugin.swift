import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that provides `@BinaryPayloadCoding`.
@main
struct BinaryPayloadMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [BinaryPayloadCodingMacro.self]
}

import SwiftDiagnostics
import SwiftSyntax

/// Why `@BinaryPayloadCoding` cannot write a type's conformance, as an error at the declaration that stops it.
struct CodingRefusal: Error, DiagnosticMessage {
    let message: String
    let node: Syntax

    init(_ message: String, at node: some SyntaxProtocol) {
        self.message = message
        self.node = Syntax(node)
    }

    var diagnosticID: MessageID { MessageID(domain: "BinaryPayloadMacros", id: "refusal") }
    var severity: DiagnosticSeverity { .error }

    /// The refusal as the error the compiler reports.
    var diagnostics: DiagnosticsError { DiagnosticsError(diagnostics: [Diagnostic(node: node, message: self)]) }
}

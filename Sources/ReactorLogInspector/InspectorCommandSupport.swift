import Foundation

/// Building blocks for commands of your own inspector, passed to
/// ``ReactorLogInspector/main(name:abstract:version:reactors:commands:arguments:)``: they fail, print and show
/// progress the way the built-in commands do.
///
/// ```swift
/// struct Stats: AsyncParsableCommand {
///     @Argument var log: String
///     func run() async throws {
///         try await InspectorCommandSupport.run {
///             let log = try EventLog.openReadOnly(at: log)
///             try InspectorCommandSupport.writeLine("\(try log.highestSequence()) entries")
///         }
///     }
/// }
/// ```
public enum InspectorCommandSupport {
    /// Runs a command's body: any error becomes one line on standard error and its documented exit code.
    public static func run(_ body: () async throws -> Void) async throws {
        try await inspect(body)
    }

    /// Writes one line to standard output, with the control characters of anything read from a log shown
    /// visibly, newlines and tabs too (`\u{A}`), so that a name or a string a log holds cannot add lines; a failed
    /// write is an error (exit code 8). Write text of several lines a line at a time.
    public static func writeLine(_ text: String = "") throws {
        try printLine(text)
    }

    /// A progress line on standard error, replacing the previous one (terminals only).
    public static func showProgress(_ text: String) {
        Terminal.current.showProgress(text)
    }

    /// Clears the progress line.
    public static func endProgress() {
        Terminal.current.endProgress()
    }

    /// An error the inspector reports as `message`, one line, with exit code `exit`.
    public static func failure(_ message: String, exit: InspectorExit) -> any Error {
        InspectorFailure(message, exit: exit)
    }
}

import ArgumentParser
import EventLogKit
import Foundation

/// The `reactorlog` inspector's command tree, for the shipped executable and for your own.
///
/// The shipped `reactorlog` knows the example reactors. To inspect your reactors with their own `reduce`
/// (state at any step, diff, blame, bisect and divergence everywhere, not only where states were
/// recorded), write a tiny executable:
///
/// ```swift
/// // Sources/my-inspector/main.swift
/// import ReactorLogInspector
/// import MyApp
///
/// await ReactorLogInspector.main(reactors: [
///     .reactor(SearchReactor.self) { SearchReactor(service: .offline) },
/// ])
/// ```
public enum ReactorLogInspector {
    /// The reactors the running inspector knows.
    @TaskLocal static var registrations: [ReactorRegistration] = []

    /// Parses the command line and runs the command, knowing `reactors`; exits with the documented code.
    /// A usage error is one line on standard error and exit code 64; `--help` and `--version` print to
    /// standard output and exit 0.
    public static func main(reactors: [ReactorRegistration], arguments: [String]? = nil) async {
        await $registrations.withValue(reactors) {
            do {
                var command = try ReactorLogCommand.parseAsRoot(arguments)
                if var asyncCommand = command as? any AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
            } catch let code as ExitCode {
                // The command has already said why, in one line (see `inspect`).
                Foundation.exit(code.rawValue)
            } catch {
                let code = ReactorLogCommand.exitCode(for: error)
                if code == .success {
                    print(ReactorLogCommand.fullMessage(for: error))
                    Foundation.exit(0)
                }
                let message = ReactorLogCommand.message(for: error)
                    .split(separator: "\n").first.map(String.init) ?? "\(error)"
                let line = Terminal.visible(message, colored: false, keepNewlines: false)
                FileHandle.standardError.write(Data("reactorlog: \(line) See 'reactorlog help'.\n".utf8))
                Foundation.exit(InspectorExit.usage.rawValue)
            }
        }
    }
}

/// `reactorlog`: the root command.
struct ReactorLogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reactorlog",
        abstract: "Inspect ReactorLog logs: list entries, travel to any state, diff, blame, bisect.",
        discussion: "A log is a directory such as demo.reactorlog/. Exit codes are listed in docs/INSPECTOR.md.",
        version: EventLog.libraryVersion,
        subcommands: [
            Demo.self, Info.self, Log.self, Show.self, State.self, Diff.self, Blame.self, Tail.self,
            Bisect.self, DivergenceCommand.self, Verify.self, Export.self, Import.self, Compact.self, Trim.self,
        ])
}

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
    /// Who the running inspector is: its name, abstract, version and extra commands.
    @TaskLocal static var identity = Identity(name: "reactorlog", abstract: nil, version: nil, commands: [])

    /// The running inspector's command name, for help, errors and hints (`my-inspector log LOG`).
    public static var commandName: String { identity.name }

    /// Who an inspector is.
    struct Identity: Sendable {
        let name: String
        let abstract: String?
        let version: String?
        let commands: [any ParsableCommand.Type]
    }

    /// Parses the command line and runs the command, knowing `reactors`; exits with the documented code.
    /// A usage error is one line on standard error and exit code 64; `--help` and `--version` print to
    /// standard output and exit 0.
    ///
    /// - Parameters:
    ///   - name: the command name shown in help, errors and completion scripts; defaults to the executable's
    ///     file name.
    ///   - abstract: the one-line description `--help` shows.
    ///   - version: what `--version` prints; defaults to ReactorLog's version.
    ///   - reactors: the reactor types whose states the inspector rebuilds with their own `reduce`.
    ///   - commands: commands of your own, next to the built-in ones (write them with ``InspectorCommandSupport``).
    ///   - arguments: the arguments to parse; defaults to the process's.
    public static func main(
        name: String? = nil, abstract: String? = nil, version: String? = nil,
        reactors: [ReactorRegistration], commands: [any ParsableCommand.Type] = [], arguments: [String]? = nil
    ) async {
        let executable = CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent }
        let identity = Identity(
            name: name ?? executable ?? "reactorlog", abstract: abstract, version: version, commands: commands)
        await $identity.withValue(identity) {
            await $registrations.withValue(reactors) {
                await run(arguments)
            }
        }
    }

    private static func run(_ arguments: [String]?) async {
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
            let given = arguments ?? Array(CommandLine.arguments.dropFirst())
            let commands = ReactorLogCommand.configuration.subcommands.map { $0._commandName }
            // `help nope` gets the parser's help of the whole tool, exit 0: said to be no command, as `nope` alone is.
            if given.first == "help", let topic = given.dropFirst().first, topic != "help", !commands.contains(topic), !topic.hasPrefix("-") {
                StandardError.writeLine("\(commandName): \(UsageLine(name: commandName, commands: commands).text(message: "", arguments: [topic]))")
                Foundation.exit(InspectorExit.usage.rawValue)
            }
            let code = ReactorLogCommand.exitCode(for: error)
            if code == .success {
                // Help and the version: standard output, a failed write reported as any command's is.
                let text = ReactorLogCommand.fullMessage(for: error)
                let written: Void? = try? await inspect { try StandardOutput.write(text + "\n") }
                Foundation.exit(written == nil ? InspectorExit.writeFailed.rawValue : 0)
            }
            let message = ReactorLogCommand.message(for: error)
                .split(separator: "\n").first.map(String.init) ?? "\(error)"
            // Each command's options and arguments, from the parser's description of them, only for a usage error.
            let usage = UsageLine(name: commandName, commands: commands, describing: ReactorLogCommand.self)
            StandardError.writeLine("\(commandName): \(usage.text(message: message, arguments: given))")
            Foundation.exit(InspectorExit.usage.rawValue)
        }
    }
}

/// The root command, named after the running inspector.
struct ReactorLogCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        let identity = ReactorLogInspector.identity
        return CommandConfiguration(
            commandName: identity.name,
            abstract: identity.abstract ?? "Inspect ReactorLog logs: list entries, travel to any state, diff, blame, bisect.",
            discussion: "A log is a directory such as session.reactorlog/. Exit codes are listed in ReactorLog's docs/INSPECTOR.md.",
            version: identity.version ?? EventLog.libraryVersion,
            subcommands: identity.commands + [
                Info.self, Log.self, Show.self, State.self, Diff.self, Blame.self, Tail.self,
                Timeline.self, Bisect.self, DivergenceCommand.self, WhatIfCommand.self, Verify.self, Export.self, Pack.self, Import.self, Compact.self, Trim.self,
            ])
    }
}

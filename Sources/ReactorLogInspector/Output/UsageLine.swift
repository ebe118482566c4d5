import ArgumentParser
import EventLogKit
import Foundation

/// The one line a usage error prints: the parser's message as a sentence, then where to read more. A first
/// argument that names no command is said to be one: a log named before its command gets the command order, a
/// mistyped command the nearest name; an option the command does not have is named before any other fault.
struct UsageLine {
    /// The inspector's command name (`reactorlog`).
    let name: String
    /// The names of its commands.
    let commands: [String]
    /// Each command's long options (`--stream`), each with whether it takes a value.
    var options: [String: [String: Bool]] = [:]
    /// Each command's arguments, in order, by the names its help gives them (`log`, `path`).
    var positionals: [String: [String]] = [:]

    /// The line for the parser's `message` about `arguments`, the command line after the command name.
    func text(message: String, arguments: [String]) -> String {
        guard let first = arguments.first, !first.hasPrefix("-"), first != "help", !commands.contains(first) else {
            var sentence = unknownOption(arguments: arguments) ?? Self.negativeValue(message: message, arguments: arguments)
                ?? negativeStep(arguments: arguments) ?? outputPath(message: message, arguments: arguments)
                ?? missingStep(message: message, arguments: arguments) ?? message
            if let last = sentence.last, !".?!".contains(last) { sentence += "." }
            let help = arguments.first.map { commands.contains($0) ? "\(name) help \($0)" : "\(name) help" } ?? "\(name) help"
            return "\(sentence) See '\(help)'."
        }
        if FileManager.default.fileExists(atPath: first) || first.hasSuffix(".reactorlog") || first.hasSuffix(".pack") {
            return "'\(first)' is a log, not a command: the command comes first, as in '\(name) info \(first)'. "
                + "See '\(name) help'."
        }
        let suggestion = Self.nearest(to: first, among: commands).map { " Did you mean '\($0)'?" } ?? ""
        return "Unknown command '\(first)'.\(suggestion) See '\(name) help'."
    }

    /// An option `arguments`' command does not have, named with the nearest it has: the parser reports a missing
    /// argument, or a command's own check of its arguments, before an unknown option, so that `--steam` for
    /// `--stream` read as a missing stream. With none near, for a command that takes more than the log as arguments,
    /// those arguments in order: `diff --from 29`, `blame --path nextPage`, `compact --out NEW` name what the command
    /// takes in their place. `nil` when every option is the command's (or its options are not known).
    func unknownOption(arguments: [String]) -> String? {
        guard let command = arguments.first, let known = options[command] else { return nil }
        for word in Self.words(of: arguments) where word.hasPrefix("--") {
            let option = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
            guard known[option] != nil else {
                if let nearest = Self.nearest(to: option, among: Array(known.keys)) {
                    return "Unknown option '\(option)'. Did you mean '\(nearest)'?"
                }
                guard let order = positionals[command], order.count > 1 else { return "Unknown option '\(option)'." }
                return "Unknown option '\(option)': \(command) takes its arguments in order, \(name) \(command) \(order.map { "<\($0)>" }.joined(separator: " "))."
            }
        }
        return nil
    }

    /// For `demo new.reactorlog`, a path given where the command takes it after an option: the option meant
    /// (`--out new.reactorlog`). Only for an argument with a `.` or a `/`, which reads as a path.
    func outputPath(message: String, arguments: [String]) -> String? {
        guard let command = arguments.first, options[command]?["--out"] == true,
              let path = message.wholeMatch(of: /Unexpected argument '(.+)'/)?.1, path.contains(where: { $0 == "." || $0 == "/" })
        else { return nil }
        return "Unexpected argument '\(path)': did you mean '--out \(path)'?"
    }

    /// For `--at -1`, which the parser reads as an option and then says the value is missing: what is wrong with the
    /// value, as every number the inspector takes is 0 or more (1 or more for some). For an option that takes text (`--since -1`), how to
    /// give a value that begins with '-'.
    static func negativeValue(message: String, arguments: [String]) -> String? {
        for (option, value) in zip(arguments, arguments.dropFirst())
        where option.hasPrefix("-") && message.hasPrefix("Missing value for '\(option) ")
            && value.count > 1 && value.first == "-" && value.dropFirst().allSatisfy(\.isNumber) {
            guard numberOptions.contains(option) else {
                return "\(option) is followed by \(value), which reads as an option; a value that begins with '-' is written \(option)=\(value)."
            }
            return "\(option) is \(value), but it takes \(smallest(option, command: arguments.first))."
        }
        return nil
    }

    /// For `show LOG -1`, a negative number where a command takes a step as an argument (`show`, `diff`, `state`): the
    /// parser reads it as an option and says the step is missing. Not for the value of an option (``negativeValue(message:arguments:)``).
    func negativeStep(arguments: [String]) -> String? {
        guard let command = arguments.first, Self.stepArguments.contains(command) else { return nil }
        // No option's value: the parser takes no word that begins with '-' for one (``negativeValue(message:arguments:)``).
        let negative = Self.words(of: arguments).first { $0.count > 1 && $0.first == "-" && $0.dropFirst().allSatisfy(\.isNumber) }
        return negative.map { "\($0) is no step: steps are numbers of 0 or more (0: the initial state)." }
    }

    /// The words of `arguments` after the command, up to a `--`: where the parser looks for options. No word that
    /// begins with '-' is an option's value to it, so none of those needs telling apart from one.
    private static func words(of arguments: [String]) -> ArraySlice<String> {
        arguments.dropFirst().prefix { $0 != "--" }
    }

    /// For `show LOG #13`, where the shell took `#13` for a comment and the parser found the step missing: the parser's
    /// message, and how to write a step copied with its `#`.
    func missingStep(message: String, arguments: [String]) -> String? {
        guard let command = arguments.first, Self.stepArguments.contains(command),
              message.hasPrefix("Missing expected argument '<") else { return nil }
        return message + " (\(Self.quotedStep))"
    }

    /// How a step copied with its `#` is written in a shell.
    static let quotedStep = "a step copied as #13 needs quotes, '#13': a shell takes an unquoted # for the start of a comment"

    /// The commands that take a step as an argument.
    static let stepArguments: Set = ["show", "diff", "state"]

    /// The numbers `option` of `command` takes, as its own check says them when the number is too small.
    private static func smallest(_ option: String, command: String?) -> String {
        switch (command, option) {
        case (_, "--timeout"): "a number of seconds above 0"
        case (_, "--actions"), (_, "--latest"), ("blame", "-n"), ("timeline", "--limit"): "a number of 1 or more"
        default: "a number of 0 or more"
        }
    }

    /// The options whose value is a number (a step, a count, seconds).
    static let numberOptions: Set = ["--at", "--from", "--to", "--before", "--skip", "--limit", "--lines", "--latest", "-n", "--timeout", "--actions"]

    /// The name of `names` nearest to `typed`, when it is near enough to be what was meant: a character inserted,
    /// deleted or replaced for each three typed, at least one and at most two, a change of case counted as none (so
    /// `h8` is not taken for `a1`); of two as near, the first in order.
    static func nearest(to typed: String, among names: [String]) -> String? {
        let allowed = min(2, max(1, typed.count / 3))
        let nearest = names.map { (name: $0, distance: distance($0.lowercased(), typed.lowercased())) }.min {
            ($0.distance, $0.name) < ($1.distance, $1.name)
        }
        return nearest.flatMap { $0.distance <= allowed ? $0.name : nil }
    }

    /// The path meant by `path`, where nothing is: the entry of its directory whose name is ``nearest(to:among:)`` its
    /// last component (`demo.reactorlgo` means `demo.reactorlog`), written as `path` was, in the same directory; never
    /// the name itself, which may have appeared since nothing was found there.
    static func nearestPath(to path: String) -> String? {
        let split = SplitPath(path)
        guard !split.name.isEmpty else { return nil }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: split.directory)) ?? []
        guard let name = nearest(to: split.name, among: names.filter { !$0.hasPrefix(".") && $0 != split.name }) else { return nil }
        return path.contains("/") ? split.sibling(name) : name
    }

    /// How many characters must be inserted, deleted, replaced or swapped with the next to turn `a` into `b`
    /// (`titel` is one from `title`).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        // Rows of the table for a's first i - 2, i - 1 and i characters.
        var beforePrevious: [Int] = [], previous = Array(0...b.count)
        for i in stride(from: 1, through: a.count, by: 1) {
            var current = [i]
            for j in stride(from: 1, through: b.count, by: 1) {
                var best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { best = min(best, beforePrevious[j - 2] + 1) }
                current.append(best)
            }
            (beforePrevious, previous) = (previous, current)
        }
        return previous[b.count]
    }
}

extension UsageLine {
    /// The line maker of `root`'s commands (`name`'s, `commands`), knowing each command's long options and arguments
    /// from the parser's description of `root` (the JSON of `--experimental-dump-help`); neither when it cannot be read.
    init(name: String, commands: [String], describing root: any ParsableCommand.Type) {
        struct Description: Decodable {
            struct Command: Decodable {
                struct Argument: Decodable {
                    struct Name: Decodable { let kind: String; let name: String }
                    let kind: String
                    let names: [Name]?
                    let valueName: String?
                }
                let commandName: String
                let arguments: [Argument]?
                let subcommands: [Command]?
            }
            let command: Command
        }
        self.init(name: name, commands: commands)
        guard let description = try? JSONDecoder().decode(Description.self, from: Data(root._dumpHelp().utf8)) else { return }
        for command in description.command.subcommands ?? [] {
            for argument in command.arguments ?? [] {
                if argument.kind == "positional", let value = argument.valueName {
                    positionals[command.commandName, default: []].append(value)
                }
                for name in argument.names ?? [] where name.kind == "long" {
                    options[command.commandName, default: [:]]["--" + name.name] = argument.kind == "option"
                }
            }
        }
    }
}

import Foundation

/// The one line a usage error prints: the parser's message as a sentence, then where to read more. A first
/// argument that names no command is said to be one: a log named before its command gets the command order, a
/// mistyped command the nearest name.
struct UsageLine {
    /// The inspector's command name (`reactorlog`).
    let name: String
    /// The names of its commands.
    let commands: [String]

    /// The line for the parser's `message` about `arguments`, the command line after the command name.
    func text(message: String, arguments: [String]) -> String {
        guard let first = arguments.first, !first.hasPrefix("-"), first != "help", !commands.contains(first) else {
            var sentence = Self.negativeValue(message: message, arguments: arguments) ?? message
            if let last = sentence.last, !".?!".contains(last) { sentence += "." }
            let help = arguments.first.map { commands.contains($0) ? "\(name) help \($0)" : "\(name) help" } ?? "\(name) help"
            return "\(sentence) See '\(help)'."
        }
        if FileManager.default.fileExists(atPath: first) || first.hasSuffix(".reactorlog") || first.hasSuffix(".pack") {
            return "'\(first)' is a log, not a command: the command comes first, as in '\(name) info \(first)'. "
                + "See '\(name) help'."
        }
        let nearest = commands.map { (command: $0, distance: Self.distance($0, first)) }.min { $0.distance < $1.distance }
        let suggestion = nearest.flatMap { $0.distance <= 2 ? " Did you mean '\($0.command)'?" : nil } ?? ""
        return "Unknown command '\(first)'.\(suggestion) See '\(name) help'."
    }

    /// For `--at -1`, which the parser reads as an option and then says the value is missing: what is wrong with the
    /// value, as every number the inspector takes is 0 or more.
    static func negativeValue(message: String, arguments: [String]) -> String? {
        for (option, value) in zip(arguments, arguments.dropFirst())
        where option.hasPrefix("-") && message.hasPrefix("Missing value for '\(option) ")
            && value.count > 1 && value.first == "-" && value.dropFirst().allSatisfy(\.isNumber) {
            return "\(option) is \(value), but it takes a number of 0 or more."
        }
        return nil
    }

    /// How many characters must be inserted, deleted or replaced to turn `a` into `b`.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}

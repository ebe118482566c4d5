import Foundation
@testable import ReactorLogInspector
import Testing

/// The `reactorlog` command lines the README, the guides, the DocC catalogs and the inspector's own help show: each
/// names a command the inspector has and options that command takes, and each written out in full parses as it is
/// shown, so that a renamed option cannot leave a document telling users to type one that is gone.
@Suite("reactorlog commands in the documents", .timeLimit(.minutes(2)))
struct DocumentedCommandTests {
    /// The repository's root.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardizedFileURL

    /// A command line as a document shows it, and where.
    struct Shown: CustomStringConvertible {
        let words: [String]
        let file: String
        var description: String { "\(file): reactorlog \(words.joined(separator: " "))" }
        var command: String { words[0] }
        /// A synopsis (`reactorlog log LOG [--stream S]`) rather than a line to type.
        var isSynopsis: Bool {
            words.contains { word in
                word.contains("[") || word.contains("...") || word.contains("…")
                    || (word.first?.isUppercase == true && word.allSatisfy { $0.isUppercase || $0 == "_" || $0 == "." })
            }
        }
        /// Each option the line names (`--stream`, `-n`), without brackets, values or ellipses.
        var options: [String] {
            words.compactMap { word in
                let bare = word.drop { $0 == "[" }
                guard bare.hasPrefix("-"), bare.count > 1, !bare.hasPrefix("--") || bare.count > 2 else { return nil }
                return String(bare.prefix { $0 == "-" || $0.isLetter || $0.isNumber })
            }
        }
    }

    /// The documents: the README, docs/ (but PERFORMANCE.md, whose sections record the commands of past runs), the
    /// DocC catalogs, and the inspector's sources, whose help text names commands.
    static func documents() throws -> [URL] {
        let files = FileManager.default
        var found = [root.appendingPathComponent("README.md")]
        found += try files.contentsOfDirectory(at: root.appendingPathComponent("docs"), includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "md" && $0.lastPathComponent != "PERFORMANCE.md" }
        for folder in ["Sources", "Tools/Inspector"] {
            let walk = files.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let url = walk?.nextObject() as? URL {
                if url.pathExtension == "md" && url.path.contains(".docc/")
                    || url.pathExtension == "swift" && (url.path.contains("ReactorLogInspector/") || folder == "Tools/Inspector") {
                    found.append(url)
                }
            }
        }
        return found
    }

    /// Every `reactorlog …` in a code span or at the start of a line of a code block (after `$ `), split into words
    /// as a shell would, up to a comment, a pipe or a redirection. Spans built from interpolations are left out.
    static func shownCommands() throws -> [Shown] {
        var shown: [Shown] = []
        for url in try documents() {
            let text = try String(contentsOf: url, encoding: .utf8)
            let name = String(url.path.dropFirst(root.path.count + 1))
            var lines: [Substring] = []
            var inBlock = false
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                let trimmed = line.drop { $0 == " " }
                if trimmed.hasPrefix("```") { inBlock.toggle(); continue }
                if inBlock {
                    let command = trimmed.hasPrefix("$ ") ? trimmed.dropFirst(2) : trimmed
                    if command.hasPrefix("reactorlog ") { lines.append(command) }
                    continue
                }
                for (index, span) in line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                where index % 2 == 1 && span.hasPrefix("reactorlog ") && !span.contains("\\(") {
                    lines.append(span)
                }
            }
            for line in lines {
                let words = Array(words(line).dropFirst())
                // A command or a root option: not a diagram's `reactorlog (Tools/)`.
                if let first = words.first?.first, first.isLetter || first == "-" { shown.append(Shown(words: words, file: name)) }
            }
        }
        return shown
    }

    /// `line` split at spaces outside quotes, quotes removed, ending at a `#` comment, `|`, `>` or `;`.
    static func words(_ line: Substring) -> [String] {
        var words: [String] = []
        var word = ""
        var quote: Character?
        var inWord = false
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " {
                if inWord { words.append(word) }
                (word, inWord) = ("", false)
            } else if !inWord && ["#", "|", ">", ";"].contains(character) {
                break
            } else {
                word.append(character)
                inWord = true
            }
        }
        if inWord && quote == nil { words.append(word) }
        return words
    }

    @Test("the documents show enough command lines for the check to mean something")
    func found() throws {
        let shown = try Self.shownCommands()
        #expect(shown.count >= 40)
        #expect(shown.contains { !$0.isSynopsis && $0.file == "README.md" })
        #expect(shown.contains { $0.isSynopsis && $0.file == "docs/INSPECTOR.md" })
        #expect(Self.words("reactorlog bisect x --run 'python3 a.py'   # judged") == ["reactorlog", "bisect", "x", "--run", "python3 a.py"])
    }

    @Test("every command line a document shows names a command and options the inspector has")
    func commandsAndOptionsExist() async throws {
        let shown = try Self.shownCommands()
        // The root's own options (`--generate-completion-script bash`) are run: each must succeed.
        for line in Set(shown.filter { $0.command.hasPrefix("-") }.map(\.words)) {
            let result = try await Tool.run(line)
            #expect(result.status == 0 && !result.output.isEmpty, "reactorlog \(line.joined(separator: " ")): \(result.error)")
        }
        let commands = shown.filter { !$0.command.hasPrefix("-") }
        var help: [String: String] = [:]
        for command in Set(commands.map(\.command)) {
            let result = try await Tool.run(["help", command])
            // `help` of an unknown command prints the root's help: a command's own starts with its usage.
            help[command] = result.output.contains("USAGE: reactorlog \(command)") ? result.output : nil
        }
        for line in commands {
            guard let text = help[line.command] else {
                Issue.record("\(line): reactorlog has no command '\(line.command)'")
                continue
            }
            for option in line.options {
                let pattern = "(^|[^A-Za-z0-9-])" + NSRegularExpression.escapedPattern(for: option) + "([^A-Za-z0-9-]|$)"
                #expect(text.range(of: pattern, options: .regularExpression) != nil, "\(line): \(line.command) has no option \(option)")
            }
        }
    }

    @Test("every command line a document shows in full parses as shown")
    func examplesParse() throws {
        // `demo` belongs to the shipped executable, not to the library's command tree.
        // A command named alone (`reactorlog verify`) is a mention, not a line to type.
        let examples = try Self.shownCommands().filter {
            $0.words.count > 1 && !$0.isSynopsis && !["demo", "help"].contains($0.command) && !$0.command.hasPrefix("-")
        }
        #expect(examples.count >= 10)
        for example in examples {
            #expect(throws: Never.self, "\(example)") { _ = try ReactorLogCommand.parseAsRoot(example.words) }
        }
    }
}

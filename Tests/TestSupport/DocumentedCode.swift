import Foundation

/// Code a document shows and a test file compiles: the check that the two are the same code, so that a guide's
/// example cannot drift from the one its tests run.
public enum DocumentedCode {
    /// The repository's root, found from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")

    /// The Swift blocks of the document at `path` (from the repository's root) after the first `start` and before
    /// the first `end` after it (the document's end when nil).
    public static func swiftBlocks(of path: String, after start: String, before end: String? = nil) throws -> [String] {
        let text = try file(path)
        guard let from = text.range(of: start)?.upperBound else { throw Missing(text: start, path: path) }
        let rest = text[from...]
        let section = end.flatMap { rest.range(of: $0) }.map { rest[..<$0.lowerBound] } ?? rest
        return section.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
    }

    /// The text of the file at `path`, from the repository's root.
    public static func file(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Whether `file` holds `code`'s lines one after another, indentation, blank lines, whole-line comments and
    /// imports aside (a test file imports more, and may wrap the code in a namespace and comment it).
    public static func holds(_ file: String, _ code: some StringProtocol) -> Bool {
        func lines(_ text: some StringProtocol) -> [Substring] {
            String(text).split(separator: "\n").map { $0.drop(while: \.isWhitespace) }
                .filter { !$0.isEmpty && !$0.hasPrefix("//") && !$0.hasPrefix("import ") }
        }
        let (haystack, needle) = (lines(file), lines(code))
        guard !needle.isEmpty, needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// A marker the document lacks.
    public struct Missing: Error, CustomStringConvertible {
        let text: String
        let path: String
        public var description: String { "\(path) has no \"\(text)\"." }
    }
}

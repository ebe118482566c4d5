/// An error worded as a problem and a hint, each a sentence: ``EventLogError``, and the time-travel errors above it.
/// A program reads ``description``; a tool that words its own hints (the inspector names its commands) keeps the
/// ``problem`` and calls ``line(hint:)`` with its own.
public protocol HintedError: Error, CustomStringConvertible {
    /// The problem alone.
    var problem: String { get }
    /// What to do about it, naming the library's calls and never a tool's commands (empty where ``problem`` says it).
    var hint: String { get }
}

extension HintedError {
    /// One line: the problem, then `hint`.
    public func line(hint: String) -> String {
        hint.isEmpty ? problem : "\(problem) \(hint)"
    }

    /// One line: the problem, then the library's hint.
    public var description: String { line(hint: hint) }
}

import ArgumentParser

/// A step on the command line: a sequence number, bare (`31`) or as the inspector prints it (`#31`, quoted in a
/// shell, which takes an unquoted `#31` for a comment).
enum StepArgument {
    /// The number `text` names.
    static func parse(_ text: String) throws -> UInt64 {
        let digits = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        guard digits.first?.isNumber == true, let step = UInt64(digits) else {
            let more = text.contains(",") ? "; an option that takes more than one is repeated, as in --skip 31 --skip 32" : ""
            throw ValidationError("a step is a number of 0 or more, such as 31 or #31\(more)")
        }
        return step
    }
}

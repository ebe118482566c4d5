import EventLogKit
import Foundation
import TimeTravel

/// Renders entries as lines in the spirit of RxSwift's `debug()`:
/// `22:37:55.383 #42 search action updateQuery("swift")`.
struct EntryFormatter {
    let terminal: Terminal
    let streamWidth: Int
    /// The width of the widest `#sequence` listed, so columns line up.
    var sequenceWidth = 0

    /// The indent of the lines `--changes` prints under a mutation: past the time, the number and the stream, each
    /// followed by a space, and four more, two past the mutation's kind.
    var changeIndent: String {
        String(repeating: " ", count: ClockTime.width + sequenceWidth + streamWidth + 7)
    }

    /// The local day of the entry listed last: a class, since a formatter is copied into the closures that print.
    private let listed = ListedDay()

    /// Prints `entry`'s line (``appendLine(_:indent:to:)``), after a line naming its local day, `-- 2026-12-09 --`, when
    /// the entry listed before it was written on another day: a listing's times are times of day.
    func printListed(_ entry: LogEntry) throws {
        if let day = listed.dayChange(at: entry.timestamp) { try printLine(terminal.paint("-- \(day) --", .gray)) }
        try printLine { appendLine(entry, to: &$0) }
    }

    /// One line; mutations and errors with a cause are indented under their action.
    func line(_ entry: LogEntry, indent: Bool = true) -> String {
        var bytes: [UInt8] = []
        appendLine(entry, indent: indent, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``line(_:indent:)``'s bytes appended to `bytes`, as a listing writes them: no string made for any part.
    func appendLine(_ entry: LogEntry, indent: Bool = true, to bytes: inout [UInt8]) {
        let space = UInt8(ascii: " ")
        terminal.paint(.gray, into: &bytes) { ClockTime.append(nanoseconds: entry.timestamp, to: &$0) }
        bytes.append(space)
        let number = bytes.count
        bytes.append(UInt8(ascii: "#"))
        Self.appendDecimal(entry.sequence, to: &bytes)
        Self.pad(&bytes, from: number, to: sequenceWidth)
        bytes.append(space)
        bytes.append(contentsOf: entry.stream.utf8)
        let missing = streamWidth - entry.stream.shownColumns
        if missing > 0 { bytes.append(contentsOf: repeatElement(space, count: missing)) }
        bytes.append(space)
        if indent && entry.cause != nil && entry.kind != .action { bytes.append(contentsOf: repeatElement(space, count: 2)) }
        let label = bytes.count
        appendKindLabel(entry.kind, padded: true, to: &bytes)
        bytes.append(space)
        let payload = bytes.count
        Self.appendPayload(entry, to: &bytes)
        // A marker with nothing to add ends at its kind, unpadded.
        if bytes.count == payload {
            bytes.removeSubrange(label...)
            appendKindLabel(entry.kind, padded: false, to: &bytes)
        }
    }

    private func appendKindLabel(_ kind: EntryKind, padded: Bool, to bytes: inout [UInt8]) {
        let color: Terminal.Color = switch kind {
        case .action: .blue
        case .mutation: .green
        case .effectError: .red
        default: .gray
        }
        terminal.paint(color, into: &bytes) { bytes in
            let start = bytes.count
            bytes.append(contentsOf: kind.description.utf8)
            if padded { Self.pad(&bytes, from: start, to: 8) }
        }
    }

    /// Spaces after the ASCII text from `start` up to `width` bytes.
    private static func pad(_ bytes: inout [UInt8], from start: Int, to width: Int) {
        let missing = width - (bytes.count - start)
        if missing > 0 { bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: missing)) }
    }

    /// `value`'s decimal digits.
    private static func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
        let start = bytes.count
        var rest = value
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        bytes[start...].reverse()
    }

    /// The entry's case name, or `nil` for a marker, whose case name only repeats its kind (`opened`).
    static func caseLabel(_ entry: LogEntry) -> String? {
        entry.caseName == entry.kind.description ? nil : entry.caseName
    }

    /// A payload as Swift would print the value: `updateQuery("swift")`, `setRepos([…10], nextPage: 2)`, `increase`;
    /// an effect's error as `Type: message`; nothing for a marker that only repeats its kind (`opened`).
    static func payload(_ entry: LogEntry) -> String {
        var bytes: [UInt8] = []
        appendPayload(entry, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``payload(_:)``'s bytes appended to `bytes`.
    static func appendPayload(_ entry: LogEntry, to bytes: inout [UInt8]) {
        if entry.codec == .binary, entry.kind != .effectError,
           entry.payload.withUnsafeBytes({ appendCaseCall($0, to: &bytes) }) {
            return
        }
        bytes.append(contentsOf: payloadOfValue(entry).utf8)
    }

    /// Appends a binary payload of one enum case as ``payloadOfValue(_:)`` shows it, read without the dictionaries of
    /// a whole `JSONValue` (most lines of a listing); `false`, with nothing appended, where it could show otherwise,
    /// and then the whole value is read.
    static func appendCaseCall(_ payload: UnsafeRawBufferPointer, to text: inout [UInt8]) -> Bool {
        guard let (name, held) = JSONValue.enumCase(binary: payload) else { return false }
        switch held {
        case .single(let value):
            text.append(contentsOf: name.utf8)
            text.append(UInt8(ascii: "("))
            appendBrief(value, to: &text)
            text.append(UInt8(ascii: ")"))
        case .arguments(let arguments):
            // `swiftLike`'s order: as recorded where it reads the labels, else sorted; two labels that sort as
            // equals (`_a` and ` _a`) would leave the dictionary's order to decide.
            guard !arguments.contains(where: { $0.label.hasPrefix(" ") }) else { return false }
            text.append(contentsOf: name.utf8)
            if arguments.isEmpty { return true }
            // Not recorded: one argument, or at most ten all unlabeled (`_0`, `_1`…), which sort by their labels
            // alone (`argumentOrder` puts the same space before each).
            let recorded = arguments.count > 1 && (arguments.count > 10 || arguments.contains { !$0.label.hasPrefix("_") })
            let sorted = recorded || zip(arguments, arguments.dropFirst()).allSatisfy { $0.label < $1.label }
            let ordered = sorted ? arguments : arguments.sorted { $0.label < $1.label }
            text.append(UInt8(ascii: "("))
            for (index, (label, value)) in ordered.enumerated() {
                if index > 0 { text.append(contentsOf: ", ".utf8) }
                if !label.hasPrefix("_") { text.append(contentsOf: label.utf8); text.append(contentsOf: ": ".utf8) }
                appendBrief(value, to: &text)
            }
            text.append(UInt8(ascii: ")"))
        }
        return true
    }

    /// ``brief(_:)``'s text appended: the JSON itself up to 60 bytes, written without a string.
    private static func appendBrief(_ value: JSONValue, to text: inout [UInt8]) {
        let start = text.count
        value.appendJSON(to: &text)
        if text.count - start > 60 { text.replaceSubrange(start..., with: brief(value).utf8) }
    }

    /// A payload as ``payload(_:)`` shows it, read as a whole `JSONValue`.
    static func payloadOfValue(_ entry: LogEntry) -> String {
        guard let value = (try? JSONValue(payload: entry.payload, codec: entry.codec)) ?? nil else {
            if entry.payload.isEmpty { return caseLabel(entry) ?? "" }
            return "\(entry.caseName) <\(entry.payload.count) bytes, \(entry.codec)>"
        }
        if entry.kind == .effectError, case .object(let members) = value, members.count == 2,
           case .string(let type)? = members["type"], case .string(let message)? = members["message"] {
            return Self.cut("\(type): \(message)", to: 100)
        }
        // A binary payload keeps a case's labels in their declared order, which Swift prints them in: read where
        // the order could differ from the fallback's (a labeled argument among two or more, or more than ten).
        var labels: [String]?
        if entry.codec == .binary, case .object(let members) = value, members.count == 1,
           case .object(let arguments)? = members.first?.value, arguments.count > 1,
           arguments.count > 10 || arguments.keys.contains(where: { !$0.hasPrefix("_") }) {
            labels = entry.payload.withUnsafeBytes(BinaryPayload.caseLabels)
        }
        return swiftLike(value, labels: labels)
    }

    /// `value` as Swift would print it; a case's arguments in the order of `labels` when it names each of them once
    /// (a binary payload's recorded order), else unlabeled ones first, then by label.
    static func swiftLike(_ value: JSONValue, labels: [String]? = nil, depth: Int = 0) -> String {
        switch value {
        case .string(let text) where depth == 0: return Self.cut(text, to: 100)
        case .object(let members) where members.count == 1 && depth <= 1:
            guard let (name, inner) = members.first else { return value.description }
            if case .object(let arguments) = inner, arguments.isEmpty { return name }
            if case .object(let arguments) = inner {
                // Each key once (a repeated key would leave the object with fewer): the labels name every argument.
                let labels = labels.flatMap { $0.count == arguments.count && $0.allSatisfy { arguments[$0] != nil } ? $0 : nil }
                    ?? arguments.keys.sorted { Self.argumentOrder($0) < Self.argumentOrder($1) }
                let rendered = labels.compactMap { label in arguments[label].map { argument(label, $0) } }
                return "\(name)(\(rendered.joined(separator: ", ")))"
            }
            return depth == 0 ? "\(name)(\(brief(inner)))" : value.description
        default:
            return brief(value)
        }
    }

    /// An argument of a case: its value, after its label unless the label is `_0`, `_1`…
    private static func argument(_ label: String, _ value: JSONValue) -> String {
        label.hasPrefix("_") ? brief(value) : "\(label): \(brief(value))"
    }

    /// `_0` before `_1` before labels.
    private static func argumentOrder(_ label: String) -> String {
        label.hasPrefix("_") ? " " + label : label
    }

    /// A value in at most about 60 characters; long arrays are shown by their count.
    static func brief(_ value: JSONValue) -> String {
        let text = value.description
        // No more characters than bytes: short in bytes is short (counting characters walks the text).
        if text.utf8.count <= 60 { return text }
        let count = text.count
        if case .array(let values) = value, count > 60 { return "[…\(values.count)]" }
        return count <= 60 ? text : cut(text, to: 58)
    }

    /// `text`, or its first characters and `…` in `limit` characters when it is longer: a listing's line stays a
    /// line to read, however long a string the log holds (`show` prints it whole).
    static func cut(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit, let end = text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex),
              end != text.endIndex
        else { return text }
        return String(text[..<text.index(before: end)]) + "…"
    }
}

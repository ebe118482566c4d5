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

    /// One line; mutations and errors with a cause are indented under their action.
    func line(_ entry: LogEntry, indent: Bool = true) -> String {
        let time = terminal.paint(ClockTime.string(nanoseconds: entry.timestamp), .gray)
        let number = "#\(entry.sequence)"
        let sequence = number.padded(to: sequenceWidth)
        let stream = entry.stream.padded(to: streamWidth)
        let nested = indent && entry.cause != nil && entry.kind != .action ? "  " : ""
        let payload = Self.payload(entry)
        // A marker with nothing to add ends at its kind, unpadded.
        if payload.isEmpty { return "\(time) \(sequence) \(stream) \(nested)\(kindLabel(entry.kind, padded: false))" }
        return "\(time) \(sequence) \(stream) \(nested)\(kindLabel(entry.kind)) \(payload)"
    }

    private func kindLabel(_ kind: EntryKind, padded: Bool = true) -> String {
        let text = padded ? kind.description.padded(to: 8) : kind.description
        switch kind {
        case .action: return terminal.paint(text, .blue)
        case .mutation: return terminal.paint(text, .green)
        case .effectError: return terminal.paint(text, .red)
        default: return terminal.paint(text, .gray)
        }
    }

    /// The entry's case name, or `nil` for a marker, whose case name only repeats its kind (`opened`).
    static func caseLabel(_ entry: LogEntry) -> String? {
        entry.caseName == entry.kind.description ? nil : entry.caseName
    }

    /// A payload as Swift would print the value: `updateQuery("swift")`, `setRepos([…10], nextPage: 2)`, `increase`;
    /// an effect's error as `Type: message`; nothing for a marker that only repeats its kind (`opened`).
    static func payload(_ entry: LogEntry) -> String {
        if entry.codec == .binary, entry.kind != .effectError, let text = entry.payload.withUnsafeBytes(caseCall) {
            return text
        }
        return payloadOfValue(entry)
    }

    /// A binary payload of one enum case as ``payloadOfValue(_:)`` shows it, read without the dictionaries of a whole
    /// `JSONValue` (most lines of a listing); `nil` where it could show otherwise, and then the whole value is read.
    static func caseCall(_ payload: UnsafeRawBufferPointer) -> String? {
        guard let (name, held) = JSONValue.enumCase(binary: payload) else { return nil }
        switch held {
        case .single(let value):
            return "\(name)(\(brief(value)))"
        case .arguments(let arguments):
            if arguments.isEmpty { return name }
            // `swiftLike`'s order: as recorded where it reads the labels, else sorted; two labels that sort as
            // equals (`_a` and ` _a`) would leave the dictionary's order to decide.
            guard !arguments.contains(where: { $0.label.hasPrefix(" ") }) else { return nil }
            let recorded = arguments.count > 1 && (arguments.count > 10 || arguments.contains { !$0.label.hasPrefix("_") })
            let ordered = recorded ? arguments : arguments.sorted { argumentOrder($0.label) < argumentOrder($1.label) }
            // The line's bytes in one buffer: `argument` for each, without making each value's text a string.
            var text = Array(name.utf8)
            text.append(UInt8(ascii: "("))
            for (index, (label, value)) in ordered.enumerated() {
                if index > 0 { text.append(contentsOf: ", ".utf8) }
                if !label.hasPrefix("_") { text.append(contentsOf: label.utf8); text.append(contentsOf: ": ".utf8) }
                let start = text.count
                value.appendJSON(to: &text)
                // `brief`'s text, which is the JSON itself up to 60 bytes.
                if text.count - start > 60 { text.replaceSubrange(start..., with: brief(value).utf8) }
            }
            text.append(UInt8(ascii: ")"))
            return String(decoding: text, as: UTF8.self)
        }
    }

    /// A payload as ``payload(_:)`` shows it, read as a whole `JSONValue`.
    static func payloadOfValue(_ entry: LogEntry) -> String {
        guard let value = (try? JSONValue(payload: entry.payload, codec: entry.codec)) ?? nil else {
            if entry.payload.isEmpty { return caseLabel(entry) ?? "" }
            return "\(entry.caseName) <\(entry.payload.count) bytes, \(entry.codec)>"
        }
        if entry.kind == .effectError, case .object(let members) = value, members.count == 2,
           case .string(let type)? = members["type"], case .string(let message)? = members["message"] {
            let text = "\(type): \(message)"
            return text.count <= 100 ? text : String(text.prefix(99)) + "…"
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
        case .string(let text) where depth == 0: return text
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
        return count <= 60 ? text : String(text.prefix(57)) + "…"
    }
}

import EventLogKit
import Foundation

/// The lines of an export, whichever its format: a header, then entries and snapshots. Every line must be
/// valid UTF-8 and decode as an export line; the first that does not stops the import, named by its number.
struct ExportLines {
    let header: ExportHeader
    private var pending: [ExportLine]?
    private let reader: LineReader
    private let file: String
    private var number = 1
    private let decoder = JSONDecoder()
    /// Whether a last line cut short ends the lines rather than the import (``cutShortLine``): for a command that
    /// reads an export, which says what it lacks; `import` refuses the file.
    var readsPastCutShortEnd = false
    /// The number of the last line, where it was cut short and ``readsPastCutShortEnd`` let the lines end before it.
    private(set) var cutShortLine: Int?

    init(reader: LineReader, file: String) throws {
        self.reader = reader
        self.file = file
        let first: String?
        do {
            first = try reader.nextLine(file: file, number: 1)
        } catch is LineReader.NotText {
            // Not a damaged export (whose lines are named by number) but some other file: a log's data file above all.
            let what = SplitPath(file).name == "data.mdb"
                ? "but a log's data file: the inspector reads the directory that holds it as it is, with no import (`compact` copies a log)"
                : "it is not text, as every export is. Write it with `\(ReactorLogInspector.commandName) export` or `pack`"
            throw InspectorFailure("\(file) is not a ReactorLog export\(what.hasPrefix("but") ? " " : ": ")\(what).", exit: .invalidArgument)
        }
        guard let first else {
            throw InspectorFailure("\(file) is empty. Give it a file written by `\(ReactorLogInspector.commandName) export`.", exit: .invalidArgument)
        }
        if let line = try? decoder.decode(ExportLine.self, from: Data(first.utf8)), let header = line.reactorlog {
            self.header = header
            self.pending = nil
        } else {
            var text = first
            var count = 1
            while let line = try reader.nextLine(file: file, number: count + 1) {
                text += "\n" + line
                count += 1
            }
            let document: ExportDocument
            do {
                document = try decoder.decode(ExportDocument.self, from: Data(text.utf8))
            } catch {
                // A document that opens as an export's and stops before it closes: a download or copy cut short.
                let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
                if trimmed.prefixMatch(of: #/\{\s*"(entries|reactorlog|snapshots)"/#) != nil, !trimmed.hasSuffix("}") {
                    let part = count == 1 && first.hasPrefix(#"{"reactorlog""#) ? "inside its header line" : "before its export document does"
                    throw InspectorFailure("\(file) is cut short: it ends \(part). Copy or download it again.", exit: .invalidArgument)
                }
                throw InspectorFailure("\(file) is not a ReactorLog export: it starts with neither a header line nor a whole export document (\(Self.reason(error))). Write it with `\(ReactorLogInspector.commandName) export`.", exit: .invalidArgument)
            }
            self.header = document.reactorlog
            self.pending = document.entries.map { ExportLine(entry: $0) } + document.snapshots.map { ExportLine(snapshot: $0) }
        }
        guard header.formatVersion <= EventLog.formatVersion else {
            throw InspectorFailure("\(file) was exported from log format version \(header.formatVersion), but this ReactorLog reads versions up to \(EventLog.formatVersion). Upgrade ReactorLog to import it.", exit: .newerFormat)
        }
        guard (header.exportVersion ?? 1) <= ExportHeader.currentExportVersion else {
            throw InspectorFailure("\(file) is an export of version \(header.exportVersion ?? 1), but this ReactorLog reads export versions up to \(ExportHeader.currentExportVersion). Upgrade ReactorLog to import it.", exit: .newerFormat)
        }
    }

    /// The next line and its number, `nil` at the end.
    mutating func next() throws -> (Int, ExportLine)? {
        if pending != nil {
            guard let line = pending?.first else { return nil }
            pending?.removeFirst()
            number += 1
            return (number, line)
        }
        while let line = try reader.nextLine(file: file, number: number + 1) {
            number += 1
            guard !line.isEmpty else { continue }
            do {
                return (number, try decoder.decode(ExportLine.self, from: Data(line.utf8)))
            } catch {
                // The file ends inside this line: a partial download or copy, whose lines before it are whole.
                if reader.lastLineUnterminated {
                    if readsPastCutShortEnd {
                        cutShortLine = number
                        return nil
                    }
                    throw InspectorFailure(
                        "\(file) line \(number) cannot be imported: the file ends in the middle of it, cut short. Copy or download it again (`\(ReactorLogInspector.commandName) log` reads the lines before it). Nothing was imported.",
                        exit: .invalidArgument)
                }
                throw InspectorFailure("\(file) line \(number) cannot be imported: \(Self.reason(error)). Nothing was imported.", exit: .invalidArgument)
            }
        }
        return nil
    }

    /// A decoding error in a few words.
    static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            return "it is not valid JSON" + (context.codingPath.isEmpty ? "" : " at \(path(context.codingPath))")
        case DecodingError.keyNotFound(let key, let context):
            return "it lacks '\(key.stringValue)'" + (context.codingPath.isEmpty ? "" : " in \(path(context.codingPath))")
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(path(context.codingPath)) has the wrong type"
        default:
            return "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

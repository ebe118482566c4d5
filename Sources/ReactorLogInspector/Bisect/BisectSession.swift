import Foundation
import TimeTravel

/// The verdicts of an earlier bisect, to repeat it (`bisect --replay`), as `git bisect replay` repeats a `bisect log`:
/// read from the probe lines a bisect prints on standard error (`bisect: #17 good  appendRepos(…)`), where the judge's
/// own output may sit between them, or from its `--json` output.
struct BisectSession {
    /// The verdict given for each step.
    let verdicts: [UInt64: BisectVerdict]

    /// Reads the session in `file`.
    init(file: String) throws(InspectorFailure) {
        guard !FileManager.default.isDirectory(atPath: file) else {
            throw InspectorFailure(
                "\(file) is a directory, not a bisect session: give the file an earlier bisect's standard error or --json output was saved in.",
                exit: .invalidArgument)
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw InspectorFailure("Cannot read \(file). Check the path of the bisect session to replay.", exit: .cannotOpen)
        }
        try self.init(data: data, file: file)
    }

    /// Reads a session from `data`, the contents of `file` (named in errors).
    init(data: Data, file: String) throws(InspectorFailure) {
        let probes = if data.first(where: { !Self.isSpace($0) }) == UInt8(ascii: "{") {
            try Self.probes(json: data, file: file)
        } else {
            try Self.probes(lines: String(decoding: data, as: UTF8.self), file: file)
        }
        var verdicts: [UInt64: (BisectVerdict, line: Int)] = [:]
        for (step, verdict, line) in probes {
            if let (earlier, earlierLine) = verdicts[step], earlier != verdict {
                let place = line > 0 ? ", \(earlier.rawValue) on line \(earlierLine) and \(verdict.rawValue) on line \(line)" : ""
                throw InspectorFailure("\(file) gives #\(step) two verdicts\(place). Keep the one that is right.", exit: .invalidArgument)
            }
            verdicts[step] = (verdict, line)
        }
        guard !verdicts.isEmpty else {
            throw InspectorFailure("\(file) holds no bisect probes. Replay what a bisect printed on standard error (lines such as 'bisect: #17 good'), or its --json output.", exit: .invalidArgument)
        }
        self.verdicts = verdicts.mapValues(\.0)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    }

    /// The probes of a bisect's `--json` output; line 0 for each, as JSON has no lines to name.
    private static func probes(json data: Data, file: String) throws(InspectorFailure) -> [(UInt64, BisectVerdict, Int)] {
        struct Output: Decodable { let probes: [BisectProbe] }
        do {
            return try JSONDecoder().decode(Output.self, from: data).probes.map { ($0.step, $0.verdict, 0) }
        } catch {
            throw InspectorFailure("\(file) is JSON but not a bisect's --json output (it needs probes of a step and a verdict each). Replay that output, or the probe lines a bisect printed.", exit: .invalidArgument)
        }
    }

    /// The probes of the lines that start `bisect: #`; every other line is the judge's own output, left alone.
    private static func probes(lines text: String, file: String) throws(InspectorFailure) -> [(UInt64, BisectVerdict, Int)] {
        var probes: [(UInt64, BisectVerdict, Int)] = []
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            guard line.hasPrefix("bisect: #") else { continue }
            let words = line.dropFirst("bisect: #".count).split(separator: " ", maxSplits: 2)
            guard words.count >= 2, let step = UInt64(words[0]), let verdict = BisectVerdict(rawValue: String(words[1])) else {
                throw InspectorFailure("\(file) line \(index + 1) is not a probe: '\(line.prefix(60))'. A probe reads 'bisect: #17 good' (or bad, or skip).", exit: .invalidArgument)
            }
            probes.append((step, verdict, index + 1))
        }
        return probes
    }
}

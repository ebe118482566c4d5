import EventLogKit

extension TimeMachine {
    /// Compares the stream's schema fingerprint with `currentFingerprint` and decodes, with the current
    /// types, the initial state, the first and latest snapshots, and the first entry of every action and
    /// mutation case, naming the first that fails.
    public func checkSchema(currentFingerprint: String) throws -> SchemaReport {
        func report(_ verdict: SchemaReport.Verdict, _ problem: SchemaReport.Problem? = nil) -> SchemaReport {
            SchemaReport(verdict: verdict, recordedFingerprint: stream.schemaFingerprint, currentFingerprint: currentFingerprint, problem: problem)
        }
        func problem(_ step: UInt64, _ what: String, _ error: any Error) -> SchemaReport.Problem {
            if let error = error as? DecodingError {
                let (path, message): ([any CodingKey], String) = switch error {
                case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
                    (context.codingPath + (error.missingKey.map { [$0] } ?? []), context.debugDescription)
                @unknown default: ([], "\(error)")
                }
                return .init(step: step, what: what, field: path.map(\.stringValue).joined(separator: "."), message: message)
            }
            return .init(step: step, what: what, field: "", message: "\(error)")
        }
        do {
            _ = try decodeState(stream.initialState, codec: stream.initialStateCodec, at: 0)
        } catch {
            return report(.impossible, problem(0, "initial state", error))
        }
        let snapshots = try log.snapshotSequences(stream: stream.name)
        for step in Set([snapshots.first, snapshots.last].compactMap { $0 }).sorted() {
            guard let snapshot = try log.latestSnapshot(stream: stream.name, atOrBefore: step) else { continue }
            do {
                _ = try decodeState(snapshot.state, codec: snapshot.codec, at: snapshot.sequence)
            } catch {
                return report(.impossible, problem(step, "snapshot", error))
            }
        }
        return try checkCases(report: report, problem: problem)
    }

    private func checkCases(
        report: (SchemaReport.Verdict, SchemaReport.Problem?) -> SchemaReport,
        problem: (UInt64, String, any Error) -> SchemaReport.Problem
    ) throws -> SchemaReport {
        var seen = Set<String>()
        var entries = log.entries(EntryQuery(stream: stream.name, kinds: [.action, .mutation]))
        while let entry = try entries.next() {
            let schema = schemaHistory.fingerprint(at: entry.sequence)
            // Actions are not replayed, so those of earlier types need not decode with the current ones.
            guard entry.kind == .mutation || schema == schemaHistory.current else { continue }
            let what = "\(entry.kind) \(entry.caseName)"
            guard seen.insert(schema + " " + what).inserted else { continue }
            do {
                try replayer.checkDecodes(entry, recordedWith: schema, log: log)
            } catch {
                return report(.impossible, problem(entry.sequence, what, error))
            }
        }
        return report(stream.schemaFingerprint == report(.safe, nil).currentFingerprint ? .safe : .risky, nil)
    }
}

extension DecodingError {
    /// Whether the data was not JSON at all (damage), rather than JSON of another shape (a schema change).
    var isInvalidJSON: Bool {
        if case .dataCorrupted(let context) = self, context.codingPath.isEmpty, context.underlyingError != nil { return true }
        return false
    }

    /// `field 'setRepos._0': the message`.
    var summary: String {
        let (path, message): ([any CodingKey], String) = switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context):
            (context.codingPath + (missingKey.map { [$0] } ?? []), context.debugDescription)
        @unknown default: ([], "\(self)")
        }
        // `joined(separator:)`, not `joined()`, which here joined the strings as a sequence of characters, whose slice
        // a string interpolation printed as its debug description.
        let field = String(path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined(separator: "").drop { $0 == "." })
        return field.isEmpty ? message : "field '\(field)': \(message)"
    }

    /// The key a `keyNotFound` error names.
    var missingKey: (any CodingKey)? {
        if case .keyNotFound(let key, _) = self { return key }
        return nil
    }
}

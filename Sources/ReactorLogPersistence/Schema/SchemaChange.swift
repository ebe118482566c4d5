import EventLogKit
import Foundation
import ReactorLog

/// What `attach` found and did about a schema change, or about a stream it could not resume; `nil` from `attach`
/// when the fingerprints matched and the stream resumed.
public struct SchemaChange: Sendable, Hashable, CustomStringConvertible {
    /// The stream.
    public let stream: String
    /// The fingerprint the stream was recorded with, and the reactor's.
    public let recordedFingerprint: String
    /// The reactor's fingerprint.
    public let currentFingerprint: String
    /// The first recorded value that no longer decodes, or why the stream could not be resumed; `nil` when it
    /// resumed.
    public let problem: String?
    /// When a new generation started: the name the old stream's entries now have (`NAME@N`).
    public let retiredAs: String?
    /// Whether the stream resumed through migrations: they have a step for the recorded types.
    public let migrated: Bool

    /// A sentence for the app's own log.
    public var description: String {
        guard let problem, let retiredAs else {
            let how = migrated ? "decodes through the migrations" : "still decodes"
            return "Stream '\(stream)' was recorded with other types (\(recordedFingerprint)); everything recorded \(how), so it resumed with \(currentFingerprint)."
        }
        let what = recordedFingerprint == currentFingerprint ? "" : " was recorded with other types (\(recordedFingerprint)) and"
        let sentence = problem.hasSuffix(".") ? problem : problem + "."
        return "Stream '\(stream)'\(what) \(sentence) Its entries are kept as stream '\(retiredAs)'; '\(stream)' starts a new generation from the initial state."
    }
}

/// Finds the first value of a stream that the current types cannot decode, directly or through migrations.
enum SchemaCompatibility {
    /// Decodes, with the reactor's types and `migrations`, the stream's initial state, its latest snapshot, and the
    /// first and last mutation of every case written by each version of the types: what resuming and replaying
    /// need. Returns a description of the first failure.
    static func firstUndecodable<R: Reactor>(
        in log: EventLog, stream info: StreamInfo, migrations: SchemaMigrations<R>
    ) throws(EventLogError) -> String? where R.Mutation: Codable, R.State: Codable {
        let history = try log.schemaHistory(stream: info.name)
        func check(_ what: String, _ body: () throws -> Void) -> String? {
            do {
                try body()
                return nil
            } catch {
                // A sentence's own full stop does not end the parenthesis.
                let reason = "\(error)"
                return "\(what) no longer decodes (\(reason.hasSuffix(".") ? String(reason.dropLast()) : reason))"
            }
        }
        if info.sequenceFloor == 0, let problem = check("the initial state", {
            _ = try migrations.state(info.initialState, codec: info.initialStateCodec, recordedWith: history.fingerprint(at: 0), log: log)
        }) {
            return problem
        }
        if let snapshot = try log.latestSnapshot(stream: info.name, atOrBefore: .max), let problem = check("the snapshot at #\(snapshot.sequence)", {
            _ = try migrations.state(snapshot.state, codec: snapshot.codec, recordedWith: history.fingerprint(at: snapshot.sequence), log: log)
        }) {
            return problem
        }
        // The first and last entry of each case, per version of the types that wrote it.
        var first: [String: LogEntry] = [:], last: [String: LogEntry] = [:]
        var entries = log.entries(EntryQuery(stream: info.name, kinds: [.mutation]))
        while let entry = try entries.next() {
            let key = history.fingerprint(at: entry.sequence) + " " + entry.caseName
            if first[key] == nil { first[key] = entry }
            last[key] = entry
        }
        let samples = (Array(first.values) + Array(last.values)).sorted { $0.sequence < $1.sequence }
        for entry in samples {
            if let problem = check("mutation #\(entry.sequence) (\(entry.caseName))", {
                _ = try migrations.mutation(entry, recordedWith: history.fingerprint(at: entry.sequence), log: log)
            }) {
                return problem
            }
        }
        return nil
    }
}

import Foundation
import TestSupport
import Testing

/// Commands run on damaged copies of a sound log, each copy's answers held against the sound log's: no command may
/// crash, a failure is one line (bisect's probes, and warnings of an answer that is whole, are not failures), and an
/// answer given with exit 0 is the sound log's, word for word (the log's path aside). Columns are as wide as the names the log could read:
/// a stream whose descriptor is damaged is left out, and a listing of the others' entries is the same but for the
/// spaces. Two copies at a time.
struct AnswerSweep: Sendable {
    /// One damaged copy: what it is called in a problem, and what is done to the sound log's bytes.
    struct Damage: Sendable {
        let name: String
        let apply: @Sendable (inout [UInt8]) -> Void
    }

    let scratch: ScratchDirectory
    /// The sound log's data file.
    let original: [UInt8]
    /// The commands, `LOG` standing for the log's path.
    let commands: [[String]]
    /// Each command's output on the sound log, its path as `LOG`.
    let sound: [String]

    /// Runs `commands` on the sound log at `log`, each of which must answer (exit 0).
    init(log: String, commands: [[String]], in scratch: ScratchDirectory) async throws {
        self.scratch = scratch
        self.commands = commands
        original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: log + "/data.mdb")))
        var answers: [String] = []
        for command in commands {
            let result = try await Tool.run(command.map { $0 == "LOG" ? log : $0 })
            #expect(result.status == 0, "\(command): \(result.error)")
            answers.append(result.output.replacingOccurrences(of: log, with: "LOG"))
        }
        sound = answers
    }

    /// What the commands did wrong on each of `damages`, one line a problem.
    func problems(_ damages: [Damage]) async throws -> [String] {
        try await damages.mapTwoAtATime { trial, damage in try await answers(trial, damage) }.flatMap { $0 }
    }

    /// The problems of one damaged copy, kept where it outlives the test when there are any.
    private func answers(_ trial: Int, _ damage: Damage) async throws -> [String] {
        var bytes = original
        damage.apply(&bytes)
        let copy = scratch.file("answers-\(trial).reactorlog")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
        try Data(bytes).write(to: URL(fileURLWithPath: copy + "/data.mdb"))
        var problems: [String] = []
        defer { Self.keepOrRemove(copy, if: !problems.isEmpty) }
        for (command, sound) in zip(commands, sound) {
            let result = try await Tool.run(command.map { $0 == "LOG" ? copy : $0 })
            let what = "\(command[0]) \(command.dropFirst(2).joined(separator: " ")) after \(damage.name)"
            let own = result.error.split(separator: "\n").filter { !$0.hasPrefix("bisect: ") && !$0.hasPrefix("reactorlog: warning: ") }
            if result.crashed {
                problems.append("\(what): signal \(result.status)")
            } else if own.count > 1 {
                problems.append("\(what): \(result.error.prefix(400))")
            } else if result.status == 0, Self.words(result.output.replacingOccurrences(of: copy, with: "LOG")) != Self.words(sound) {
                problems.append("\(what): a wrong answer, \(result.output.prefix(300))")
            }
        }
        return problems
    }

    /// `text` split at spaces, line by line: what a listing says, whatever the width of its columns.
    static func words(_ text: String) -> [[Substring]] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.split(separator: " ") }
    }

    /// Removes the damaged copy at `path`, or, where a command failed on it, moves it where it outlives the test and
    /// says where: a sweep records a new log, so its seed alone does not give the same bytes again.
    static func keepOrRemove(_ path: String, if failed: Bool) {
        guard failed else {
            try? FileManager.default.removeItem(atPath: path)
            return
        }
        let kept = FileManager.default.temporaryDirectory.appendingPathComponent("reactorlog-damaged-\(UUID().uuidString.prefix(8)).reactorlog").path
        try? FileManager.default.moveItem(atPath: path, toPath: kept)
        Issue.record("the damaged copy is kept at \(kept)")
    }
}

import EventLogKit
import Foundation
import TestSupport
import Testing

@Suite("reactorlog tail --follow", .timeLimit(.minutes(3)))
struct FollowTests {
    /// Runs `tail LOG --follow -n 5` with `options` on a log another process keeps writing, hands each line it prints
    /// to `read` until `read` returns `false` (or the follow ends), then stops it; returns how it ended and what it
    /// said on standard error.
    func follow(_ options: [String], read: (String) throws -> Bool) async throws -> String {
        let scratch = ScratchDirectory()
        let log = scratch.file("live.reactorlog")
        // Its state is the count of mutations so far, recorded every 50 or so; the inspector does not know its reactor.
        let writer = try WriterProcess(log: log)
        defer { writer.stop() }
        let output = Pipe()
        let errors = scratch.file("tail.err")
        let tail = try ChildProcess(
            Tool.products.appendingPathComponent("reactorlog").path, ["tail", log, "--follow", "-n", "5"] + options,
            output: .pipe(output), error: .file(errors))
        // A follow that stopped printing (once, a read nested in another's deadlocked when the writer grew the map) is
        // killed, so that the test fails rather than waits forever.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(45))
            tail.signal(SIGKILL)
        }
        defer { watchdog.cancel() }
        let lines = LineReader(output)
        let reading = Result { () throws in
            while let line = lines.next(), try read(line) {}
        }
        // A follow never ends by itself: stop it, then say how it ended (by this signal, unless it failed first).
        tail.signal(SIGTERM)
        let exit = try await tail.exit()
        try reading.get()
        return "tail ended with \(exit); it said: \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")"
    }

    @Test("tail --follow prints every entry another process writes, once, in order, as it is committed")
    func followsAnotherWriter() async throws {
        var sequences: [Int] = []
        let ending = try await follow(["--json"]) { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            sequences.append(try #require(object?["sequence"] as? Int))
            return sequences.count < 2000
        }
        #expect(sequences.count >= 2000, "\(ending)")
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 + 1 })
    }

    @Test("tail --follow --changes keeps each stream's last known state: a recorded state's change spans the mutations since the last")
    func followsChanges() async throws {
        var spans: [(since: Int?, through: Int, old: Int?, new: Int)] = []
        var unknown = 0
        let ending = try await follow(["--changes", "--json"]) { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard object["kind"] as? String == "mutation" else { return true }
            guard let changes = object["changes"] as? [[String: Any]] else {
                unknown += 1
                return true
            }
            let change = try #require(changes.first)
            spans.append((
                object["changesSince"] as? Int, try #require(object["sequence"] as? Int),
                change["old"] as? Int, try #require(change["new"] as? Int)))
            return spans.count < 4
        }
        #expect(spans.count == 4, "\(ending)")
        #expect(unknown > 0, "mutations between recorded states are listed without a change")
        // The first recorded state followed has nothing known before it (the whole state is its change), unless the
        // step right before the first entry followed was recorded too (one in about 50); each later one counts the
        // mutations since the last.
        let first = try #require(spans.first)
        #expect(first.old != nil || first.since == nil, "\(spans)")
        for span in spans where span.old != nil || span.through != first.through {
            let since = try #require(span.since)
            #expect(span.old.map { span.new - $0 } == span.through - since + 1, "\(span)")
        }
        #expect(zip(spans, spans.dropFirst()).allSatisfy { $1.since == $0.through + 1 && $1.old == $0.new }, "\(spans)")
    }

    @Test("tail --follow --stream S waits for a stream the log does not have yet, says so with the streams it has, and prints the stream's entries once it begins")
    func waitsForStream() async throws {
        let scratch = ScratchDirectory()
        let path = scratch.file("late.reactorlog")
        let log = try EventLog.open(at: path)
        let tick = try log.encode(["tick": [String: Int]()])
        let search = try log.openStream(named: "search", reactorType: "Search", schemaFingerprint: "1", initialState: ["n": 0])
        _ = try search.append(.action, encoding: { ("tick", tick) })
        try await log.flush()

        let output = Pipe()
        let errors = Pipe()
        let tail = try ChildProcess(
            Tool.products.appendingPathComponent("reactorlog").path, ["tail", path, "--follow", "--stream", "todo"],
            output: .pipe(output), error: .pipe(errors))
        let watchdog = Task {
            try await Task.sleep(for: .seconds(45))
            tail.signal(SIGKILL)
        }
        defer { watchdog.cancel() }
        // Before it waits, it says what it waits for: a typo would otherwise wait unseen.
        let note = LineReader(errors).next()
        #expect(note == "reactorlog: The log has no stream named 'todo' yet: waiting for its first entry. Its streams: search.")

        let todo = try log.openStream(named: "todo", reactorType: "Todo", schemaFingerprint: "1", initialState: ["n": 0])
        let action = try todo.append(.action, encoding: { ("tick", tick) })
        _ = try search.append(.action, encoding: { ("tick", tick) })
        _ = try todo.append(.mutation, cause: action, encoding: { ("tick", tick) })
        try await log.flush()
        let lines = LineReader(output)
        let printed = [lines.next(), lines.next(), lines.next()]
        tail.signal(SIGTERM)
        _ = try await tail.exit()
        try log.close()
        // The stream's opening, its action and the mutation, and nothing of the stream it did not ask for.
        let words = printed.map { $0?.split(separator: " ").dropFirst(2).map(String.init) }
        #expect(words == [["todo", "opened"], ["todo", "action", "tick"], ["todo", "mutation", "tick"]], "\(printed)")
    }

    @Test("tail --follow of a log not begun yet waits for it, says so (with the path meant for a typo), and prints its entries from the first; with no directory to hold it, it is refused")
    func waitsForLog() async throws {
        let scratch = ScratchDirectory()
        let path = scratch.file("new.reactorlog")
        let output = Pipe()
        let errors = Pipe()
        let tail = try ChildProcess(
            Tool.products.appendingPathComponent("reactorlog").path, ["tail", path, "--follow"],
            output: .pipe(output), error: .pipe(errors))
        let watchdog = Task {
            try await Task.sleep(for: .seconds(45))
            tail.signal(SIGKILL)
        }
        defer { watchdog.cancel() }
        #expect(LineReader(errors).next() == "reactorlog: No log at \(path) yet: waiting for a program to begin recording there.")

        // The log begun after the follow: by this process, which makes the directory, its files and its metadata
        // while the follow tries to open it.
        let log = try EventLog.open(at: path)
        let tick = try log.encode(["tick": [String: Int]()])
        let counter = try log.openStream(named: "counter", reactorType: "Counter", schemaFingerprint: "1", initialState: ["n": 0])
        _ = try counter.append(.action, encoding: { ("tick", tick) })
        try await log.flush()
        let lines = LineReader(output)
        let printed = [lines.next(), lines.next()]
        tail.signal(SIGTERM)
        _ = try await tail.exit()
        try log.close()
        let words = printed.map { $0?.split(separator: " ").dropFirst(1).map(String.init) }
        #expect(words == [["#1", "counter", "opened"], ["#2", "counter", "action", "tick"]], "\(printed)")
        // The numbers have room to grow: the columns stay where they are past #9.
        #expect(printed.allSatisfy { $0?.contains(/\s#\d {5}counter\s/) == true }, "\(printed)")

        // A directory missing on the way is a wrong path, not a log to come.
        let missing = try await Tool.run(["tail", scratch.file("nowhere/new.reactorlog"), "--follow"])
        #expect(missing.status == 3 && missing.error.contains("No log at"), "\(missing.error)")

        // A path a typo away from the log: the wait is said with the path meant, so the typo is seen.
        let typo = scratch.file("new.reactorlgo")
        let typoErrors = Pipe()
        let waiting = try ChildProcess(
            Tool.products.appendingPathComponent("reactorlog").path, ["tail", typo, "--follow"], error: .pipe(typoErrors))
        let note = LineReader(typoErrors).next()
        waiting.signal(SIGTERM)
        _ = try await waiting.exit()
        #expect(note == "reactorlog: No log at \(typo) yet (did you mean \(path)?): waiting for a program to begin recording there.")
    }
}

import EventLogKit
import Foundation
import LMDB
import TestSupport
import Testing

/// Every command of the built `reactorlog`, on a demo log, as a user runs it.
@Suite("reactorlog commands", .serialized, .timeLimit(.minutes(2)))
struct InspectorCommandTests {
    let scratch = ScratchDirectory()
    let demo: String

    init() async throws {
        demo = try await Tool.demoLog(in: scratch)
    }

    func reactorlog(_ arguments: String...) async throws -> Tool.Result {
        try await Tool.run(arguments)
    }

    func json(_ result: Tool.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
    }

    @Test("demo records three streams and prints the next commands; it will not overwrite without --force")
    func demoCommand() async throws {
        let again = try await reactorlog("demo", "--out", demo)
        #expect(again.status == 2)
        #expect(again.error.contains("already exists"))
        let forced = try await reactorlog("demo", "--out", demo, "--force")
        #expect(forced.status == 0)
        let synthetic = try await reactorlog("demo", "--out", scratch.file("long.reactorlog"), "--actions", "5000", "--durability", "nosync")
        #expect(synthetic.status == 0)
        #expect(!synthetic.output.contains("--stream search"), "a synthetic session has no search stream to suggest")
        // What to try next, a command a line (once a single line with its newlines shown as `\u{A}`); those that
        // only read run on the log just recorded.
        for (result, count) in [(forced, 6), (synthetic, 4)] {
            #expect(result.lines.first?.hasSuffix(". Try:") == true && result.lines.count == count + 1, "\(result.output)")
            let commands = result.lines.dropFirst().map { $0.split(separator: " ").map(String.init) }
            #expect(commands.allSatisfy { $0.first == "reactorlog" } && commands.contains { $0.dropFirst().first == "bisect" } == (count == 6), "\(result.output)")
            for command in commands where ["info", "log", "state", "blame", "tail"].contains(command.dropFirst().first) {
                let run = try await Tool.run(Array(command.dropFirst()))
                #expect(run.status == 0 && !run.output.isEmpty, "\(command): \(run.error)")
            }
        }
        let info = try json(try await reactorlog("info", scratch.file("long.reactorlog"), "--json"))
        #expect(info["highestSequence"] as? Int == 20_002)
    }

    @Test("info lists the format, the streams with their counts, and the size")
    func info() async throws {
        let text = try await reactorlog("info", demo)
        #expect(text.status == 0)
        #expect(text.output.contains("format 8, codec binary, durability grouped"))
        #expect(text.lines.contains { $0.hasPrefix("search") && $0.contains("GitHubSearchReactor") })
        let report = try json(try await reactorlog("info", demo, "--json"))
        let streams = try #require(report["streams"] as? [[String: Any]])
        #expect(streams.map { $0["name"] as? String } == ["search", "todo", "counter"])
        #expect(streams[0]["errors"] as? Int == 1)
        #expect((report["sizeBytes"] as? Int ?? 0) > 0)
        #expect(report["readWithoutLockFile"] as? Bool == false)
    }

    @Test("log prints one line per entry, mutations indented under their action, with every filter")
    func log() async throws {
        let lines = try await reactorlog("log", demo, "--stream", "search", "--limit", "3").lines
        #expect(lines.count == 3)
        // `-n`, as `git log -n` (and `tail -n`, `blame -n`), is --limit's short name.
        #expect(try await reactorlog("log", demo, "--stream", "search", "-n", "3").lines == lines)
        #expect(lines[1].hasSuffix(#"#2  search  action   updateQuery("s")"#))
        #expect(lines[2].hasSuffix(#"#3  search    mutation setQuery("s")"#))
        // A marker ends at its kind; an effect's error reads as Swift prints one, `Type: message`.
        #expect(lines[0].hasSuffix("#1  search  opened"))
        let errors = try await reactorlog("log", demo, "--kind", "error").lines
        #expect(errors.count == 1)
        #expect(errors.first?.hasSuffix("#21 search    error    Failure: GitHub API rate limit exceeded for 'error'") == true, "\(errors)")
        #expect(try await reactorlog("show", demo, "1").lines.first == "#1 opened")
        #expect(try await reactorlog("log", demo, "--case", "appendRepos").lines.count == 4)
        // Kinds repeated or separated by commas are one filter.
        let kinds = try await reactorlog("log", demo, "--kind", "action,error", "--stream", "search")
        #expect(kinds.output == (try await reactorlog("log", demo, "--kind", "action", "--kind", "error", "--stream", "search").output))
        #expect(kinds.lines.count == 11, "10 actions and an error")
        #expect(try await reactorlog("log", demo, "--from", "10", "--to", "12").lines.count == 3)
        #expect(try await reactorlog("log", demo, "--since", "2000-01-01T00:00:00Z", "--limit", "1").lines.count == 1)
        let entries = try await reactorlog("log", demo, "--json", "--limit", "2").lines
        let entry = try #require(try JSONSerialization.jsonObject(with: Data(entries[1].utf8)) as? [String: Any])
        #expect(entry["sequence"] as? Int == 2)
        #expect(entry["case"] as? String == "updateQuery")
        #expect((entry["payload"] as? [String: Any])?["updateQuery"] != nil)
    }

    @Test("--since and --until list the entries of a span of time, a time taken as the listing prints it")
    func timeSpan() async throws {
        // Every entry's time, exactly, and as the listing prints it (to the millisecond, UTC in JSON).
        func objects(_ result: Tool.Result) throws -> [[String: Any]] {
            try result.lines.map { line in try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) }
        }
        let entries = try objects(try await reactorlog("log", demo, "--json")).map { object in
            (sequence: object["sequence"] as? Int ?? 0, time: object["time"] as? String ?? "",
             nanoseconds: Int64(object["timestampNanoseconds"] as? String ?? "") ?? 0)
        }
        func listed(_ arguments: String...) async throws -> [Int] {
            try objects(try await Tool.run(["log", demo, "--json"] + arguments)).map { $0["sequence"] as? Int ?? 0 }
        }
        // The search stream's error and the Todo stream's first entry: times in the middle of the log.
        for pick in [entries[20], entries[33]] {
            let millisecond = pick.nanoseconds / 1_000_000 * 1_000_000
            let since = entries.filter { $0.nanoseconds >= millisecond }.map(\.sequence)
            let until = entries.filter { $0.nanoseconds <= millisecond + 999_999 }.map(\.sequence)
            #expect(since.count < entries.count && until.count < entries.count && (since.first ?? 0) > 1)
            #expect(try await listed("--since", pick.time) == since)
            #expect(try await listed("--until", pick.time) == until)
            // Both: the entries listed at that millisecond, the picked one among them.
            let both = try await listed("--since", pick.time, "--until", pick.time)
            #expect(both == Array(Set(since).intersection(until)).sorted() && both.contains(pick.sequence))
        }
    }

    @Test("a time copied from a listing or from show names the time listed, on a log from another day too")
    func timesOfAnotherDay() async throws {
        // A bug report's log: an action and its mutation each minute from 12:01 to 12:30 local time, on 2025-03-10.
        let path = scratch.file("another-day.reactorlog")
        let log = try EventLog.open(at: path)
        let stream = try log.openStream(named: "minutes", reactorType: "MyApp.MinuteReactor", schemaFingerprint: "v1", initialState: ["count": 0])
        let noon = try #require(Calendar.current.date(from: DateComponents(year: 2025, month: 3, day: 10, hour: 12)))
        for minute in 1...30 {
            let time = Int64(noon.timeIntervalSince1970) * 1_000_000_000 + Int64(minute) * 60_000_000_000 + 250_000_000
            let action = try stream.append(EntryDraft(kind: .action, caseName: "tick", payload: Data(#"{"tick":{}}"#.utf8), timestamp: time))
            try stream.append(EntryDraft(kind: .mutation, caseName: "count", payload: Data(#"{"count":{}}"#.utf8), cause: action, timestamp: time))
        }
        try log.close()
        func listed(_ arguments: String...) async throws -> [Int] {
            let result = try await Tool.run(["log", path, "--json"] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.error)")
            return try result.lines.map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["sequence"] as? Int ?? 0
            }
        }
        // Minute 20's entries are #40 and #41, listed at 12:20:00.250; the stream's opening (#1) was written today.
        let listing = try await reactorlog("log", path, "--from", "40", "--to", "40").output
        #expect(listing.hasPrefix("12:20:00.250 #40"), "\(listing)")
        #expect(try await listed("--since", "12:20:00.250", "--until", "12:20:00.250") == [40, 41])
        #expect(try await listed("--since", "12:29") == [1, 58, 59, 60, 61])
        // show prints the date and time in local time, which the filters take as printed, with a space or a T.
        let shown = try #require(try await reactorlog("show", path, "40").lines.first { $0.contains("time") })
        #expect(shown.hasSuffix("2025-03-10 12:20:00.250"), "\(shown)")
        #expect(try await listed("--since", "2025-03-10 12:20:00.250", "--until", "2025-03-10 12:20:00.250") == [40, 41])
        #expect(try await listed("--since", "2025-03-10T12:29", "--until", "2025-03-10 12:29:59") == [58, 59])
        let pack = scratch.file("another-day.pack")
        let packed = try await Tool.run(["pack", path, "--since", "12:29", "--out", pack])
        #expect(packed.status == 0, "\(packed.error)")
    }

    @Test("a time of day on a day the clocks change is where the clocks show it", .enabled(if: FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Europe/Berlin")))
    func timeOnTheDayClocksChange() async throws {
        // 2025-03-30 in Berlin: 02:00 became 03:00. Entries at 01:30, 03:30 and 04:30 local (00:30, 01:30, 02:30 UTC),
        // and at 00:30 the next day (22:30 UTC: within 24 hours of the day's start, past its 23).
        let path = scratch.file("clocks-change.reactorlog")
        let log = try EventLog.open(at: path)
        let stream = try log.openStream(named: "night", reactorType: "MyApp.NightReactor", schemaFingerprint: "v1", initialState: ["count": 0])
        let midnightUTC: Int64 = 1_743_292_800 * 1_000_000_000
        for minutes in [30, 90, 150, 1350] {
            try stream.append(EntryDraft(kind: .action, caseName: "tick", payload: Data(#"{"tick":{}}"#.utf8), timestamp: midnightUTC + Int64(minutes) * 60_000_000_000))
        }
        try log.close()
        let berlin = ["TZ": "Europe/Berlin"]
        let listing = try await Tool.run(Tool.products.appendingPathComponent("reactorlog"), ["log", path, "--from", "2", "--to", "4"], environment: berlin)
        #expect(listing.lines.map { String($0.prefix(15)) } == ["01:30:00.000 #2", "03:30:00.000 #3", "04:30:00.000 #4"], "\(listing.output)")
        let since = try await Tool.run(Tool.products.appendingPathComponent("reactorlog"), ["log", path, "--from", "2", "--to", "4", "--since", "2025-03-30 03:30"], environment: berlin)
        #expect(since.lines.map { String($0.prefix(15)) } == ["03:30:00.000 #3", "04:30:00.000 #4"], "\(since.output)\(since.error)")
        // A date alone is that day, its 23 hours.
        let day = try await Tool.run(Tool.products.appendingPathComponent("reactorlog"), ["log", path, "--since", "2025-03-30", "--until", "2025-03-30"], environment: berlin)
        #expect(day.lines.map { String($0.prefix(15)) } == ["01:30:00.000 #2", "03:30:00.000 #3", "04:30:00.000 #4"], "\(day.output)\(day.error)")
    }

    @Test("a listing over several days names each new day where it begins; info and blame show the days of a log from another day")
    func listingOverDays() async throws {
        // Entries at 23:59 on 2025-03-10, then just after midnight, then two days later (local time).
        let path = scratch.file("over-days.reactorlog")
        let log = try EventLog.open(at: path)
        let stream = try log.openStream(named: "days", reactorType: "MyApp.DayReactor", schemaFingerprint: "v1", initialState: ["count": 0])
        func nanoseconds(day: Int, hour: Int, minute: Int) throws -> Int64 {
            let date = try #require(Calendar.current.date(from: DateComponents(year: 2025, month: 3, day: day, hour: hour, minute: minute)))
            return Int64(date.timeIntervalSince1970) * 1_000_000_000
        }
        for time in [try nanoseconds(day: 10, hour: 23, minute: 59), try nanoseconds(day: 11, hour: 0, minute: 0), try nanoseconds(day: 13, hour: 12, minute: 0)] {
            let action = try stream.append(EntryDraft(kind: .action, caseName: "tick", payload: Data(#"{"tick":{}}"#.utf8), timestamp: time))
            try stream.append(EntryDraft(kind: .mutation, caseName: "count", payload: Data(#"{"count":{}}"#.utf8), cause: action, timestamp: time))
        }
        try log.pin(2...3, reason: "the first tick")
        try log.close()
        let listing = try await reactorlog("log", path, "--from", "2").lines
        #expect(listing.map { String($0.prefix(16)) } == [
            "23:59:00.000 #2 ", "23:59:00.000 #3 ", "-- 2025-03-11 --", "00:00:00.000 #4 ", "00:00:00.000 #5 ",
            "-- 2025-03-13 --", "12:00:00.000 #6 ", "12:00:00.000 #7 ",
        ], "no line before the first entry listed; one where each later day begins")
        // The stream's opening, written today, is a day of its own; JSON lines are entries only.
        #expect(try await reactorlog("log", path).lines.filter { $0.hasPrefix("-- ") }.count == 3)
        #expect(try await reactorlog("tail", path, "-n", "3").lines.filter { $0.hasPrefix("-- ") } == ["-- 2025-03-13 --"])
        #expect(try await reactorlog("log", path, "--from", "2", "--json").lines.allSatisfy { $0.hasPrefix("{") })
        // A day line's date, copied into --since and --until, lists that day.
        let day = try await reactorlog("log", path, "--since", "2025-03-11", "--until", "2025-03-11").lines
        #expect(day.map { String($0.prefix(16)) } == ["00:00:00.000 #4 ", "00:00:00.000 #5 "], "\(day)")
        let infoLines = try await reactorlog("info", path).lines
        let info = infoLines.first { $0.hasPrefix("days ") } ?? ""
        #expect(info.contains("2025-03-13 12:00:00.000"), "\(info)")
        // The log's creation and its pins' in local time as the table's, not UTC ISO 8601 (which JSON keeps).
        let localTime = #/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}/#
        #expect(infoLines.contains { $0.hasPrefix("created ") && $0.firstMatch(of: localTime) != nil }, "\(infoLines)")
        #expect(infoLines.contains { $0.contains("the first tick") && $0.firstMatch(of: localTime) != nil }, "\(infoLines)")
        // Blame's rows likewise: the demo recorded 400 days earlier (exported, its times moved back, imported).
        let export = scratch.file("earlier.jsonl"), earlier = scratch.file("earlier.reactorlog")
        _ = try await reactorlog("export", demo, "--out", export)
        let back: Int64 = 400 * 86_400 * 1_000_000_000
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let moved = try String(contentsOfFile: export, encoding: .utf8).split(separator: "\n").map { line -> String in
            guard var object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  var entry = object["entry"] as? [String: Any], let stamp = Int64(entry["timestampNanoseconds"] as? String ?? "")
            else { return String(line) }
            let time = stamp - back
            (entry["timestamp"], entry["timestampNanoseconds"]) = (time, "\(time)")
            entry["time"] = iso.string(from: Date(timeIntervalSince1970: Double(time / 1_000_000_000) + Double(time % 1_000_000_000 / 1_000_000) / 1000))
            object["entry"] = entry
            return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }
        try (moved.joined(separator: "\n") + "\n").write(toFile: export, atomically: true, encoding: .utf8)
        _ = try await reactorlog("import", export, earlier)
        let blame = try await reactorlog("blame", earlier, "query", "--stream", "search").lines
        #expect(blame.count == 7 && blame.dropFirst().allSatisfy { $0.wholeMatch(of: /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}  #.*/) != nil }, "\(blame)")
        let local = DateFormatter()
        local.dateFormat = "yyyy-MM-dd"
        #expect(blame[1].hasPrefix(local.string(from: Date().addingTimeInterval(-400 * 86_400))) || blame[1].hasPrefix(local.string(from: Date().addingTimeInterval(-401 * 86_400))), "the demo, recorded today (or just before midnight), 400 days back: \(blame[1])")
    }

    @Test("show prints an entry in full with its cause and what it caused")
    func show() async throws {
        let action = try await reactorlog("show", demo, "8")
        #expect(action.output.contains("#8 action updateQuery"))
        #expect(action.output.contains("caused:"))
        #expect(action.output.contains("setRepos"))
        // A mutation shows what it changed; an action does not (its mutations do).
        let appended = try await reactorlog("show", demo, "31")
        #expect(appended.output.contains("state change:\n  + repos[20...29]: 10 added (\"rx/repo-11\" … \"rx/repo-20\")\n"), "\(appended.output)")
        #expect(!action.output.contains("state change"))
        let changes = try json(try await reactorlog("show", demo, "31", "--json"))["change"] as? [[String: Any]]
        #expect(changes?.count == 10 && changes?.first?["path"] as? String == "repos[20]" && changes?.first?["new"] as? String == "rx/repo-11")
        #expect(try json(try await reactorlog("show", demo, "8", "--json"))["change"] == nil)
        // Without the reducer and with the states around it not recorded, it says why it shows none.
        let unknown = try await reactorlog("show", try GenericModeTests.userLog(at: scratch.file("user.reactorlog")), "3")
        #expect(unknown.status == 0)
        let reason = "state change: not shown: the states around it were not recorded, and rebuilding them needs an inspector that knows MyApp.ItemsReactor."
        #expect(unknown.output.contains(reason), "\(unknown.output)")
        // The payload indented two spaces under its heading, each level two more.
        #expect(action.output.contains("payload:\n  {\n    \"updateQuery\": {\n      \"_0\": \"swift\"\n    }\n  }\n"), "\(action.output)")
        let mutation = try json(try await reactorlog("show", demo, "9", "--json"))
        #expect((mutation["cause"] as? [String: Any])?["sequence"] as? Int == 8)
        // The demo sends its actions from one line of Demo.swift: `send`'s call site, recorded with each action.
        #expect(action.output.contains("sent from  reactorlog/Demo.swift:"), "\(action.output)")
        let cause = try #require(mutation["cause"] as? [String: Any])
        #expect((cause["callSite"] as? String)?.hasPrefix("reactorlog/Demo.swift:") == true)
        #expect((mutation["entry"] as? [String: Any])?["callSite"] == nil, "mutations have no call site")
    }

    @Test("state prints the state at a step, whole or at a path")
    func state() async throws {
        #expect(try await reactorlog("state", demo, "--stream", "search", "--at", "29", "--path", "repos.count").output == "20\n")
        let whole = try await reactorlog("state", demo, "--stream", "search", "--at", "0")
        #expect(whole.output.contains(#""repos": []"#))
        let value = try json(try await reactorlog("state", demo, "--at", "40", "--path", "items[0].title", "--json"))
        #expect(value["stream"] as? String == "todo")
    }

    @Test("state takes its step as an argument, as show and diff do, or as --at; any step may be written #N")
    func stateStepAsArgument() async throws {
        let asOption = try await reactorlog("state", demo, "--stream", "search", "--at", "29")
        let asArgument = try await reactorlog("state", demo, "29", "--stream", "search")
        #expect(asArgument.status == 0)
        #expect(asArgument.output == asOption.output)
        #expect(asArgument.output.contains(#""query": "rx""#))
        // A step as the inspector prints it, with its '#' (quoted in a shell), is the same step, in every command.
        #expect(try await reactorlog("state", demo, "#29", "--stream", "search").output == asOption.output)
        #expect(try await reactorlog("show", demo, "#13").output == (try await reactorlog("show", demo, "13").output))
        #expect(try await reactorlog("diff", demo, "#10", "#14").output == (try await reactorlog("diff", demo, "10", "14").output))
        #expect(try await reactorlog("log", demo, "--from", "#70", "--to=#71").output.split(separator: "\n").count == 2)
        // The same step both ways is one step.
        #expect(try await reactorlog("state", demo, "--stream", "search", "29", "--at", "29", "--path", "repos.count").output == "20\n")
    }

    @Test("diff shows what changed between two steps")
    func diff() async throws {
        let diff = try await reactorlog("diff", demo, "--stream", "search", "29", "31")
        #expect(diff.output.contains(#"+ repos[20...29]: 10 added ("rx/repo-11" … "rx/repo-20")"#))
        let changes = try json(try await reactorlog("diff", demo, "--stream", "search", "0", "9", "--json"))
        #expect((changes["changes"] as? [[String: Any]])?.first?["path"] as? String == "query")
    }

    @Test("blame lists the mutations that changed a path, and the actions behind them")
    func blame() async throws {
        let blame = try await reactorlog("blame", demo, "nextPage", "--stream", "search")
        #expect(blame.output.contains("nextPage changed 4 times"))
        #expect(blame.output.contains(#"4 → 2       by #22 updateQuery("rx")"#))
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(try await reactorlog("blame", demo, "nextPage", "--stream", "search", "--json").output.utf8)) as? [[String: Any]])
        #expect(entries.count == 4)
        // A list whose length did not change shows what changed inside it, with its whole path.
        let items = try await reactorlog("blame", demo, "items", "--stream", "todo")
        #expect(items.output.contains("#46  toggle  ~ items[0].isDone: false → true "), "\(items.output)")
        #expect(items.output.contains(#"~ items[3].title: "Bisect the bug" → "Bisect the duplicate repos""#), "\(items.output)")
        #expect(items.output.contains("~ items[0].id: 1 → 5 (and 11 more)"), "\(items.output)")
        #expect(items.output.contains("#54  delete  […5] → […4]"), "\(items.output)")
        // The empty path is the whole state, named so in the header (before, "counter:  changed", a blank).
        let whole = try await reactorlog("blame", demo, "", "--stream", "counter")
        #expect(whole.status == 0 && whole.output.hasPrefix("counter: the state changed 12 times\n"), "\(whole.output)\(whole.error)")
    }

    @Test("blame -n lists only the latest changes, the end of the full list, and says there may be more")
    func blameLatest() async throws {
        let all = try await reactorlog("blame", demo, "nextPage", "--stream", "search")
        let latest = try await reactorlog("blame", demo, "nextPage", "--stream", "search", "-n", "2")
        #expect(latest.lines.first == "search: nextPage changed at least 2 times; the latest:")
        #expect(latest.lines.count == 3)
        let words = { (line: String) -> [String] in line.split(separator: " ").map(String.init) }
        let latestRows: [[String]] = latest.lines.dropFirst().map(words)
        let lastRows: [[String]] = all.lines.suffix(2).map(words)
        #expect(latestRows == lastRows)
        #expect(latest.output.contains("#24  setRepos"))
        // More than there are: all of them, counted as blame counts them.
        let more = try await reactorlog("blame", demo, "nextPage", "--stream", "search", "--latest", "9")
        #expect(more.output == all.output)
        let upTo = try await reactorlog("blame", demo, "nextPage", "--stream", "search", "-n", "1", "--to", "20", "--json")
        let changes = try #require(try JSONSerialization.jsonObject(with: Data(upTo.output.utf8)) as? [[String: Any]])
        let sequences: [Int?] = changes.map { $0["sequence"] as? Int }
        #expect(sequences == [17])
    }

    @Test("tail shows the latest entries")
    func tail() async throws {
        let tail = try await reactorlog("tail", demo, "-n", "3")
        #expect(tail.lines.count == 3)
        #expect(tail.lines.last?.contains("closed") == true)
        // Of one stream: its own latest entries, though the log's last ten are another stream's.
        let search = try await reactorlog("tail", demo, "--stream", "search", "-n", "2")
        #expect(search.lines.map { $0.split(separator: " ", omittingEmptySubsequences: true).prefix(3).dropFirst().joined(separator: " ") } == ["#32 search", "#33 search"], "\(search.output)")
        // In JSON, the entry objects `log --json` writes, an action's call site included.
        let json = try await reactorlog("tail", demo, "-n", "45", "--json")
        let listed = try await reactorlog("log", demo, "--json")
        #expect(json.lines == Array(listed.lines.suffix(45)))
        #expect(json.lines.contains { $0.contains(#""callSite":"#) })
    }

    @Test("bisect finds the planted bug with the command's verdicts, and reports commands that cannot run")
    func bisect() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tools/scripts/unique-repos.py").path
        let found = try await reactorlog("bisect", demo, "--stream", "search", "--run", "python3 \(script)")
        #expect(found.status == 0, "\(found.error)")
        #expect(found.output.contains("First bad step: #31 in stream search"))
        #expect(found.output.contains("caused by: #29 action loadNextPage"))
        // Each probe names what made the state it judged, as git bisect names a commit.
        #expect(found.error.contains("bisect: #0 good  the initial state"))
        #expect(found.error.contains("bisect: #31 bad   appendRepos([…10], nextPage: 2)"), "\(found.error)")
        let result = try json(try await reactorlog("bisect", demo, "--stream", "search", "--run", "python3 \(script)", "--json"))
        #expect(result["firstBad"] as? Int == 31)

        let missing = try await reactorlog("bisect", demo, "--stream", "search", "--run", "no-such-command-anywhere")
        #expect(missing.status == 7)
        #expect(missing.error.contains("cannot be run (exit 127"))
        let aborting = try await reactorlog("bisect", demo, "--stream", "search", "--run", "exit 200")
        #expect(aborting.status == 7)
        #expect(aborting.error.contains("aborted with exit code 200"))
        let allGood = try await reactorlog("bisect", demo, "--stream", "search", "--run", "true")
        #expect(allGood.status == 7)
        #expect(allGood.error.contains("there is no bad state to find"))
    }

    /// Stream `name`'s lines in a listing with changes: each of its entries with the change lines under it.
    static func entries(of name: String, in listing: String) -> [Substring] {
        var kept: [Substring] = []
        var inStream = false
        for line in listing.split(separator: "\n") {
            if !line.hasPrefix(" ") { inStream = line.split(separator: " ").dropFirst(2).first == Substring(name) }
            if inStream { kept.append(line) }
        }
        return kept
    }

    @Test("log --changes prints under each mutation what it changed, as diff words it, with the listing's filters")
    func logChanges() async throws {
        let listed = try await reactorlog("log", demo, "--stream", "search", "--changes", "--from", "29", "--to", "32")
        #expect(listed.status == 0, "\(listed.error)")
        let lines = listed.output.split(separator: "\n").map { $0.hasPrefix(" ") ? $0.trimmingCharacters(in: .whitespaces) : String($0.dropFirst(13)) }
        #expect(lines == [
            "#29 search  action   loadNextPage",
            "#30 search    mutation setLoadingNextPage(true)", "~ isLoadingNextPage: false → true",
            "#31 search    mutation appendRepos([…10], nextPage: 2)", "+ repos[20...29]: 10 added (\"rx/repo-11\" … \"rx/repo-20\")",
            "#32 search    mutation setLoadingNextPage(false)", "~ isLoadingNextPage: true → false",
        ], "\(listed.output)")
        // Each change is the diff between the states around its mutation, whichever entries the filters keep.
        let filtered = try await reactorlog("log", demo, "--stream", "search", "--changes", "--case", "appendRepos", "--limit", "2")
        #expect(filtered.output.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map { $0.dropFirst(13).prefix(4) } == ["#13 ", "#17 "], "\(filtered.output)")
        #expect(filtered.output.contains("~ nextPage: 2 → 3"), "\(filtered.output)")
        let object = try json(try await reactorlog("log", demo, "--stream", "search", "--changes", "--from", "31", "--to", "31", "--json"))
        #expect((object["changes"] as? [[String: Any]])?.map { $0["path"] as? String } == (20...29).map { "repos[\($0)]" })
        #expect(object["changesSince"] == nil)
        // tail --changes keeps each stream's state as it goes, reducing one mutation at a time: the listing's changes.
        let whole = try await reactorlog("log", demo, "--stream", "search", "--changes")
        let tailed = try await reactorlog("tail", demo, "--stream", "search", "-n", "100", "--changes")
        #expect(tailed.status == 0 && tailed.output == whole.output, "\(tailed.output)\(tailed.error)")
        let everyStream = try await reactorlog("tail", demo, "-n", "100", "--changes")
        for name in ["todo", "counter"] {
            let listed = try await reactorlog("log", demo, "--stream", name, "--changes")
            let expected = Self.entries(of: name, in: listed.output)
            #expect(expected.count > 10 && Self.entries(of: name, in: everyStream.output) == expected, "\(name)")
        }
        // Without --stream, every stream's, each mutation's change in its own stream's state: what tail lists
        // (before 2026-12-02, refused with exit 2).
        let several = try await reactorlog("log", demo, "--changes")
        #expect(several.status == 0 && several.output == everyStream.output, "\(several.error)")
        // The filters keep the entries listed, not the states: each toggle's change is the one it made.
        let toggles = try await reactorlog("log", demo, "--changes", "--case", "toggle", "--kind", "mutation")
        #expect(toggles.lines.filter { $0.hasPrefix(" ") }.map { $0.trimmingCharacters(in: .whitespaces) }.prefix(2) == [
            "~ items[0].isDone: false → true", "~ items[1].isDone: false → true",
        ], "\(toggles.output)")
    }

    @Test("log --changes and tail --changes span a stretch retention removed with the change across it, with or without the reducer")
    func changesAcrossAGap() async throws {
        let path = scratch.file("gap.reactorlog")
        #expect(try await reactorlog("demo", "--out", path, "--actions", "2000", "--durability", "nosync").status == 0)
        do {
            let log = try EventLog.open(at: path)
            try log.removeEntries(1_000..<3_000)
            try log.close()
        }
        let gap = try #require(try EventLog.openReadOnly(at: path).gaps(stream: "counter").first?.removed)
        #expect(gap.lowerBound == 1_000)
        let whole = try await reactorlog("log", path, "--stream", "counter", "--changes")
        #expect(whole.status == 0, "\(whole.error)")
        let lines = whole.output.split(separator: "\n")
        let since = try #require(lines.firstIndex { $0.hasSuffix("since #1000 (the states between are not in the log):") }, "\(whole.output.prefix(3000))")
        // The first mutation after the gap, and the change from the state before the gap to the state after it.
        let after = try #require(Int(lines[since - 1].split(separator: " ")[1].dropFirst()))
        #expect(after > Int(gap.upperBound) && lines[since - 1].contains("mutation"), "\(lines[since - 1])")
        // tail, reducing from the state it keeps, rebuilds across the gap: the same listing.
        let tailed = try await reactorlog("tail", path, "--stream", "counter", "-n", "100000", "--changes")
        #expect(tailed.output == whole.output)

        // Without the reducer only recorded states are known: the first after a gap spans it from its start, also
        // when the state right before the gap was recorded.
        let recorded = scratch.file("gap-recorded.reactorlog")
        #expect(try await reactorlog("demo", "--out", recorded, "--actions", "2000", "--durability", "nosync").status == 0)
        let snapshot = try #require(try EventLog.openReadOnly(at: recorded).snapshotSequences(stream: "counter").first { $0 > 100 })
        do {
            let log = try EventLog.open(at: recorded)
            try log.removeEntries(snapshot + 1..<snapshot + 1_500)
            try log.close()
        }
        let generic = try await Tool.run("example-inspector", ["log", recorded, "--stream", "counter", "--changes"])
        #expect(generic.status == 0, "\(generic.error)")
        #expect(generic.output.contains("since #\(snapshot + 1) (the states between are not in the log):"), "\(generic.output.prefix(3000))")
    }

    @Test("log --changes and tail --changes list on past a damaged block, the states after it rebuilt where they can be")
    func changesPastDamage() async throws {
        let path = scratch.file("damaged-changes.reactorlog")
        #expect(try await reactorlog("demo", "--out", path, "--actions", "2000", "--durability", "nosync").status == 0)
        let healthy = try await reactorlog("log", path, "--stream", "counter", "--changes")
        // A byte of a block of entries near the middle, under its checksum: one whose next states are not recorded,
        // so that some are rebuilt through the damage.
        let snapshots = try EventLog.openReadOnly(at: path).snapshotSequences(stream: "counter")
        try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { LogDamage.blockBeforeUnreadableStates($0, snapshots: snapshots) }
        let listed = try await reactorlog("log", path, "--stream", "counter", "--changes")
        #expect(listed.status == 5 && listed.error.contains("left out, the rest listed"), "\(listed.error)")
        let left = try #require(listed.error.firstMatch(of: /#(\d+)…#\d+ were left out/), "\(listed.error)")
        // The entries are the ones log lists past the damage; each mutation's change is there until the damage, then
        // unknown until a state after it can be rebuilt, whose change spans the stretch left out; from there on, the
        // healthy log's.
        let plain = try await reactorlog("log", path, "--stream", "counter")
        #expect(listed.lines.filter { !$0.hasPrefix(" ") } == plain.lines)
        #expect(listed.output.contains("state not known: it would be rebuilt through entries that could not be read"))
        let since = try #require(listed.lines.firstIndex { $0.hasSuffix("since #\(left.1) (the states between are not in the log):") }, "\(listed.output)")
        // (The lines after "since" are the change across the stretch left out, which the healthy log has not.)
        let next = try #require(listed.lines[since...].firstIndex { !$0.hasPrefix(" ") })
        let rest = listed.lines[next...]
        #expect(rest.count > 100 && healthy.lines.suffix(rest.count).elementsEqual(rest))
        #expect(listed.lines.prefix(20).elementsEqual(healthy.lines.prefix(20)))
        // tail, keeping each stream's state as it goes, passes over the damage the same way.
        let tailed = try await reactorlog("tail", path, "--stream", "counter", "-n", "9000", "--changes")
        #expect(tailed.status == 5 && tailed.output == listed.output, "\(tailed.error)")
        // The JSON says why each state it has no change for is not known.
        let json = try await reactorlog("log", path, "--stream", "counter", "--changes", "--kind", "mutation", "--json")
        let reasons = try json.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            .map { ($0["stateUnknown"] as? String, $0["changes"] != nil) }
        #expect(json.status == 5 && reasons.contains { $0 == ("unreadable", false) } && !reasons.contains { $0 == ("notRecorded", false) })
        #expect(reasons.allSatisfy { ($0.0 == nil) == $0.1 }, "each mutation has its changes or the reason they are not known")
        // A bisect skips the states it cannot rebuild, answers, and names them (exit 5): here the test turns bad
        // inside the stretch left out, so they are the answer's candidates.
        let bisected = try await reactorlog("bisect", path, "--stream", "counter", "--run", "test \"$REACTORLOG_STEP\" -lt \(left.1)")
        #expect(bisected.status == 5, "\(bisected.error)")
        #expect(bisected.output.hasPrefix("Bisect could not narrow it down: skipped states leave the first bad step among #"), "\(bisected.output)")
        #expect(bisected.error.contains(/reactorlog: (\d+ states in #\d+…#\d+ were|the state at #\d+ was) skipped, rebuilt through entries that cannot be read: Entry #\d+ is corrupt/), "\(bisected.error)")
        // Without the reducer, the recorded states after the damage are known again: the first one's change spans the
        // stretch left out, from the last recorded state before it.
        let generic = try await Tool.run("example-inspector", ["log", path, "--stream", "counter", "--changes"])
        #expect(generic.status == 5 && generic.lines.filter { !$0.hasPrefix(" ") } == plain.lines, "\(generic.error)")
        let damaged = try #require(UInt64(left.1))
        let number = { (line: String) in line.split(separator: " ").dropFirst().first.flatMap { UInt64($0.dropFirst()) } }
        let past = try #require(generic.lines.firstIndex { !$0.hasPrefix(" ") && (number($0) ?? 0) > damaged })
        let across = try #require(generic.lines[past...].first { $0.contains("since #") }?.firstMatch(of: /since #(\d+)/))
        #expect(try #require(UInt64(across.1)) < damaged)
    }

    @Test("blame across a damaged block lists the changes on either side, and the value across each stretch it cannot know")
    func blamePastDamage() async throws {
        let path = scratch.file("damaged-blame.reactorlog")
        #expect(try await reactorlog("demo", "--out", path, "--actions", "2000", "--durability", "nosync").status == 0)
        // A change's line with its columns' padding taken out (the stretch's range widens the step column).
        let rows = { (result: Tool.Result) in result.lines.dropFirst().map { $0.split(separator: " ").joined(separator: " ") } }
        let step = { (row: String) in row.firstMatch(of: /#(\d+)\s/).flatMap { UInt64($0.1) } ?? 0 }
        let healthy = rows(try await reactorlog("blame", path, "value", "--stream", "counter"))
        let snapshots = try EventLog.openReadOnly(at: path).snapshotSequences(stream: "counter")
        let key = try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { LogDamage.blockBeforeUnreadableStates($0, snapshots: snapshots) }
        let damaged = key.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let blamed = try await reactorlog("blame", path, "value", "--stream", "counter")
        #expect(blamed.status == 5, "\(blamed.error)")
        // A stretch's line: its steps, and the value at its ends (one, said once, when they are equal).
        func stretches(_ result: Tool.Result) throws -> [(steps: ClosedRange<UInt64>, old: String, new: String)] {
            try rows(result).filter { $0.hasPrefix("- ") }.map { row in
                let match = try #require(row.firstMatch(of: /#(\d+)…#(\d+) not readable (\S+) (?:→ (\S+)|at both ends) \(the changes between are not known\)/))
                let steps = try #require(UInt64(match.1))...(try #require(UInt64(match.2)))
                return (steps, String(match.3), String(match.4 ?? match.3))
            }
        }
        // One stretch up to each state a snapshot inside the block holds (none may lie there), the first from the block's
        // first mutation of the stream (the damaged entry, or a later one where the block starts with an action).
        let across = try stretches(blamed)
        let (first, last) = (try #require(across.first?.steps.lowerBound), try #require(across.last?.steps.upperBound))
        #expect(first >= damaged && first <= damaged + 1, "the block starts at #\(damaged), the stretch at #\(first)")
        #expect(snapshots.contains(last), "the last stretch ends at the first state after the damage a snapshot rebuilds")
        #expect(across.dropLast().allSatisfy { snapshots.contains($0.steps.upperBound) }, "\(across.map(\.steps))")
        let more = across.count == 1 ? "" : across.count == 2 ? " (and 1 more stretch)" : " (and \(across.count - 1) more stretches)"
        let line = "The changes in #\(first)…#\(across[0].steps.upperBound)\(more) are not known, the rest listed: Entry #\(damaged) is corrupt"
        #expect(blamed.error.contains(line), "\(blamed.error)")
        // The healthy log's changes before the damage and after it, and between them the stretches, the value at each
        // end being the healthy log's there: no mutation lies between two stretches, so one's end is the next one's start.
        let before = healthy.filter { step($0) < first }, after = healthy.filter { step($0) > last }
        let value = { (row: String, side: Int) in row.firstMatch(of: /(\d+) → (\d+)/).map { side == 0 ? String($0.1) : String($0.2) } ?? "" }
        #expect(rows(blamed) == before + rows(blamed).filter { $0.hasPrefix("- ") } + after)
        #expect(across.map(\.old) == [value(before.last!, 1)] + across.dropLast().map(\.new) && across.last?.new == value(after.first!, 0))
        #expect(blamed.lines.first == "counter: value changed \(before.count + after.count) times where the log could be read")
        // The latest changes walk back across it too: those after it, the stretches, and the rest from before it.
        let latest = try await reactorlog("blame", path, "value", "--stream", "counter", "-n", "\(after.count + 2)")
        #expect(latest.status == 5 && rows(latest) == before.suffix(2) + rows(blamed).filter { $0.hasPrefix("- ") } + after, "\(latest.output)")
        // JSON has the same rows: the changes known, and in their place the stretches with the value at either end.
        let json = try await reactorlog("blame", path, "value", "--stream", "counter", "--json")
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(json.status == 5 && objects.compactMap { ($0["sequence"] as? Int).map { UInt64($0) } } == (before + after).map { step($0) })
        let stretch = try #require(objects.firstIndex { $0["unreadable"] != nil })
        let steps = try #require(objects[stretch]["unreadable"] as? [String: Any])
        #expect(stretch == before.count && steps["from"] as? Int == Int(first) && steps["through"] as? Int == Int(across[0].steps.upperBound))
        #expect((objects[stretch]["old"] as? Int).map(String.init) == value(before.last!, 1))
        #expect((objects[stretch + across.count - 1]["new"] as? Int).map(String.init) == value(after.first!, 0))
        #expect(objects[stretch]["oldUnknown"] == nil && objects[stretch]["newUnknown"] == nil)
        #expect((objects[stretch]["damage"] as? String)?.hasPrefix("Entry #\(damaged) is corrupt") == true)
        // From inside the first stretch, the value at its start is not known either.
        let fromInside = try await reactorlog("blame", path, "value", "--stream", "counter", "--from", "\(first + 1)", "--json")
        let head = try #require((try JSONSerialization.jsonObject(with: Data(fromInside.output.utf8)) as? [[String: Any]])?.first)
        #expect(fromInside.status == 5 && head["oldUnknown"] as? Bool == true && head["old"] == nil && head["new"] != nil)
        // A range inside it has nothing to list: the refusal names the steps that can be rebuilt, from the first state
        // the damage leaves unknown (the damaged entry's, or a later one where the block starts with an action).
        let inside = try await reactorlog("blame", path, "value", "--stream", "counter", "--from", "\(first + 1)", "--to", "\(across[0].steps.upperBound - 1)")
        let unknown = try #require(inside.error.firstMatch(of: /at #(\d+) is rebuilt through entries that cannot be read\. .* Pick a step before #(\d+), or from #(\d+) on/))
        #expect(inside.status == 5 && unknown.1 == unknown.2 && UInt64(unknown.2).map { $0 >= first } == true && unknown.3 == "\(last)", "\(inside.error)")
        // A second damaged block, in the last quarter: walking back, -n meets it first, yet the line names the first
        // stretch and its own damage.
        try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) {
            LogDamage.blockBeforeUnreadableStates(Array($0.suffix($0.count / 4)), snapshots: snapshots)
        }
        let twice = try await reactorlog("blame", path, "value", "--stream", "counter")
        let walkedBack = try await reactorlog("blame", path, "value", "--stream", "counter", "-n", "\(healthy.count)")
        let spans = try stretches(twice).map(\.steps)
        let prefix = "The changes in #\(first)…#\(across[0].steps.upperBound) (and \(spans.count - 1) more stretch"
        #expect(twice.error.contains(prefix) && walkedBack.error.contains(prefix), "\(twice.error)\n\(walkedBack.error)")
        #expect(twice.error.contains("are not known, the rest listed: Entry #\(damaged) is corrupt"), "\(twice.error)")
        #expect(spans.count > across.count && rows(walkedBack) == rows(twice))
        #expect(rows(twice).filter { !$0.contains("not readable") } == healthy.filter { row in !spans.contains { $0.contains(step(row)) } })
    }

    @Test("verify sums up what damage leaves unread: each stretch, its entries by stream, and the states it leaves unknown")
    func verifySumsUpDamage() async throws {
        let path = scratch.file("damaged-verify.reactorlog")
        #expect(try await reactorlog("demo", "--out", path, "--actions", "2000", "--durability", "nosync").status == 0)
        let healthy = try await reactorlog("log", path)
        #expect(try await reactorlog("verify", path, "--json").output.contains("unreadable") == false)
        let snapshots = try EventLog.openReadOnly(at: path).snapshotSequences(stream: "counter")
        try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { LogDamage.blockBeforeUnreadableStates($0, snapshots: snapshots) }
        let verified = try await reactorlog("verify", path, "--json")
        #expect(verified.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(verified.output.utf8)) as? [String: Any])
        let stretches = try #require(object["unreadable"] as? [[String: Any]])
        #expect(stretches.count == 1)
        let stretch = try #require(stretches.first), from = try #require(stretch["from"] as? Int), through = try #require(stretch["through"] as? Int)
        // The stretch is what `log` leaves out, and its entries are the ones missing from the listing.
        let listed = try await reactorlog("log", path)
        #expect(listed.error.contains("#\(from)…#\(through) were left out"), "\(listed.error)")
        #expect(stretch["entries"] as? Int == healthy.lines.count - listed.lines.count)
        let part = try #require((stretch["streams"] as? [[String: Any]])?.first)
        #expect(part["name"] as? String == "counter" && part["entries"] as? Int == stretch["entries"] as? Int)
        // Each span of states it names is exactly what time travel cannot rebuild: the step before and its end can be.
        let spans = try #require(part["statesUnknown"] as? [[String: Any]])
        #expect(!spans.isEmpty)
        let state = { (step: Int) in try await self.reactorlog("state", path, "--stream", "counter", "--at", "\(step)").status }
        for span in spans {
            let first = try #require(span["from"] as? Int), until = try #require(span["until"] as? Int)
            let statuses = [try await state(first - 1), try await state(first), try await state(until - 1), try await state(until)]
            #expect(statuses == [0, 5, 5, 0], "\(span)")
        }
        let text = try await reactorlog("verify", path)
        #expect(text.lines.contains { $0.hasPrefix("#\(from)…#\(through) cannot be read: \(stretch["entries"]!) entries of 'counter'; the states of 'counter' from #") })
        #expect(text.lines.last?.hasPrefix("Everything else can be read") == true, "\(text.output)")
    }

    @Test("bisect judges a state a snapshot inside a damaged block holds, its entry named as unreadable")
    func bisectJudgesInsideDamage() async throws {
        let path = scratch.file("held.reactorlog")
        #expect(try await reactorlog("demo", "--out", path, "--actions", "2000", "--durability", "nosync").status == 0)
        let snapshots = try EventLog.openReadOnly(at: path).snapshotSequences(stream: "counter")
        // A block with a snapshot well inside it: the states between the damage and it, and after it, are unknown.
        try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { keys in
            let firsts = keys.map { $0.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
            let index = (0..<firsts.count - 1).first { i in snapshots.contains { $0 > firsts[i] + 4 && $0 + 8 < firsts[i + 1] } }
            return keys[index ?? firsts.count / 2]
        }
        let verified = try json(try await reactorlog("verify", path, "--json"))
        let part = try #require(((verified["unreadable"] as? [[String: Any]])?.first?["streams"] as? [[String: Any]])?.first)
        let spans = try #require(part["statesUnknown"] as? [[String: Any]])
        #expect(spans.count == 2, "\(spans)")
        let held = try #require(spans.first?["until"] as? Int)
        // The state turns bad at the held one: bisect judges it (before, the command stopped when it described the
        // step, whose entry is in the damaged block), and the candidates end there.
        let bisected = try await reactorlog("bisect", path, "--stream", "counter", "--run", "test \"$REACTORLOG_STEP\" -lt \(held)")
        #expect(bisected.status == 5, "\(bisected.error)")
        #expect(bisected.error.contains("bisect: #\(held) bad   a recorded state, its entry in a block that cannot be read"), "\(bisected.error)")
        #expect(bisected.output.hasPrefix("Bisect could not narrow it down") && bisected.output.contains("#\(held)."), "\(bisected.output)")
    }

    @Test("a damaged last block: the final state the closed entry holds is known, and bisect ends there by default")
    func finalStatePastDamage() async throws {
        let path = scratch.file("last-block.reactorlog")
        #expect(try await reactorlog("demo", "--out", path, "--actions", "2000", "--durability", "nosync").status == 0)
        let last = try #require(try EventLog.openReadOnly(at: path).sequences(stream: "counter", kinds: [.mutation], from: 1, through: .max).last)
        let healthy = try await reactorlog("state", path, "--stream", "counter", "--at", "\(last)")
        // The block holding the last mutation: on a loaded host the demo's last commit may hold the closed entry alone.
        try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { keys in
            keys.last { $0.reduce(0) { $0 << 8 | UInt64($1) } <= last } ?? keys[keys.count - 1]
        }
        // Before, the state after the last mutation was refused, and with it bisect's default end.
        let state = try await reactorlog("state", path, "--stream", "counter", "--at", "\(last)")
        #expect(state.status == 0 && state.output == healthy.output, "\(state.error)")
        let verified = try await reactorlog("verify", path)
        // The states unknown end before the last mutation's, which the closed entry's snapshot holds: "… to #N" when the
        // damaged block starts earlier, "at #N" when it starts there; when it starts at the last mutation itself, no
        // state depends on it. Where the block starts depends on the commits the demo made (smaller on a loaded host).
        let match = try #require(verified.output.firstMatch(of: /the first bad entry is #(\d+)/))
        let firstBad = try #require(UInt64(match.1))
        let unknownEnd = firstBad < last ? ["to", "at"].map { "\($0) #\(last - 1) cannot be rebuilt." } : ["no state depends on them."]
        #expect(unknownEnd.contains { verified.output.contains($0) }, "\(verified.output)")
        let bisected = try await reactorlog("bisect", path, "--stream", "counter", "--run", "test \"$REACTORLOG_STEP\" -lt 5000")
        #expect(bisected.status == 0 && bisected.output.hasPrefix("First bad step: #5000"), "\(bisected.error)")
        #expect(bisected.error.contains("bisect: #\(last) bad   a recorded state, its entry in a block that cannot be read"), "\(bisected.error)")
        // With that snapshot damaged too, as if the app had crashed, no state after the damage is known: the bisect
        // ends at the last state before it, the last one skipped.
        try LogDamage.flipByte(of: path, database: "snapshots", mask: 0x40) { $0[$0.count - 1] }
        // The damage is named at the block's first entry; the unknown states start at its first mutation, which is
        // another when the block starts with an action (block boundaries follow the recording's clock).
        let stretch = try #require(try EventLog.openReadOnly(at: path).verify().unreadable.first)
        let spans = try #require(stretch.streams.first?.statesUnknown)
        let (block, damaged) = (stretch.entries.lowerBound, try #require(spans.last?.lowerBound))
        #expect(spans.last?.upperBound == .max)
        let crashed = try await reactorlog("bisect", path, "--stream", "counter", "--run", "test \"$REACTORLOG_STEP\" -lt 5000")
        #expect(crashed.status == 5 && crashed.output.hasPrefix("First bad step: #5000"), "\(crashed.error)")
        #expect(crashed.error.hasSuffix("The state at #\(last) was skipped, rebuilt through entries that cannot be read: Entry #\(block) is corrupt: its block's checksum does not match its contents (the block of entries from it). Run `reactorlog verify` to find every damaged entry.\n"), "\(crashed.error)")
        let good = try await reactorlog("bisect", path, "--stream", "counter", "--run", "test \"$REACTORLOG_STEP\" -lt \(last)")
        #expect(good.status != 0 && good.error.contains(", the last that can be rebuilt before the damage, is good: if it went bad, a mutation in #\(damaged)…#\(last) did it"), "\(good.error)")
    }

    @Test("pack and export of a damaged range refuse, naming the ranges on either side of the damage that pack, and compact")
    func packOfADamagedLog() async throws {
        let path = scratch.file("damaged-pack.reactorlog")
        #expect(try await reactorlog("demo", "--out", path, "--actions", "2000", "--durability", "nosync").status == 0)
        try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { $0[$0.count / 2] }
        let out = scratch.file("bug.pack")
        let refused = try await reactorlog("pack", path, "--out", out)
        #expect(refused.status == 5 && !FileManager.default.fileExists(atPath: out), "\(refused.error)")
        let damaged = try #require(refused.error.firstMatch(of: /Entry #(\d+) is corrupt/).flatMap { Int($0.1) }, "\(refused.error)")
        let after = try #require(refused.error.firstMatch(of: /--from (\d+)/).flatMap { Int($0.1) }, "\(refused.error)")
        #expect(after > damaged)
        #expect(refused.error.hasSuffix(
            "A pack holds every entry of its range and each stream's state before it: pack the entries before the damage (--to \(damaged - 1)) or after it (--from \(after)), or copy the whole log, damage and all, with `reactorlog compact LOG COPY`.\n"),
            "\(refused.error)")
        let export = try await reactorlog("export", path)
        #expect(export.status == 5 && export.error.contains("export the entries before the damage (--to \(damaged - 1)) or after it (--from \(after))"), "\(export.error)")
        // Both ranges the hint names pack, and open with the original's states.
        let packed = try await reactorlog("pack", path, "--to", "\(damaged - 1)", "--out", out)
        #expect(packed.status == 0, "\(packed.error)")
        #expect(try await reactorlog("state", out, "--at", "\(damaged - 1)").output == (try await reactorlog("state", path, "--at", "\(damaged - 1)").output))
        let later = scratch.file("later.pack")
        let packedAfter = try await reactorlog("pack", path, "--from", "\(after)", "--out", later)
        #expect(packedAfter.status == 0, "\(packedAfter.error)")
        let last = try EventLog.openReadOnly(at: path).highestSequence()
        #expect(try await reactorlog("state", later, "--at", "\(last)").output == (try await reactorlog("state", path, "--at", "\(last)").output))
        // It is the first such step: from the one before, the state it starts from is rebuilt through the damage.
        let early = try await reactorlog("pack", path, "--from", "\(after - 1)", "--out", scratch.file("early.pack"))
        #expect(early.status == 5 && early.error.contains("pack the entries after the damage (--from \(after)), or copy"), "\(early.error)")
        // Without the reducer (example-inspector knows only the search reactor) an export starts from a recorded state:
        // from the snapshot after the damage, which is the step the hint names, unless a snapshot lies inside the
        // damaged block (1 run in about 40: blocks follow the recording's clock), which holds the state the reducer
        // goes on from sooner. Then this inspector's own hint names the later step, which packs.
        let generic = try await Tool.run("example-inspector", ["pack", path, "--from", "\(after)", "--out", scratch.file("generic.pack")])
        if generic.status != 0 {
            let own = try #require(generic.error.firstMatch(of: /--from (\d+)/).flatMap { Int($0.1) }, "\(generic.error)")
            #expect(generic.status == 5 && own > after, "\(generic.error)")
            let packed = try await Tool.run("example-inspector", ["pack", path, "--from", "\(own)", "--out", scratch.file("generic.pack")])
            #expect(packed.status == 0, "\(packed.error)")
        }
    }

    @Test("with the stream index damaged over a damaged block too, no state is shown that may be wrong, and the range the pack hint names packs")
    func indexAndEntriesDamaged() async throws {
        let path = scratch.file("both-damaged.reactorlog")
        #expect(try await reactorlog("demo", "--out", path, "--actions", "2000", "--durability", "nosync").status == 0)
        let truth = try await reactorlog("log", path, "--stream", "counter", "--json")
        let key = try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { $0[$0.count / 2] }
        let damaged = key.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(try LogDamage.damageIndexBlocks(over: damaged, in: path) >= 1)
        // Verify names the states that cannot be rebuilt, though the index cannot say whose entries were lost.
        let stretch = try #require(try EventLog.openReadOnly(at: path).verify().unreadable.first)
        let part = try #require(stretch.streams.first { $0.stream == "counter" })
        // The spans run from the stretch's start (or the step after a snapshot there) to a snapshot after it; a snapshot
        // that can be read inside the stretch holds its own step's state, which splits them.
        let spans = part.statesUnknown
        #expect(part.entries == nil && !spans.isEmpty && spans[0].lowerBound <= stretch.entries.lowerBound + 1, "\(part)")
        let end = try #require(spans.last?.upperBound)
        // Every step of the spans is refused (before, each showed the state of the snapshot after the damage).
        let lines = truth.output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let steps = lines.compactMap { $0["sequence"] as? Int }.map(UInt64.init).filter { step in spans.contains { $0.contains(step) } }
        try #require(!steps.isEmpty)
        for step in [steps.first!, steps[steps.count / 2], steps.last!] {
            let state = try await reactorlog("state", path, "--stream", "counter", "--at", "\(step)")
            #expect(state.status == 5 && state.error.contains("or from #\(end) on"), "#\(step): \(state.status) \(state.output)")
        }
        // The hint's range packs (before, its start state was looked for through the damage, and the hint named
        // the step it had just refused).
        let refused = try await reactorlog("pack", path, "--out", scratch.file("refused.pack"))
        let after = try #require(refused.error.firstMatch(of: /--from (\d+)/).flatMap { UInt64($0.1) }, "\(refused.error)")
        #expect(refused.status == 5 && after > end, "\(refused.error)")
        let later = scratch.file("later.pack")
        let packed = try await reactorlog("pack", path, "--from", "\(after)", "--out", later)
        // (Exit 5 only where actions' call sites, kept in the damaged index blocks alone, were left out.)
        #expect(packed.output.hasPrefix("Packed ") && (packed.status == 0 || packed.error.contains("call sites were left out")), "\(packed.error)")
        let last = try EventLog.openReadOnly(at: path).highestSequence()
        #expect(try await reactorlog("state", later, "--stream", "counter", "--at", "\(last)").output
                == (try await reactorlog("state", path, "--stream", "counter", "--at", "\(last)").output))
        // A bug inside the span: bisect names the stretch among the candidates, its steps as one range, from its start
        // or from after a snapshot inside it that holds a good state (judged).
        // A mutation's step, where a state can first be bad (the stream's actions change no state: an action's step
        // would be no candidate, and picking one failed this test now and then, as the damage's span moved).
        let mutations = Set(lines.filter { $0["kind"] as? String == "mutation" }.compactMap { $0["sequence"] as? Int }.map(UInt64.init))
        let inSpan = steps.filter(mutations.contains)
        let bug = try #require(inSpan.isEmpty ? nil : inSpan[inSpan.count / 2])
        let bisect = try await reactorlog("bisect", path, "--stream", "counter", "--run", "test \"$REACTORLOG_STEP\" -lt \(bug)")
        let prefix = "Bisect could not narrow it down: skipped states leave the first bad step among "
        let answer = try #require(bisect.output.split(separator: "\n").first.map(String.init), "\(bisect.error)")
        #expect(bisect.status == 5 && answer.hasPrefix(prefix), "\(bisect.output)\(bisect.error)")
        let ranges = answer.dropFirst(prefix.count).matches(of: /#(\d+)(?:…#(\d+))?/).compactMap { match in
            UInt64(match.1).map { first in first...(match.2.flatMap { UInt64($0) } ?? first) }
        }
        let first = try #require(ranges.first?.lowerBound)
        #expect(ranges.contains { $0.contains(bug) }, "\(answer)")
        let goodInside = bisect.error.matches(of: /bisect: #(\d+) good  a recorded state, its entry in a block that cannot be read/).compactMap { UInt64($0.1) }
        #expect(first == stretch.entries.lowerBound || goodInside.contains { $0 >= stretch.entries.lowerBound && $0 < first }, "\(answer)\n\(bisect.error)")
    }

    @Test("a snapshot inside a damaged block whose index is damaged too holds its step's state: verify and state agree on the steps around it")
    func snapshotInsideDamagedBlock() async throws {
        let path = scratch.file("snapshot-inside.reactorlog")
        #expect(try await reactorlog("demo", "--out", path, "--actions", "2000", "--durability", "nosync").status == 0)
        let (snapshots, mutations) = try {
            let log = try EventLog.openReadOnly(at: path)
            return (try log.snapshotSequences(stream: "counter"), try log.sequences(stream: "counter", kinds: [.mutation], from: 1, through: .max))
        }()
        // A block holding a counter snapshot after its first entry, and a counter mutation after the snapshot.
        var chosen: (snapshot: UInt64, next: UInt64)?
        let key = try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { keys in
            let starts = keys.map { $0.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
            for index in starts.indices.dropLast() {
                let (start, next) = (starts[index], starts[index + 1])
                if let held = snapshots.first(where: { $0 > start && $0 < next }), mutations.contains(where: { $0 > held && $0 < next }) {
                    chosen = (held, next)
                    return keys[index]
                }
            }
            return keys[0]
        }
        let (held, next) = try #require(chosen)
        let truth = try await reactorlog("state", path, "--stream", "counter", "--at", "\(held)")
        try LogDamage.damageIndexBlocks(over: key.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, in: path)
        let part = try #require(try EventLog.openReadOnly(at: path).verify().unreadable.first?.streams.first { $0.stream == "counter" })
        let spans = part.statesUnknown
        let end = try #require(spans.last?.upperBound)
        // Before, verify named the snapshot's step among the unknown ones, which `state` showed.
        #expect(part.entries == nil && !spans.contains { $0.contains(held) } && spans.contains { $0.contains(held + 1) }, "\(spans)")
        let shown = try await reactorlog("state", path, "--stream", "counter", "--at", "\(held)")
        #expect(shown.status == 0 && shown.output == truth.output, "\(shown.error)")
        let after = try #require(mutations.first { $0 >= next })
        for step in [held + 1, next - 1, after] {
            let state = try await reactorlog("state", path, "--stream", "counter", "--at", "\(step)")
            #expect(state.status == 5 && state.error.contains("or from #\(end) on") && spans.contains { $0.contains(step) }, "#\(step): \(state.status) \(state.output)")
        }
    }

    @Test("a block whose key is damaged out of the tree's order costs only its entries: listings, lookups, verify and pack go on")
    func keyOutOfPlace() async throws {
        let path = scratch.file("moved-key.reactorlog")
        #expect(try await reactorlog("demo", "--out", path, "--actions", "2000", "--durability", "nosync").status == 0)
        let healthy = try await reactorlog("log", path), healthyStream = try await reactorlog("log", path, "--stream", "counter")
        let key = try LogDamage.moveKeyInFile(of: path) { $0[$0.count / 2] }
        let first = key.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        // Seeks for the numbers after it land on it: it used to end every listing there, naming only the damaged key's
        // number as left out. Now the block's own numbers are left out, and everything else is listed.
        let listed = try await reactorlog("log", path)
        let stretch = try #require(listed.error.firstMatch(of: /#(\d+)…#(\d+) were left out, the rest listed/), "\(listed.error)")
        let (from, through) = (try #require(UInt64(stretch.1)), try #require(UInt64(stretch.2)))
        #expect(listed.status == 5 && from == first && through > first)
        let number = { (line: String) in line.firstMatch(of: /#(\d+)/).flatMap { UInt64($0.1) } ?? 0 }
        #expect(listed.lines == healthy.lines.filter { !(from...through).contains(number($0)) })
        #expect(listed.lines.count == healthy.lines.count - Int(through - from + 1))
        // A range that holds some of its numbers: the scan met the damaged key above the range's end and stopped there
        // in silence, exit 0, leaving out the rest of the range too. Now the block is named, as far as the range goes,
        // and the rest listed.
        for end in [first + 2, through + 20] {
            let ranged = try await reactorlog("log", path, "--from", "\(first - 2)", "--to", "\(end)")
            #expect(ranged.status == 5 && ranged.error.contains("#\(from)…#\(min(through, end)) were left out, the rest listed"), "\(ranged.error)")
            #expect(ranged.lines == healthy.lines.filter { (first - 2...end).contains(number($0)) && !(from...through).contains(number($0)) })
        }
        // Through the stream's index, each entry looked up by its number: the same.
        let stream = try await reactorlog("log", path, "--stream", "counter")
        #expect(stream.status == 5 && stream.error.contains("#\(from)…#\(through) were left out"), "\(stream.error)")
        #expect(stream.lines == healthyStream.lines.filter { !(from...through).contains(number($0)) })
        let verified = try await reactorlog("verify", path)
        #expect(verified.lines.contains { $0.hasPrefix("#\(from)…#\(through) cannot be read: \(through - from + 1) entries of 'counter'") }, "\(verified.output)")
        // The pack's hint names the ranges on either side of the block, and both pack.
        let refused = try await reactorlog("pack", path, "--out", scratch.file("moved.pack"))
        let after = try #require(refused.error.firstMatch(of: /the damage \(--to (\d+)\) or after it \(--from (\d+)\)/), "\(refused.error)")
        #expect(after.1 == "\(from - 1)")
        for range in [["--to", String(after.1)], ["--from", String(after.2)]] {
            let packed = try await Tool.run(["pack", path, "--out", scratch.file("moved\(range[0]).pack")] + range)
            #expect(packed.status == 0, "\(range): \(packed.error)")
        }
        // A listing that starts after the block, where a seek may land before the damaged key, never meets it.
        let later = try await reactorlog("log", path, "--from", "\(through + 20)")
        #expect(later.status == 0 && later.lines == healthy.lines.filter { number($0) >= through + 20 }, "\(later.error)")
        // The last block's key moved up stays in order, but is not the number its block records: the same, the block
        // named by the numbers it records.
        let lastPath = scratch.file("moved-last-key.reactorlog")
        #expect(try await reactorlog("demo", "--out", lastPath, "--actions", "2000", "--durability", "nosync").status == 0)
        let listings = [["log", lastPath], ["log", lastPath, "--stream", "counter"]]
        var whole: [[String]] = []
        for arguments in listings { whole.append(try await Tool.run(arguments).lines) }
        let lastKey = try LogDamage.moveKeyInFile(of: lastPath) { $0[$0.count - 1] }
        let lastFirst = lastKey.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let lastNumber = number(try #require(whole[0].last))
        // The last commit may have made a block of one entry (the closed marker alone).
        let leftOut = lastFirst == lastNumber ? "#\(lastFirst) was left out" : "#\(lastFirst)…#\(lastNumber) were left out"
        for (arguments, lines) in zip(listings, whole) {
            let result = try await Tool.run(arguments)
            #expect(result.status == 5 && result.error.contains(leftOut), "\(result.error)")
            #expect(result.lines == lines.filter { number($0) < lastFirst })
        }
        // Blame met the damage named by the moved key, far past the range it blamed, and split its range there again
        // and again until the stack ran out (SIGSEGV): now it names the damage, exit 5, or lists what it can.
        for arguments in [["blame", lastPath, "value"], ["blame", lastPath, "value", "-n", "2"], ["blame", path, "value"]] {
            let blamed = try await Tool.run(arguments)
            #expect(!blamed.crashed && [0, 5].contains(blamed.status), "\(arguments): \(blamed.status) \(blamed.error)")
            #expect(blamed.error.split(separator: "\n").count <= 1, "\(arguments): \(blamed.error)")
        }
    }

    @Test("the first block's key raised by a bad bit: a listing from a number after the block starts at that number, and tail shows the last entries")
    func firstKeyRaised() async throws {
        let path = scratch.file("first-key.reactorlog")
        #expect(try await reactorlog("demo", "--out", path).status == 0)
        let healthy = try await reactorlog("log", path)
        try LogDamage.moveKeyInFile(of: path) { $0[0] }
        let listed = try await reactorlog("log", path)
        let stretch = try #require(listed.error.firstMatch(of: /#1…#(\d+) were left out, the rest listed/), "\(listed.error)")
        let through = try #require(Int(stretch.1))
        let number = { (line: String) in line.firstMatch(of: /#(\d+)/).flatMap { Int($0.1) } ?? 0 }
        // LMDB's search of a leaf whose first key sorts above the rest landed on that key, and found nothing before it:
        // the entries from the number were read from the log's second record, the ones below the number included, with
        // exit 0 (`tail -n 5` listed 42 entries of the demo log's 73). Found by the time-travel flip sweep.
        let tail = try await reactorlog("tail", path, "-n", "5")
        #expect(tail.status == 0 && tail.lines == Array(healthy.lines.suffix(5)), "\(tail.lines)")
        for range in [["--from", "\(through + 8)"], ["--from", "\(through + 8)", "--to", "\(through + 12)"]] {
            let ranged = try await Tool.run(["log", path] + range)
            let end = range.count > 2 ? through + 12 : .max
            #expect(ranged.status == 0 && ranged.lines == healthy.lines.filter { (through + 8...end).contains(number($0)) }, "\(range): \(ranged.lines)")
        }
        // A range that starts inside the block names what it leaves out, as before.
        let inside = try await reactorlog("log", path, "--from", "\(through - 1)", "--to", "\(through + 2)")
        #expect(inside.status == 5 && inside.error.contains("#\(through - 1)…#\(through) were left out, the rest listed"), "\(inside.error)")
        #expect(inside.lines == healthy.lines.filter { (through + 1...through + 2).contains(number($0)) })
    }

    @Test("blame across a raised block whose stream's states a snapshot in it still gives: the changes unknown up to that snapshot, its value known")
    func raisedBlockStatesKnown() async throws {
        let path = scratch.file("last-key.reactorlog")
        #expect(try await reactorlog("demo", "--out", path).status == 0)
        let search = try await reactorlog("log", path, "--stream", "search")
        let number = { (line: String) in line.firstMatch(of: /#(\d+)/).flatMap { UInt64($0.1) } ?? 0 }
        let key = try LogDamage.moveKeyInFile(of: path) { $0[$0.count - 1] }
        let first = key.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        // The demo's last block holds the search stream's last mutation and its closing entry, whose snapshot holds
        // the stream's last state: every state is known, the last mutation's change is not.
        let last = number(try #require(search.lines.last))
        try #require(first <= last, "the last block starts at #\(first), after the search stream's last entry #\(last)")
        let blamed = try await reactorlog("blame", path, "nextPage", "--stream", "search")
        // Before 2026-12-06: "#32 and every entry after it … 2 → ?", as if no state after the block were known.
        #expect(blamed.status == 5 && blamed.error.contains("The changes in #\(first)…#\(last) are not known, the rest listed"), "\(blamed.error)")
        #expect(blamed.lines.last?.contains("#\(first)…#\(last)") == true && blamed.lines.last?.contains("at both ends") == true, "\(blamed.output)")
        let state = try await reactorlog("state", path, "--stream", "search", "--at", "\(last)", "--path", "nextPage")
        #expect(state.status == 0 && blamed.lines.last?.contains("\(state.output.trimmingCharacters(in: .whitespacesAndNewlines)) at both ends") == true)
    }

    @Test("info counts a stream's snapshots past a key that cannot be read (a zeroed node), and names the damage, exit 5")
    func snapshotKeyDamaged() async throws {
        let path = scratch.file("snapshot-key.reactorlog")
        #expect(try await reactorlog("demo", "--out", path).status == 0)
        let sound = try await reactorlog("info", path)
        try LogDamage.zeroNodeInFile(of: path, database: "snapshots") { $0[$0.count / 2] }
        // Found by the zeroed-page sweep: info showed one snapshot fewer, exit 0, with no word of damage.
        let info = try await reactorlog("info", path)
        #expect(info.status == 5 && info.error.contains(" whose keys are damaged") && info.error.contains(" were left out, the rest shown: The snapshot keys of stream id 1 are damaged: "), "\(info.error)")
        // The list's search starts at the stream's start (before 2026-12-06 worded `a search for #0`).
        #expect(info.error.contains("a key where a search from the stream's start lands is 0 bytes, not 12"), "\(info.error)")
        #expect(info.error.filter { $0 == "\n" }.count == 1 && info.lines.count == sound.lines.count)
        let json = try await reactorlog("info", path, "--json")
        #expect(json.status == 5 && json.error == info.error)
    }

    @Test("a key of the entries' branch pages raised by a bad bit: lookups by number still find the entries, and verify names it")
    func branchKeyRaised() async throws {
        let path = scratch.file("branch-key.reactorlog")
        #expect(try await reactorlog("demo", "--out", path, "--actions", "2000", "--durability", "nosync").status == 0)
        let clean = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb")))
        // The entries' tree is the one whose branch pages hold keys of 8 bytes; a middle node's key gets bit 27 set, so
        // that LMDB's search for the numbers of that node's leaf goes to the leaf before. Pages a commit freed hold such
        // keys too: the first page whose change verify sees is the tree's.
        func u16(_ at: Int) -> Int { Int(clean[at]) | Int(clean[at + 1]) << 8 }
        var found = false
        for page in 2..<clean.count / 4096 where !found && clean[page * 4096 + 10] & 0x01 != 0 {
            let base = page * 4096, count = (u16(base + 12) - 16) / 2
            guard count >= 4 else { continue }
            let node = base + u16(base + 16 + 2 * (count / 2))
            guard u16(node + 6) == 8 else { continue }
            let first = clean[(node + 8)..<(node + 16)].reduce(0) { $0 << 8 | UInt64($1) }
            try Data(clean).write(to: URL(fileURLWithPath: path + "/data.mdb"))
            let sound = try await reactorlog("show", path, "\(first + 5)")
            var data = clean
            data[node + 12] ^= 0x08
            try Data(data).write(to: URL(fileURLWithPath: path + "/data.mdb"))
            let verified = try await reactorlog("verify", path)
            guard verified.status == 1 else { continue }
            found = true
            #expect(verified.output.contains("lands on #\(first): a key of the entries' branch pages is damaged"), "\(verified.output)")
            // Before, `show` said the log had no such entry (exit 2), and verify said OK.
            let shown = try await reactorlog("show", path, "\(first + 5)")
            #expect(shown.status == 0 && shown.output == sound.output, "\(shown.output)\(shown.error)")
        }
        #expect(found)
    }

    @Test("bisect --replay repeats a session from its probe lines or its JSON; --run judges only the steps it lacks")
    func bisectReplay() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tools/scripts/unique-repos.py").path
        let found = try await reactorlog("bisect", demo, "--stream", "search", "--run", "python3 \(script)")
        let session = scratch.file("session.txt")
        try found.error.write(toFile: session, atomically: true, encoding: .utf8)
        // A judge that would stop the bisect (exit 200) shows that no verdict came from it.
        let replayed = try await reactorlog("bisect", demo, "--stream", "search", "--replay", session, "--run", "exit 200")
        #expect(replayed.status == 0, "\(replayed.error)")
        #expect(replayed.output == found.output)
        #expect(replayed.error.hasPrefix("bisect: replaying 7 verdicts from \(session)\n"), "\(replayed.error)")
        #expect(replayed.error.hasSuffix(found.error), "the same probes, printed as a fresh bisect prints them")

        // A verdict corrected by hand changes the answer; the judge is not asked.
        let corrected = scratch.file("corrected.txt")
        try found.error.replacingOccurrences(of: "bisect: #31 bad ", with: "bisect: #31 good").write(toFile: corrected, atomically: true, encoding: .utf8)
        let moved = try await reactorlog("bisect", demo, "--stream", "search", "--replay", corrected)
        #expect(moved.status == 0, "\(moved.error)")
        #expect(moved.output.contains("First bad step: #32 in stream search"))

        // A step the session lacks: judged by --run when given, else the bisect stops naming it.
        let partial = scratch.file("partial.txt")
        try found.error.split(separator: "\n").filter { !$0.hasPrefix("bisect: #17 ") }.joined(separator: "\n").write(toFile: partial, atomically: true, encoding: .utf8)
        let lacking = try await reactorlog("bisect", demo, "--stream", "search", "--replay", partial)
        #expect(lacking.status == 7)
        #expect(lacking.error.hasSuffix("reactorlog: \(partial) has no verdict for #17, which this bisect needs. Add --run to judge the steps it lacks.\n"), "\(lacking.error)")
        let directory = try await reactorlog("bisect", demo, "--stream", "search", "--replay", demo)
        #expect(directory.status == 2 && directory.error.contains("\(demo) is a directory, not a bisect session"), "\(directory.error)")
        let completed = try await reactorlog("bisect", demo, "--stream", "search", "--replay", partial, "--run", "python3 \(script)")
        #expect(completed.output == found.output)

        // Saved with Windows line endings, the session reads the same.
        let crlf = scratch.file("session-crlf.txt")
        try found.error.replacingOccurrences(of: "\n", with: "\r\n").write(toFile: crlf, atomically: true, encoding: .utf8)
        #expect(try await reactorlog("bisect", demo, "--stream", "search", "--replay", crlf).output == found.output)

        // The --json output replays too.
        let jsonFile = scratch.file("session.json")
        try await reactorlog("bisect", demo, "--stream", "search", "--run", "python3 \(script)", "--json").output.write(toFile: jsonFile, atomically: true, encoding: .utf8)
        let fromJSON = try await reactorlog("bisect", demo, "--stream", "search", "--replay", jsonFile)
        #expect(fromJSON.output == found.output)
    }

    @Test("divergence replays with the known reducer; the generic inspector says it needs one")
    func divergence() async throws {
        let same = try await reactorlog("divergence", demo, "--stream", "todo")
        #expect(same.status == 0)
        #expect(same.output.contains("Replay reproduces every state"))
        let generic = try await Tool.run("example-inspector", ["divergence", demo, "--stream", "todo"])
        #expect(generic.status == 6)
        #expect(generic.error.contains("needs the reducer"))
        let known = try await Tool.run("example-inspector", ["state", demo, "--stream", "search", "--at", "29", "--path", "repos.count"])
        #expect(known.output == "20\n")
    }

    @Test("divergence of a stream that recorded no state after its start says nothing was checked, exit 6, where it said replay reproduced every state")
    func divergenceWithNothingToCompare() async throws {
        /// The demo log (`--stream` S, when given) without its snapshots, imported into a log named `name`.
        func withoutSnapshots(_ name: String, stream: String? = nil) async throws -> String {
            let export = scratch.file(name + ".jsonl")
            #expect(try await Tool.run(["export", demo, "--out", export] + (stream.map { ["--stream", $0] } ?? [])).status == 0)
            let lines = try String(contentsOfFile: export, encoding: .utf8).split(separator: "\n")
            #expect(lines.contains { $0.hasPrefix(#"{"snapshot""#) })
            try (lines.filter { !$0.hasPrefix(#"{"snapshot""#) }.joined(separator: "\n") + "\n").write(toFile: export, atomically: true, encoding: .utf8)
            let path = scratch.file(name + ".reactorlog")
            #expect(try await reactorlog("import", export, path).status == 0)
            return path
        }
        // The demo's counter stream without its snapshots: a short session whose log closed before its reactor.
        let path = try await withoutSnapshots("counter", stream: "counter")
        let last = try #require(try await reactorlog("info", path, "--json").output.firstMatch(of: /"last" : (\d+)/).flatMap { Int($0.1) })
        let result = try await reactorlog("divergence", path)
        #expect(result.status == 6 && result.output.isEmpty, "\(result.output)")
        #expect(result.error == "reactorlog: Stream 'counter' recorded no state after #0 through #\(last) to compare replay with, so nothing was checked. Record snapshots more often (the log's snapshot policy), or check a log that has them: `reactorlog info` counts each stream's.\n", "\(result.error)")
        let json = try self.json(try await reactorlog("divergence", path, "--json"))
        #expect(json["compared"] as? Int == 0 && json["diverges"] as? Bool == false)
        #expect((json["uncompared"] as? [String: Int]) == ["from": 0, "through": last], "\(json)")
        // The demo log's stream, with its snapshots: compared.
        let compared = try self.json(try await reactorlog("divergence", demo, "--stream", "counter", "--json"))
        #expect((compared["compared"] as? Int ?? 0) > 0 && compared["uncompared"] == nil, "\(compared)")
        // Every stream of the demo without its snapshots: a line each, and one error naming them all.
        let streams = try await withoutSnapshots("streams")
        let all = try await reactorlog("divergence", streams)
        #expect(all.status == 6, "\(all.error)")
        #expect(all.lines.map { String($0.prefix { $0 != ":" }) } == ["search", "todo", "counter"], "\(all.output)")
        #expect(all.lines.allSatisfy { $0.hasSuffix(" to compare replay with: nothing was checked.") }, "\(all.output)")
        #expect(all.error.hasPrefix("reactorlog: Streams search, todo, counter recorded no state after their start to compare replay with, so nothing was checked there."), "\(all.error)")
    }

    @Test("divergence in a damaged log compares every recorded state it can, names the steps damage left unchecked, and exits 5")
    func divergencePastDamage() async throws {
        let path = scratch.file("damaged-divergence.reactorlog")
        #expect(try await reactorlog("demo", "--out", path, "--actions", "2000", "--durability", "nosync").status == 0)
        let entryKey = try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { $0[$0.count / 2] }
        let damaged = entryKey.suffix(8).reduce(0) { $0 << 8 | UInt64($1) }
        // Before, the first damage ended the command with no answer: `The state of 'counter' at #… is rebuilt through
        // entries that cannot be read`.
        let result = try await reactorlog("divergence", path, "--stream", "counter")
        #expect(result.status == 5, "\(result.error)")
        let stretch = try #require(result.output.firstMatch(of: /^Replay reproduces every recorded state it could check; #(\d+)…#(\d+) could not be checked.\n$/), "\(result.output)")
        let (first, last) = (try #require(UInt64(stretch.1)), try #require(UInt64(stretch.2)))
        #expect((first...last).contains(damaged))
        #expect(result.error.hasPrefix("reactorlog: #\(first)…#\(last) could not be checked, the rest compared: Entry #\(damaged) is corrupt: "), "\(result.error)")
        let json = try self.json(try await reactorlog("divergence", path, "--stream", "counter", "--json"))
        #expect(json["diverges"] as? Bool == false)
        #expect((json["unchecked"] as? [[String: Any]])?.map { [$0["from"] as? Int, $0["through"] as? Int] } == [[Int(first), Int(last)]])
        // Every stream (here one): the same answer.
        let all = try await reactorlog("divergence", path)
        #expect(all.status == 5 && all.output == result.output && all.error == result.error, "\(all.output)\(all.error)")
    }

    @Test("what-if shows the state without a mutation, or without an action's mutations, and refuses what changes no state")
    func whatIf() async throws {
        // The planted bug: #31 appended page 2 of "rx" a second time.
        let without = try await reactorlog("what-if", demo, "--skip", "31")
        #expect(without.status == 0, "\(without.error)")
        #expect(without.lines == [
            "search at #33 without #31 appendRepos([…10], nextPage: 2):",
            #"- repos[20...29]: 10 removed ("rx/repo-11" … "rx/repo-20")"#,
        ])
        // #29 loadNextPage caused #30, #31 and #32: leaving the action out leaves out all three.
        let action = try await reactorlog("what-if", demo, "--skip", "29", "--json")
        let object = try json(action)
        #expect(object["skipped"] as? [Int] == [30, 31, 32])
        #expect((object["changes"] as? [Any])?.count == 10)
        #expect(((object["state"] as? [String: Any])?["repos"] as? [Any])?.count == 20)
        #expect(try await reactorlog("what-if", demo, "--skip", "29").lines.first == "search at #33 without #29 loadNextPage and its 3 mutations:")
        // Earlier steps: the state at --at, without the query "rx" (#22 and its two mutations), is the "error" one's.
        let earlier = try json(try await reactorlog("what-if", demo, "--skip", "22", "--at", "23", "--json"))
        #expect(earlier["skipped"] as? [Int] == [23])
        #expect((earlier["state"] as? [String: Any])?["query"] as? String == "error")
        // setLoadingNextPage(true) is undone by the step after it.
        #expect(try await reactorlog("what-if", demo, "--skip", "12").lines.last == "No difference: the state would be the same as recorded.")
        let refusals: [([String], String)] = [
            (["--skip", "21"], "#21 is an effect's error, which changes no state"),
            (["--skip", "1"], "#1 is the stream's 'opened' marker, which changes no state"),
            (["--skip", "31", "--at", "20"], "#31 comes after --at 20: leaving it out changes nothing there."),
            (["--skip", "999"], "#999 is not an entry of the log: its entries run #1…#73."),
            (["--skip", "31", "--skip", "60"], "#60 is an entry of stream 'counter', not of 'search'"),
        ]
        for (arguments, message) in refusals {
            let refused = try await Tool.run(["what-if", demo] + arguments)
            #expect(refused.status == 2 && refused.error.contains(message), "\(arguments): \(refused.error)")
        }
        #expect(try await reactorlog("what-if", demo).status == 64)
        // The example inspector registers the search reactor alone.
        let generic = try await Tool.run("example-inspector", ["what-if", demo, "--skip", "36"])
        #expect(generic.status == 6 && generic.error.contains("which this inspector does not know"), "\(generic.error)")
    }

    @Test("log lines up its columns, takes the API's kind names too, and gives exact nanosecond times in JSON")
    func logConsistency() async throws {
        let lines = try await reactorlog("log", demo, "--stream", "search").lines
        let streamColumns = Set(lines.map { $0.range(of: " search ")?.lowerBound.utf16Offset(in: $0) })
        #expect(streamColumns.count == 1, "\(lines.prefix(12))")
        #expect(try await reactorlog("log", demo, "--kind", "effectError").output == (try await reactorlog("log", demo, "--kind", "error").output))
        let json = try #require(try await reactorlog("log", demo, "--json", "--limit", "1").lines.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let exact = try #require(object["timestampNanoseconds"] as? String)
        #expect(json.contains("\"timestamp\":\(exact),"))
    }

    @Test("a user's inspector is its own: its name in help, errors, version and completion script, and no demo")
    func ownInspector() async throws {
        let help = try await Tool.run("example-inspector", ["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("USAGE: example-inspector <subcommand>"))
        #expect(help.output.contains("Inspect the GitHub Search example's logs."))
        #expect(!help.output.contains("USAGE: reactorlog"))
        #expect(!help.output.contains("demo"))
        #expect(try await Tool.run("example-inspector", ["--version"]).output == "1.0.0\n")
        let completion = try await Tool.run("example-inspector", ["--generate-completion-script", "bash"])
        #expect(completion.output.contains("_example-inspector"))
        #expect(!completion.output.contains("reactorlog"))
        let error = try await Tool.run("example-inspector", ["show", demo, "99999"])
        #expect(error.error.hasPrefix("example-inspector: "))
        #expect(error.error.contains("Run `example-inspector log`"))
        let usage = try await Tool.run("example-inspector", ["frobnicate"])
        #expect(usage.status == 64)
        #expect(usage.error.contains("See 'example-inspector help'"))
        let shipped = try await Tool.run(["--help"])
        #expect(shipped.output.contains("demo"))
        #expect(shipped.output.contains("USAGE: reactorlog <subcommand>"))
    }

    @Test("verify passes on a healthy log and names the first bad entry of a damaged one; log and info show the rest")
    func verify() async throws {
        let healthy = try await reactorlog("verify", demo)
        #expect(healthy.status == 0)
        #expect(healthy.output.hasPrefix("OK: "))
        let damaged = scratch.file("damaged.reactorlog")
        #expect(try await reactorlog("compact", demo, damaged).status == 0)
        // A repository name in a payload (the binary codec stores its text as it is).
        try CorruptFile.flipByte(in: damaged + "/data.mdb", after: Array("repo-15".utf8))
        let report = try await reactorlog("verify", damaged)
        #expect(report.status == 1)
        #expect(report.output.contains("DAMAGED"))
        #expect(report.output.contains("the first bad entry is #"))
        let read = try await reactorlog("log", damaged, "--stream", "search")
        #expect(read.status == 5)
        #expect(read.error.contains("checksum does not match"))
        // The listing goes on past the damaged block: every other line is the healthy log's, and one line at the
        // end names what was left out (exit 5).
        let listing = try await reactorlog("log", damaged)
        #expect(listing.status == 5)
        let left = try #require(listing.error.firstMatch(of: /#(\d+)(?:…#(\d+)|( and every entry after it))? (?:was|were) left out, the rest listed: Entry #\d+ is corrupt/))
        let lowest = try #require(UInt64(left.1))
        let highest = try left.2.map { try #require(UInt64($0)) } ?? (left.3 == nil ? lowest : .max)
        #expect(listing.error.filter { $0 == "\n" }.count == 1, "\(listing.error)")
        let healthyLines = try await reactorlog("log", demo).lines
        let number = { (line: String) in line.split(separator: " ").dropFirst().first.flatMap { UInt64($0.dropFirst()) } ?? 0 }
        #expect(listing.lines == healthyLines.filter { !(lowest...highest).contains(number($0)) })
        #expect(listing.lines.count < healthyLines.count)
        let tail = try await reactorlog("tail", damaged, "-n", "1000")
        #expect(tail.status == 5 && tail.lines == listing.lines, "\(tail.error)")
        // info shows what it can read, a time it cannot as -.
        let info = try await reactorlog("info", damaged)
        #expect(info.output.contains("stream ") && info.output.contains("search"), "\(info.output)")
        #expect(info.status == 0 || (info.status == 5 && info.error.contains("left out, the rest shown")), "\(info.error)")
    }

    @Test("every command reads a stream whose index is damaged from the whole log: the same output, and a warning")
    func damagedStreamIndex() async throws {
        let path = scratch.file("counter-index.reactorlog")
        #expect(try await reactorlog("demo", "--out", path, "--actions", "600").status == 0)
        // What every reading command shows while the index is sound.
        let commands: [[String]] = [
            ["log", path, "--stream", "counter", "--kind", "action"], ["log", path, "--stream", "counter", "--from", "900", "--limit", "30"],
            ["tail", path, "--stream", "counter", "-n", "700"], ["info", path, "--json"], ["state", path, "--at", "1000"],
            ["diff", path, "900", "1150", "--json"], ["blame", path, "value", "-n", "400"],             ["bisect", path, "--run", #"grep -qE '"value":([0-9]|[1-4][0-9])}' && exit 0; exit 1"#],
            ["divergence", path],
        ]
        var healthy: [Tool.Result] = []
        for command in commands { healthy.append(try await Tool.run(command)) }
        let healthyJSON = try await reactorlog("log", path, "--json")
        #expect(healthyJSON.output.contains(#""callSite":"#))
        let healthyExport = try await reactorlog("export", path)
        // A byte flipped among the items of the third block of the stream's index, under the block's checksum.
        let damagedKey = try LogDamage.flipByte(of: path, database: "stream-index", mask: 0x10) { $0[2] }
        let damagedFrom = damagedKey.suffix(8).reduce(0) { $0 << 8 | UInt64($1) }
        #expect((880...1150).contains(damagedFrom), "the commands above read across the damaged block")
        let warning = "reactorlog: warning: stream 'counter' was read from the whole log, past its damaged index; what is shown is whole: "
            + "The index of stream id 1 is damaged in its block from #\(damagedFrom): its checksum does not match. Run `reactorlog verify` for details.\n"
        for (command, before) in zip(commands, healthy) {
            let after = try await Tool.run(command)
            #expect(before.status == 0 && after.status == 0, "\(command): \(after.error)")
            // info's size and the bisect's probes (on standard error) aside, the same output.
            if command[0] == "info" {
                #expect(after.output.replacing(/"sizeBytes" : \d+/, with: "") == before.output.replacing(/"sizeBytes" : \d+/, with: ""))
            } else {
                #expect(after.output == before.output, "\(command)")
            }
            #expect(after.error.hasSuffix(warning), "\(command): \(after.error)")
        }
        // Call sites are kept in the index alone: the actions of the damaged block lose theirs, and the line says how many.
        let json = try await reactorlog("log", path, "--json")
        #expect(json.status == 5)
        #expect(json.lines.count == healthyJSON.lines.count)
        let withoutSite = zip(healthyJSON.lines, json.lines).filter { $0 != $1 }
        #expect(!withoutSite.isEmpty)
        for (healthyLine, line) in withoutSite {
            #expect(healthyLine.replacing(/"callSite":"[^"]*",/, with: "") == line)
        }
        #expect(json.error.contains("\(withoutSite.count) actions' call sites were left out, the rest listed: The index of stream id 1 is damaged"))
        // An export keeps every entry and writes the actions of the damaged block without their call sites, then exits 5.
        let exported = scratch.file("counter-index.jsonl")
        let export = try await reactorlog("export", path, "--out", exported)
        #expect(export.status == 5)
        #expect(export.error.contains("\(withoutSite.count) actions' call sites were left out, the rest written: The index of stream id 1"), "\(export.error)")
        let lines = try String(contentsOfFile: exported, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == healthyExport.lines.count)
        let exportedWithout = zip(healthyExport.lines, lines).filter { $0 != $1 }
        #expect(exportedWithout.count == withoutSite.count)
        for (healthyLine, line) in exportedWithout {
            #expect(healthyLine.replacing(/"callSite":"[^"]*",/, with: "") == line)
        }
        // So does a timeline, whose page is written.
        let page = scratch.file("counter-index.html")
        let timeline = try await reactorlog("timeline", path, "--out", page)
        #expect(timeline.status == 5 && FileManager.default.fileExists(atPath: page))
        #expect(timeline.error.contains("\(withoutSite.count) actions' call sites were left out, the rest shown: The index of stream id 1"), "\(timeline.error)")
        // show prints the entry, what it caused, and its call site as not shown, then exits 5.
        let actions = healthy[0].lines.compactMap { line in line.split(separator: " ").dropFirst().first.flatMap { UInt64($0.dropFirst()) } }
        let action = try #require(actions.first { $0 > damagedFrom + 4 })
        let shown = try await reactorlog("show", path, "\(action)")
        #expect(shown.status == 5)
        #expect(shown.output.contains("sent from  not shown: The index of stream id 1 is damaged"), "\(shown.output)")
        #expect(shown.output.contains("caused:\n  ") && shown.output.contains(" #\(action + 1) counter mutation "), "\(shown.output)")
        #expect(shown.error == "reactorlog: #\(action) was shown without its call site: The index of stream id 1 is damaged in its block from #\(damagedFrom): its checksum does not match. Run `reactorlog verify` for details.\n")
        // A mutation it caused, in JSON, which also shows the cause's call site, and the state change.
        let mutation = try await reactorlog("show", path, "\(action + 1)", "--json")
        #expect(mutation.status == 5 && mutation.output.contains(#""cause" : {"#) && mutation.output.contains(#""change" : ["#))
        #expect(mutation.error.contains("was shown without its cause's call site: The index of stream id 1"), "\(mutation.error)")
    }

    @Test("export writes each entry's time as its timestamp in ISO 8601 UTC, to the millisecond")
    func exportTimes() async throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let lines = try await reactorlog("export", demo).lines.dropFirst()
        #expect(lines.count > 70)
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard let entry = object["entry"] as? [String: Any] else { continue }
            let digits = try #require(entry["timestampNanoseconds"] as? String)
            let nanoseconds = try #require(Int64(digits))
            let milliseconds = nanoseconds / 1_000_000
            let expected = formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000 + 0.0001))
            #expect(entry["time"] as? String == expected, "\(line)")
        }
    }

    @Test("export and import round-trip a log, sequence numbers and all")
    func exportImport() async throws {
        for format in ["jsonl", "json"] {
            let file = scratch.file("demo.\(format)")
            #expect(try await reactorlog("export", demo, "--format", format, "--out", file).status == 0)
            let copy = scratch.file("imported-\(format).reactorlog")
            let imported = try await reactorlog("import", file, copy)
            #expect(imported.status == 0, "\(imported.error)")
            let original = try await reactorlog("log", demo, "--json").output
            #expect(try await reactorlog("log", copy, "--json").output == original)
            #expect(try await reactorlog("state", copy, "--stream", "search", "--at", "31", "--path", "repos.count").output == "30\n")
            #expect(try await reactorlog("verify", copy).status == 0)
        }
    }

    @Test("an export whose numbers passed through a tool that reads them as doubles imports its exact times; times edited apart are refused")
    func importAfterDoubles() async throws {
        let file = scratch.file("doubles.jsonl")
        // A pin, so that the export carries every kind of time: the log's, each stream's, each entry's, each
        // snapshot's and each pin's.
        let pinned = scratch.file("pinned.reactorlog")
        #expect(try await reactorlog("compact", demo, pinned).status == 0)
        let log = try EventLog.open(at: pinned)
        try log.pin(20...33, reason: "the rx bug")
        try log.close()
        #expect(try await reactorlog("export", pinned, "--out", file).status == 0)
        // What jq does to a number: the nearest double, about 2^60 here, so off by up to 128 ns.
        func rewrite(only field: Substring? = nil, _ change: @escaping (Int64) -> Int64) throws -> String {
            try String(contentsOfFile: file, encoding: .utf8).replacing(/"(timestamp|createdAt)":(\d+)([,}])/) { match in
                field.map { $0 != match.1 } == true ? match.0 : "\"\(match.1)\":\(change(Int64(match.2) ?? 0))\(match.3)"
            }
        }
        let rounded = scratch.file("rounded.jsonl"), copy = scratch.file("rounded.reactorlog")
        try rewrite { Int64(Double($0)) }.write(toFile: rounded, atomically: true, encoding: .utf8)
        #expect(try String(contentsOfFile: rounded, encoding: .utf8) != (try String(contentsOfFile: file, encoding: .utf8)), "some times round")
        let imported = try await reactorlog("import", rounded, copy)
        #expect(imported.status == 0, "\(imported.error)")
        #expect(try await reactorlog("log", copy, "--json").output == (try await reactorlog("log", demo, "--json").output))
        // Every time of the copy's export is the source's, to the nanosecond: 73 entries, 7 snapshots, 3 streams,
        // the log and the pin (before 2026-12-07 all but the entries' were imported rounded).
        let again = scratch.file("again.jsonl")
        #expect(try await reactorlog("export", copy, "--out", again).status == 0)
        func times(_ path: String) throws -> [String] {
            try String(contentsOfFile: path, encoding: .utf8).matches(of: /"(timestamp|createdAt)":(\d+)/).map { "\($0.1)=\($0.2)" }
        }
        #expect(try times(file).count == 73 + 7 + 3 + 2)
        #expect(try times(again) == times(file))
        // A time moved by a second without its exact digits: which is the time cannot be told.
        let edited = scratch.file("edited.jsonl")
        try rewrite(only: "timestamp") { $0 + 1_000_000_000 }.write(toFile: edited, atomically: true, encoding: .utf8)
        let refused = try await Tool.run(["import", edited, scratch.file("edited.reactorlog")])
        #expect(refused.status == 2 && refused.error.contains("line 2 cannot be imported: its timestamp") && refused.error.contains("disagree by more than a rounding: set both to the same time"), "\(refused.error)")
        try rewrite(only: "createdAt") { $0 + 1_000_000_000 }.write(toFile: edited, atomically: true, encoding: .utf8)
        let header = try await Tool.run(["import", edited, scratch.file("edited-header.reactorlog")])
        #expect(header.status == 2 && header.error.contains("line 1 cannot be imported: its createdAt") && header.error.contains("disagree by more than a rounding"), "\(header.error)")
    }

    @Test("compact copies; trim removes old entries but keeps every later state")
    func compactAndTrim() async throws {
        let copy = scratch.file("trim.reactorlog")
        #expect(try await reactorlog("compact", demo, copy).status == 0)
        let before = try await reactorlog("state", copy, "--stream", "search", "--at", "31").output
        let trim = try await reactorlog("trim", copy, "--before", "30")
        #expect(trim.status == 0, "\(trim.error)")
        #expect(trim.output.contains("search:"))
        // Counted in the number each count takes.
        #expect(trim.lines.first == "Removed 27 entries and 1 snapshot before #30.", "\(trim.output)")
        #expect(try await reactorlog("state", copy, "--stream", "search", "--at", "31").output == before)
        #expect(try await reactorlog("verify", copy).status == 0)
        #expect(try await reactorlog("compact", demo, copy).status == 2)
    }

    @Test("every command has --help")
    func help() async throws {
        for command in ["demo", "info", "log", "show", "state", "diff", "blame", "tail", "bisect", "divergence", "timeline", "verify", "export", "pack", "import", "compact", "trim"] {
            let help = try await reactorlog(command, "--help")
            #expect(help.status == 0, "\(command)")
            #expect(help.output.contains("USAGE: reactorlog \(command)"), "\(command)")
        }
    }
}

/// The generic inspector on a log of a reactor it does not know, with the default kind of snapshot policy:
/// every command answers, from the recorded states, as narrowly as they allow.
@Suite("reactorlog generic mode", .timeLimit(.minutes(2)))
struct GenericModeTests {
    let scratch = ScratchDirectory()

    /// 40 mutations adding one item each; the state turns bad at the 21st and stays bad; a snapshot every 8.
    func userLog() throws -> String {
        try Self.userLog(at: scratch.file("user.reactorlog"))
    }

    /// The log of ``userLog()``, written at `path`.
    static func userLog(at path: String) throws -> String {
        let log = try EventLog.open(at: path)
        struct State: Codable { var itemCount: Int; var bad: Bool }
        let stream = try log.openStream(named: "items", reactorType: "MyApp.ItemsReactor", schemaFingerprint: "v1", initialState: State(itemCount: 0, bad: false))
        for index in 1...40 {
            let action = try stream.append(.action, ["addItem": [String: Int]()], caseName: "addItem")
            let mutation = try stream.append(.mutation, ["appendItem": ["_0": index]], caseName: "appendItem", cause: action)
            if index % 8 == 0 { try stream.writeSnapshot(State(itemCount: index, bad: index >= 21), at: mutation) }
        }
        try log.close()
        return path
    }

    static let judge = #"python3 -c 'import json,sys; sys.exit(1 if json.load(sys.stdin)["bad"] else 0)'"#

    @Test("bisect without the reducer probes recorded states and reports the range, its mutations and the change")
    func bisectRange() async throws {
        let log = try userLog()
        let result = try await Tool.run(["bisect", log, "--run", Self.judge])
        #expect(result.status == 0, "\(result.error)")
        // Mutation k is sequence 2k + 1 (#1 is the opened marker): recorded at #33 (16 items) and #49 (24 items).
        #expect(result.output.contains("between recorded steps #33 (good) and #49 (bad)"), "\(result.output)")
        #expect(result.output.contains("8 mutations between them"))
        #expect(result.output.contains("itemCount: 16 → 24"), "\(result.output)")
        #expect(result.output.contains("run an inspector that knows MyApp.ItemsReactor"))
        let json = try await Tool.run(["bisect", log, "--run", Self.judge, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["recordedGood"] as? Int == 33)
        #expect(object["recordedBad"] as? Int == 49)
        #expect((object["candidates"] as? [Int])?.count == 8)
        #expect(object["firstBad"] == nil)
    }

    @Test("log --changes without the reducer: a change at each recorded state, spanning the mutations before it")
    func logChanges() async throws {
        let log = try userLog()
        // Mutation k is sequence 2k + 1; the states after mutations 8 and 16 (#17, #33) are recorded.
        let listed = try await Tool.run(["log", log, "--changes", "--to", "17"])
        #expect(listed.status == 0, "\(listed.error)")
        // An entry's line without its time; a change's line without its indent.
        let lines = listed.output.split(separator: "\n").map { $0.hasPrefix(" ") ? $0.trimmingCharacters(in: .whitespaces) : String($0.dropFirst(13)) }
        #expect(lines.prefix(4) == ["#1  items opened", "#2  items action   addItem", "#3  items   mutation appendItem(1)", "state not recorded"], "\(listed.output)")
        #expect(lines.suffix(6) == [
            "#15 items   mutation appendItem(7)", "state not recorded", "#16 items action   addItem", "#17 items   mutation appendItem(8)",
            "since #3 (the states between are not in the log):", "~ itemCount: 0 → 8",
        ], "\(listed.output)")
        let json = try await Tool.run(["log", log, "--changes", "--to", "17", "--kind", "mutation", "--json"])
        let objects = try json.output.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.map { $0["sequence"] as? Int } == [3, 5, 7, 9, 11, 13, 15, 17])
        #expect(objects[0]["changes"] == nil, "a change not known is left out, not empty")
        #expect(objects[0]["stateUnknown"] as? String == "notRecorded")
        #expect(objects[7]["stateUnknown"] == nil)
        #expect(objects[7]["changesSince"] as? Int == 3)
        #expect((objects[7]["changes"] as? [[String: Any]])?.first?["path"] as? String == "itemCount")
    }

    @Test("blame without the reducer reports each change with the range it happened in")
    func blameRanges() async throws {
        let log = try userLog()
        let result = try await Tool.run(["blame", log, "itemCount"])
        #expect(result.status == 0, "\(result.error)")
        // Five pairs of recorded states differ; how many changes each hides is not known.
        #expect(result.output.contains("items: itemCount changed between 5 pairs of recorded states\n"), "\(result.output)")
        #expect(result.output.contains("#3…#17"), "\(result.output)")
        #expect(result.output.contains("one of 8 mutations"))
        let json = try await Tool.run(["blame", log, "bad", "--json"])
        let changes = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(changes.count == 1)
        #expect(changes.first?["rangeFrom"] as? Int == 35)
        #expect(changes.first?["sequence"] as? Int == 49)
    }

    @Test("blame without the reducer says the changes after the last recorded state are not known, not that there were none")
    func blameUnrecordedEnd() async throws {
        let log = try userLog()
        // Recorded at #17; mutations #19 and after are not, up to #33.
        let result = try await Tool.run(["blame", log, "itemCount", "--to", "20"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("items: itemCount changed between 1 pair of recorded states\n"), "\(result.output)")
        let unknownRow = result.output.split(separator: "\n").first { $0.contains("#19…#20") }.map { $0.split(separator: " ").joined(separator: " ") }
        #expect(unknownRow == "- #19…#20 not recorded 8 → ? (the changes between are not known)", "\(result.output)")
        #expect(result.error.contains(
            "warning: the changes in #19…#20 are not known, the rest listed: The state of 'items' at #19 was not recorded and rebuilding it needs the reducer. Recorded states nearby: #17."
        ), "\(result.error)")
        let json = try await Tool.run(["blame", log, "itemCount", "--to", "20", "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect((rows.last?["unreadable"] as? [String: Int]) == ["from": 19, "through": 20], "\(rows)")
        // Before the first snapshot, the state recorded nearby is the initial state.
        let early = try await Tool.run(["blame", log, "itemCount", "--to", "5"])
        #expect(early.error.contains("the changes in #3…#5 are not known, the rest listed: The state of 'items' at #3 was not recorded and rebuilding it needs the reducer. Recorded states nearby: #0 (the initial state)."), "\(early.error)")
        // Where the range ends at a recorded state, every change between recorded states is listed, and nothing is unknown.
        let whole = try await Tool.run(["blame", log, "itemCount"])
        #expect(whole.error.isEmpty && !whole.output.contains("are not known"), "\(whole.output)\(whole.error)")
    }

    @Test("blame without the reducer passes over a recorded state that cannot be read, names it in the change's row and JSON, and exits 5")
    func blameAcrossUnreadableSnapshot() async throws {
        let path = scratch.file("damaged-snapshot.reactorlog")
        #expect(try await Tool.run(["demo", "--out", path, "--actions", "2000", "--durability", "nosync"]).status == 0)
        let snapshots = try EventLog.openReadOnly(at: path).snapshotSequences(stream: "counter")
        let key = try LogDamage.flipByte(of: path, database: "snapshots", mask: 0x40) { $0[$0.count / 2] }
        let damaged = key.suffix(8).reduce(0) { $0 << 8 | UInt64($1) }
        let index = try #require(snapshots.firstIndex(of: damaged))
        let (before, after) = (snapshots[index - 1], snapshots[index + 1])
        // example-inspector does not know the counter reactor: it compares the recorded states, and one no longer reads.
        let blamed = try await Tool.run("example-inspector", ["blame", path, "value", "--stream", "counter"])
        #expect(blamed.status == 5, "\(blamed.error)")
        let lines = blamed.output.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        // Each pair of recorded states that read, one fewer than the snapshots: the damaged one joins two.
        #expect(lines.first == "counter: value changed between \(snapshots.count - 1) pairs of recorded states", "\(blamed.output)")
        let firstAfter = try #require(try EventLog.openReadOnly(at: path).sequences(stream: "counter", kinds: [.mutation], from: before + 1, through: after).first)
        let row = try #require(lines.first { $0.contains("#\(firstAfter)…#\(after) ") }, "\(blamed.output)")
        #expect(row.hasSuffix("(states between were not recorded; the one at #\(damaged) cannot be read)"), "\(row)")
        #expect(lines.filter { $0.contains("cannot be read") }.count == 1)
        #expect(blamed.error.hasPrefix(
            "example-inspector: The recorded state at #\(damaged) cannot be read, the changes across it placed between the states around it: The snapshot of stream 'counter' at #\(damaged) is corrupt: "),
            "\(blamed.error)")
        let json = try await Tool.run("example-inspector", ["blame", path, "value", "--stream", "counter", "--json"])
        #expect(json.status == 5)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
        #expect(rows.compactMap { $0["unreadableStates"] as? [Int] } == [[Int(damaged)]], "\(json.output.prefix(2000))")
        #expect(rows.first { $0["unreadableStates"] != nil }?["rangeFrom"] as? Int == Int(firstAfter))
        // The latest change, walking back from after it, names it too; a range that compares no state across it is clean.
        let latest = try await Tool.run("example-inspector", ["blame", path, "value", "--stream", "counter", "-n", "1", "--to", "\(after)"])
        #expect(latest.status == 5 && latest.output.contains("the one at #\(damaged) cannot be read"), "\(latest.output)\(latest.error)")
        let clean = try await Tool.run("example-inspector", ["blame", path, "value", "--stream", "counter", "--from", "\(after + 1)"])
        #expect(clean.status == 0 && clean.error.isEmpty, "\(clean.error)")
    }

    @Test("with the reducer, a state rebuilt past a snapshot that cannot be read is whole, exit 0, and a warning names the snapshot; verify says what it costs")
    func stateAcrossUnreadableSnapshot() async throws {
        let path = scratch.file("damaged-snapshot.reactorlog")
        #expect(try await Tool.run(["demo", "--out", path, "--actions", "2000", "--durability", "nosync"]).status == 0)
        let snapshots = try EventLog.openReadOnly(at: path).snapshotSequences(stream: "counter")
        let middle = snapshots[snapshots.count / 2]
        // The states as the sound log gives them, at the snapshot, after it, and before it.
        let steps = [middle, middle + 5, middle - 5]
        var sound: [String] = []
        for step in steps { sound.append(try await Tool.run(["state", path, "--at", "\(step)", "--stream", "counter"]).output) }
        let key = try LogDamage.flipByte(of: path, database: "snapshots", mask: 0x40) { $0[$0.count / 2] }
        #expect(key.suffix(8).reduce(0) { $0 << 8 | UInt64($1) } == middle)
        for (step, expected) in zip(steps, sound) {
            // reactorlog knows the counter reactor: it rebuilds from the snapshot before, the same state.
            let result = try await Tool.run(["state", path, "--at", "\(step)", "--stream", "counter"])
            #expect(result.status == 0 && result.output == expected, "#\(step): \(result.output)\(result.error)")
            let warning = "reactorlog: warning: states were rebuilt from a snapshot earlier than one that cannot be read; what is shown is whole: The snapshot of stream 'counter' at #\(middle) is corrupt: "
            if step >= middle {
                #expect(result.error.hasPrefix(warning) && result.error.split(separator: "\n").count == 1, "#\(step): \(result.error)")
            } else {
                #expect(result.error.isEmpty, "a state before the damage passes over nothing: \(result.error)")
            }
        }
        // verify names it as a snapshot, what it costs (nothing) and how to get a sound log; export then import does.
        let verify = try await Tool.run(["verify", path])
        #expect(verify.status == 1 && verify.lines.contains { $0.hasPrefix("DAMAGED: ") && $0.hasSuffix("; the first problem is the snapshot at #\(middle).") }, "\(verify.output)")
        #expect(verify.lines.contains(
            "The snapshot of 'counter' at #\(middle) cannot be read: no state is lost, as an inspector that knows its reactor rebuilds it from the snapshot before (without the reducer, the state there is not known)."
        ), "\(verify.output)")
        #expect(verify.lines.last == "To get a sound log without it: `reactorlog export LOG --out FILE`, then `reactorlog import FILE NEW`.", "\(verify.output)")
        let json = try await Tool.run(["verify", path, "--json"])
        let unreadable = try #require((try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])?["unreadableSnapshots"] as? [[String: Any]])
        #expect(unreadable.count == 1 && unreadable[0]["at"] as? Int == Int(middle) && unreadable[0]["statesUnknown"] == nil, "\(json.output)")
        let (exported, imported) = (scratch.file("damaged-snapshot.jsonl"), scratch.file("damaged-snapshot-imported.reactorlog"))
        #expect(try await Tool.run(["export", path, "--out", exported]).status == 5)
        #expect(try await Tool.run(["import", exported, imported]).status == 0)
        #expect(try await Tool.run(["verify", imported]).status == 0)
        // A block of entries between it and the snapshot before damaged too: its state is then among those lost.
        let index = try #require(snapshots.firstIndex(of: middle))
        let block = try LogDamage.flipByte(of: path, database: "entries", mask: 0x10) { keys in
            keys.first { key in (snapshots[index - 1] + 1..<middle).contains(key.reduce(0) { $0 << 8 | UInt64($1) }) } ?? []
        }
        #expect(!block.isEmpty)
        let both = try await Tool.run(["verify", path])
        #expect(both.lines.contains("The snapshot of 'counter' at #\(middle) cannot be read either: its state is among those named above that cannot be rebuilt."), "\(both.output)")
        #expect(!both.output.contains("no state is lost") && !both.output.contains("To get a sound log"), "\(both.output)")
    }

    @Test("state, diff and blame show a decimal's every digit, and see a change in its twentieth")
    func longDecimals() async throws {
        let path = scratch.file("ledger.reactorlog")
        let log = try EventLog.open(at: path)
        struct State: Codable { var rate: Decimal }
        let rates = ["0.12345678901234567891", "0.12345678901234567892", "0.12345678901234567892"]
        let stream = try log.openStream(named: "ledger", reactorType: "MyApp.LedgerReactor", schemaFingerprint: "v1", initialState: State(rate: 0))
        for rate in rates {
            let action = try stream.append(.action, ["setRate": ["_0": rate]], caseName: "setRate")
            let mutation = try stream.append(.mutation, ["rateSet": ["_0": rate]], caseName: "rateSet", cause: action)
            try stream.writeSnapshot(State(rate: Decimal(string: rate)!), at: mutation)
        }
        try log.close()
        // The mutations are #3, #5 and #7 (#1 is the opened marker).
        let state = try await Tool.run(["state", path, "--at", "3", "--path", "rate"])
        #expect(state.output == "0.12345678901234567891\n", "\(state.output)\(state.error)")
        let diff = try await Tool.run(["diff", path, "3", "5"])
        #expect(diff.output.contains("~ rate: 0.12345678901234567891 → 0.12345678901234567892"), "\(diff.output)\(diff.error)")
        let blame = try await Tool.run(["blame", path, "rate", "--json"])
        let changes = try #require(try JSONSerialization.jsonObject(with: Data(blame.output.utf8)) as? [[String: Any]], "\(blame.error)")
        #expect(changes.map { $0["sequence"] as? Int } == [3, 5])
        // An export writes the recorded states through the same numbers: rounded, the imported log replayed other states.
        let export = scratch.file("ledger.jsonl")
        #expect(try await Tool.run(["export", path, "--out", export]).status == 0)
        let copy = scratch.file("ledger-imported.reactorlog")
        #expect(try await Tool.run(["import", export, copy]).status == 0)
        #expect(try await Tool.run(["state", copy, "--at", "5", "--path", "rate"]).output == "0.12345678901234567892\n")
    }
}

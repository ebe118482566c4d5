import EventLogKit
import Foundation
import TestSupport
import Testing

/// `reactorlog timeline`: the page it writes, read as data, and driven in a real headless Chromium by
/// Tools/scripts/timeline-check.py (Debian's chromium, chromium-driver and python3-selenium).
@Suite("reactorlog timeline", .serialized, .timeLimit(.minutes(3)))
struct TimelineTests {
    let scratch = ScratchDirectory()

    /// The JSON data a page embeds.
    func embedded(_ page: String) throws -> [String: Any] {
        let tag = try #require(page.range(of: #"<script type="application/json" id="timeline-data""#))
        let start = try #require(page.range(of: ">", range: tag.upperBound..<page.endIndex))
        let end = try #require(page.range(of: "</script>", range: start.upperBound..<page.endIndex))
        let text = page[start.upperBound..<end.lowerBound]
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func timeline(_ arguments: [String]) async throws -> (result: Tool.Result, page: String?) {
        let result = try await Tool.run(["timeline"] + arguments)
        let out = arguments.firstIndex(of: "--out").map { arguments[$0 + 1] }
        return (result, try out.flatMap { FileManager.default.fileExists(atPath: $0) ? try String(contentsOfFile: $0, encoding: .utf8) : nil })
    }

    /// Runs the browser check; a machine without the browser fails with the command that installs it.
    func browserCheck(_ page: String, _ arguments: [String]) async throws {
        let result = try await Tool.python("timeline-check.py", [page] + arguments)
        #expect(result.status == 0, "\(result.output)\(result.error)")
    }

    @Test("it writes one self-contained page, as private as the log, and keeps an existing file unless --force")
    func selfContained() async throws {
        let demo = try await Tool.demoLog(in: scratch)
        let path = scratch.file("search.html")
        let (result, page) = try await timeline([demo, "--stream", "search", "--out", path])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("Wrote \(path): 33 entries of stream 'search', #1…#33."))
        let html = try #require(page)
        for reference in ["src=", "href=", "http://", "https://", "@import", "url("] {
            #expect(!html.contains(reference), "the page refers to something outside it: \(reference)")
        }
        #expect(html.contains("Content-Security-Policy\" content=\"default-src 'none'"))
        // No number the page holds needs more than a JavaScript number: it is read without the exact reviver.
        #expect(html.contains(#"<script type="application/json" id="timeline-data" data-exact="false">"#))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let data = try embedded(html)
        let entries = try #require(data["entries"] as? [[String: Any]])
        #expect(entries.count == 33)
        #expect((data["source"] as? [String: Any])?["reduced"] as? Bool == true)
        let actions = entries.filter { $0["k"] as? String == "action" }
        #expect(!actions.isEmpty && actions.allSatisfy { ($0["w"] as? String)?.hasPrefix("reactorlog/Demo.swift:") == true }, "each action shows where it was sent from")
        #expect(html.contains("sent from "))
        let again = try await timeline([demo, "--stream", "search", "--out", path])
        #expect(again.result.status == 2)
        #expect(again.result.error.contains("already exists"))
        #expect(try await timeline([demo, "--stream", "search", "--out", path, "--force"]).result.status == 0)
    }

    @Test("a range larger than --limit: the page holds the last entries, or the first from --from, and says so")
    func limit() async throws {
        let demo = try await Tool.demoLog(in: scratch)
        let last = try await timeline([demo, "--stream", "search", "--limit", "5", "--out", scratch.file("last.html")])
        #expect(last.result.output.contains("holds the last 5 of 33 entries"), "\(last.result.output)")
        let lastData = try embedded(try #require(last.page))
        #expect((lastData["entries"] as? [[String: Any]])?.map { $0["s"] as? Int } == [29, 30, 31, 32, 33])
        // The page starts from the state before its first entry, rebuilt with the reducer.
        #expect((lastData["start"] as? [String: Any])?["isLoadingNextPage"] as? Bool == false)
        let first = try await timeline([demo, "--stream", "search", "--from", "10", "--limit", "3", "--out", scratch.file("first.html")])
        let firstData = try embedded(try #require(first.page))
        #expect((firstData["entries"] as? [[String: Any]])?.map { $0["s"] as? Int } == [10, 11, 12])
        #expect(try await Tool.run(["timeline", demo, "--limit", "0"]).status == 64)
    }

    @Test("--since and --until choose the page's entries by time, from the first at or after the one to the last before the first after the other")
    func timeSpan() async throws {
        let demo = try await Tool.demoLog(in: scratch)
        // The search stream's entries with their exact times, and the times as the JSON lists them (to the millisecond).
        let entries = try await Tool.run(["log", demo, "--stream", "search", "--json"]).lines.map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            return (sequence: object["sequence"] as? Int ?? 0, time: object["time"] as? String ?? "",
                    nanoseconds: Int64(object["timestampNanoseconds"] as? String ?? "") ?? 0)
        }
        let (since, until) = (entries[16], entries[20])
        let from = since.nanoseconds / 1_000_000 * 1_000_000, through = until.nanoseconds / 1_000_000 * 1_000_000 + 999_999
        let expected = entries.filter { $0.nanoseconds >= from && $0.nanoseconds <= through }.map(\.sequence)
        let out = scratch.file("span.html")
        let (result, page) = try await timeline([demo, "--stream", "search", "--since", since.time, "--until", until.time, "--out", out])
        #expect(result.status == 0, "\(result.error)")
        let data = try embedded(try #require(page))
        let shown = (data["entries"] as? [[String: Any]] ?? []).map { $0["s"] as? Int ?? 0 }
        #expect(shown == expected && shown.contains(17) && shown.contains(21), "\(shown)")
        let none = try await timeline([demo, "--stream", "search", "--since", "2000-01-01T00:00:00Z", "--until", "2000-01-01T00:00:01Z", "--out", scratch.file("none.html")])
        #expect(none.result.status == 2 && none.result.error.contains("Stream 'search' has no entry since 2000-01-01T00:00:00Z until 2000-01-01T00:00:01Z"), "\(none.result.error)")
    }

    @Test("names from a hostile log cannot end the page's data or run as script")
    func hostileNames() async throws {
        let path = scratch.file("hostile.reactorlog")
        let log = try EventLog.open(at: path)
        let attack = "</script><script>document.title='pwned'</script><!--"
        let stream = try log.openStream(named: "shop", reactorType: "Shop", schemaFingerprint: "v1", initialState: ["note": "x"])
        let action = try stream.append(.action, ["buy": attack], caseName: "buy" + attack)
        try stream.append(.mutation, ["note": attack], caseName: "setNote", cause: action)
        try log.close()
        let out = scratch.file("shop.html")
        let (result, page) = try await timeline([path, "--out", out])
        #expect(result.status == 0, "\(result.error)")
        let html = try #require(page)
        #expect(html.components(separatedBy: "</script").count - 1 == 2, "only the page's own two scripts end")
        #expect(!html.contains("<!--"))
        let entries = try #require(try embedded(html)["entries"] as? [[String: Any]])
        #expect(entries.contains { $0["c"] as? String == "buy" + attack }, "the name is kept exactly")
    }

    @Test("without the reducer, the page knows the recorded states and marks the changes across unrecorded steps")
    func recordedStates() async throws {
        let path = scratch.file("user.reactorlog")
        let log = try EventLog.open(at: path)
        struct State: Codable { var itemCount: Int }
        let stream = try log.openStream(named: "items", reactorType: "MyApp.ItemsReactor", schemaFingerprint: "v1", initialState: State(itemCount: 0))
        for index in 1...16 {
            let action = try stream.append(.action, ["addItem": [String: Int]()], caseName: "addItem")
            let mutation = try stream.append(.mutation, ["appendItem": ["_0": index]], caseName: "appendItem", cause: action)
            if index % 8 == 0 { try stream.writeSnapshot(State(itemCount: index), at: mutation) }
        }
        try log.close()
        let out = scratch.file("items.html")
        let (result, page) = try await timeline([path, "--out", out])
        #expect(result.status == 0, "\(result.error)")
        let data = try embedded(try #require(page))
        #expect((data["source"] as? [String: Any])?["reduced"] as? Bool == false)
        let entries = try #require(data["entries"] as? [[String: Any]])
        // Mutation k is #2k + 1: its state is recorded at #17 (8 items) and #33 (16 items), unknown between.
        let recorded = try #require(entries.first { $0["s"] as? Int == 17 })
        #expect(recorded["g"] as? Int == 3)
        #expect(recorded["u"] == nil)
        let change = try #require((recorded["d"] as? [[String: Any]])?.first)
        #expect(change["p"] as? [String] == ["itemCount"])
        #expect(change["o"] as? Int == 0 && change["n"] as? Int == 8)
        #expect(entries.first { $0["s"] as? Int == 19 }?["u"] as? Bool == true)
        // A row's time since the first entry, in the unit that keeps it within its column, for a recording of days too.
        let relative = [
            ("217912345", "+217.912 ms"), ("12345678901", "+12.345 s"), ("754567000000", "+12:34.567"),
            ("3723456000000", "+1:02:03.456"), ("262923000000000", "+3 d 01:02:03"), ("0", "+0.000 ms"),
        ]
        // An entry's time in the pane as `show` prints it, local, the millisecond it falls in (before 1970 too).
        let format = DateFormatter()
        format.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        let absolute = [Int64(1_796_581_249_815_999_999), -1].map { nanoseconds in
            (nanoseconds, format.string(from: Date(timeIntervalSince1970: Double(nanoseconds.quotientAndRemainder(dividingBy: 1_000_000).quotient - (nanoseconds < 0 ? 1 : 0)) / 1000)))
        }
        try await browserCheck(out, ["--step", "33", "--expect", "itemCount=16", "--expect-diff", "~ itemCount: 8 → 16", "--blame", "itemCount=33"]
            + relative.flatMap { ["--expect-relative", "\($0.0)=\($0.1)"] } + absolute.flatMap { ["--expect-absolute", "\($0.0)=\($0.1)"] })
        // Between them, the pane names the recorded states on either side.
        try await browserCheck(out, ["--step", "19", "--expect-note", "Not recorded at this step (recorded states: #17, #33)."])
        try await browserCheck(out, ["--step", "5", "--expect-note", "Not recorded at this step (recorded states: #0 (the initial state), #17)."])
    }

    @Test("in a browser: the list keeps the order entries happened in, as stepping does; a mutation an effect emits after a later action names its action; a start not known says so")
    func lateEffects() async throws {
        let path = scratch.file("cart.reactorlog")
        let log = try EventLog.open(at: path)
        struct State: Codable { var items = 0, paid = false }
        let stream = try log.openStream(named: "cart", reactorType: "MyApp.CartReactor", schemaFingerprint: "v1", initialState: State())
        // A checkout whose payment answers after the next action: its mutation follows that action's.
        func append(_ kind: EntryKind, _ name: String, cause: UInt64? = nil, at millisecond: Int64) throws -> UInt64 {
            try stream.append(EntryDraft(kind: kind, caseName: name, payload: Data("{\"\(name)\":{}}".utf8), cause: cause,
                                         timestamp: 1_800_000_000_000_000_000 + millisecond * 1_000_000))
        }
        let add = try append(.action, "add", at: 0)
        _ = try append(.mutation, "addItem", cause: add, at: 0)
        let checkout = try append(.action, "checkout", at: 1)
        _ = try append(.mutation, "setPaying", cause: checkout, at: 1)
        let more = try append(.action, "add", at: 2)
        _ = try append(.mutation, "addItem", cause: more, at: 2)
        _ = try append(.mutation, "setPaid", cause: checkout, at: 30)
        try log.close()
        // From #2, after the stream's `opened` marker (stamped with the clock's time): the entries of fixed times.
        let out = scratch.file("cart.html")
        #expect(try await timeline([path, "--from", "2", "--out", out]).result.status == 0)
        let rows = [
            "#2 +0.000 ms action add", "#3 +0.000 ms mutation addItem", "#4 +1.000 ms action checkout",
            "#5 +1.000 ms mutation setPaying", "#6 +2.000 ms action add", "#7 +2.000 ms mutation addItem",
            "#8 +30.000 ms mutation setPaid \u{2190} #4 checkout",
        ]
        // Without the reducer, a step before the first recorded state names the initial state as the one before it.
        // The header says when the page was written in local time, as the entries' times read (UTC ISO 8601 before
        // 2026-12-07).
        try await browserCheck(out, ["--step", "8", "--expect-rows", rows.joined(separator: "|"), "--expect-written-local",
                                     "--expect-note", "Not recorded at this step (recorded states: #0 (the initial state))."])
        // A page from #5 starts from a state the log did not record: its start says so, and names none before it.
        let from = scratch.file("from.html")
        #expect(try await timeline([path, "--from", "5", "--out", from]).result.status == 0)
        try await browserCheck(from, ["--step", "0", "--expect-note", "Not recorded at this step. An inspector"])
        try await browserCheck(from, ["--step", "6", "--expect-note", "Not recorded at this step. An inspector"])
    }

    @Test("a damaged log: the page holds the rest, names what was left out and the states it could not rebuild, exit 5")
    func damaged() async throws {
        let path = scratch.file("damaged.reactorlog")
        #expect(try await Tool.run(["demo", "--out", path, "--actions", "2000", "--durability", "nosync"]).status == 0)
        // A block whose next states are not recorded, so that some are rebuilt through the damage.
        let snapshots = try EventLog.openReadOnly(at: path).snapshotSequences(stream: "counter")
        try LogDamage.flipByte(of: path, database: "entries", mask: 0x40) { LogDamage.blockBeforeUnreadableStates($0, snapshots: snapshots) }
        let out = scratch.file("damaged.html")
        let (result, page) = try await timeline([path, "--out", out])
        #expect(result.status == 5, "\(result.error)")
        let left = try #require(result.error.firstMatch(of: /reactorlog: #(\d+)…#(\d+) were left out, the rest shown: Entry #\d+ is corrupt/), "\(result.error)")
        let (first, last) = (try #require(Int(left.1)), try #require(Int(left.2)))
        let data = try embedded(try #require(page))
        #expect((data["range"] as? [String: Any])?["note"] as? String == "#\(first)…#\(last) were left out: they could not be read, and `reactorlog verify` names the damage.")
        let entries = try #require(data["entries"] as? [[String: Any]])
        let numbers = entries.compactMap { $0["s"] as? Int }
        #expect(!numbers.isEmpty && !numbers.contains { (first...last).contains($0) } && numbers.last == 8_002)
        // After the stretch, states rebuilt through it are unknown, until one rebuilt from a snapshot after it.
        let unreadable = entries.filter { $0["x"] as? Bool == true }.compactMap { $0["s"] as? Int }
        #expect(!unreadable.isEmpty && unreadable.allSatisfy { $0 > last }, "\(unreadable)")
        // A page from after the damage: the state before its first entry cannot be rebuilt either. (The browser steps
        // there with the keyboard from the nearer end: this page's start.)
        let laterOut = scratch.file("later.html")
        let (later, laterPage) = try await timeline([path, "--from", "\(last + 2)", "--out", laterOut])
        #expect(later.status == 5 && later.error.contains("states were not shown, the rest shown: Entry #\(first) is corrupt"), "\(later.error)")
        let laterData = try embedded(try #require(laterPage))
        #expect(laterData["startUnreadable"] as? Bool == true)
        let step = try #require((laterData["entries"] as? [[String: Any]])?.first { $0["x"] as? Bool == true }?["s"] as? Int)
        try await browserCheck(laterOut, ["--step", "\(step)", "--expect-note", "Not known at this step: it would be rebuilt through entries that could not be read."])
    }

    @Test("without the reducer, a recorded state whose snapshot cannot be read is named so in the page, the browser, log --changes and show, exit 5")
    func unreadableSnapshot() async throws {
        let path = scratch.file("damaged-snapshot.reactorlog")
        #expect(try await Tool.run(["demo", "--out", path, "--actions", "2000", "--durability", "nosync"]).status == 0)
        let key = try LogDamage.flipByte(of: path, database: "snapshots", mask: 0x40) { $0[$0.count / 2] }
        let damaged = Int(key.suffix(8).reduce(0) { $0 << 8 | UInt64($1) })
        // example-inspector does not know the counter reactor: the state at the damaged snapshot's step is not known.
        let out = scratch.file("damaged-snapshot.html")
        // A few entries around it: the browser steps to it with the keyboard.
        let result = try await Tool.run("example-inspector", ["timeline", path, "--stream", "counter", "--from", "\(damaged - 3)", "--to", "\(damaged + 3)", "--out", out])
        #expect(result.status == 5 && result.error.contains("The snapshot of stream 'counter' at #\(damaged) is corrupt"), "\(result.error)")
        let entries = try #require(try embedded(try String(contentsOfFile: out, encoding: .utf8))["entries"] as? [[String: Any]])
        #expect(entries.filter { $0["z"] as? Bool == true }.compactMap { $0["s"] as? Int } == [damaged])
        #expect(!entries.contains { $0["x"] as? Bool == true }, "no entry is damaged")
        try await browserCheck(out, ["--step", "\(damaged)", "--expect-note", "Not known at this step: it was recorded in a snapshot that cannot be read."])
        // Before, `log --changes` said the state would be rebuilt through entries that could not be read.
        let listed = try await Tool.run("example-inspector", ["log", path, "--stream", "counter", "--changes", "--from", "\(damaged)", "--to", "\(damaged)"])
        #expect(listed.status == 5 && listed.lines.last?.trimmingCharacters(in: .whitespaces) == "state not known: it was recorded in a snapshot that cannot be read", "\(listed.output)")
        let json = try await Tool.run("example-inspector", ["log", path, "--stream", "counter", "--changes", "--from", "\(damaged)", "--to", "\(damaged)", "--json"])
        #expect(json.output.contains(#""stateUnknown":"snapshotUnreadable""#), "\(json.output)")
        // `show` of the mutation whose state after it is the damaged one: the state before it was not recorded either,
        // which alone said "the states around it were not recorded", exit 0.
        let shown = try await Tool.run("example-inspector", ["show", path, "\(damaged)"])
        #expect(shown.status == 5, "\(shown.output)")
        #expect(shown.lines.contains { $0.hasPrefix("state change: not shown: The state of 'counter' at #\(damaged) was recorded in a snapshot that cannot be read") }, "\(shown.output)")
    }

    @Test("in a browser, an integer past 2^53 and a long decimal show every digit in the tree, the diff and blame")
    func exactNumbers() async throws {
        let path = scratch.file("ids.reactorlog")
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = .everyMutation
        let log = try EventLog.open(at: path, configuration: configuration)
        struct State: Codable { var id: Int64; var rate: Decimal; var ratio: Double }
        let stream = try log.openStream(named: "ids", reactorType: "MyApp.IDsReactor", schemaFingerprint: "v1",
                                        initialState: State(id: 0, rate: 0, ratio: 0))
        let states = [State(id: 1_795_878_961_569_513_827, rate: Decimal(string: "0.12345678901234567891")!, ratio: 0.1),
                      State(id: 1_795_878_961_569_513_828, rate: Decimal(string: "0.12345678901234567892")!, ratio: 0.1)]
        for state in states {
            try stream.writeSnapshot(state, at: try stream.append(.mutation, ["set": ["_0": state.id]], caseName: "set"))
        }
        try log.close()
        let out = scratch.file("ids.html")
        let written = try await timeline([path, "--out", out])
        #expect(written.result.status == 0)
        #expect(written.page?.contains(#"id="timeline-data" data-exact="true""#) == true, "the page reads its numbers exactly")
        // A double would show both ids as 1795878961569513700 and both rates as 0.12345678901234568, and no change
        // between them; a number a double holds stays one.
        try await browserCheck(out, ["--step", "3", "--expect", "id=1795878961569513828", "--expect", "rate=0.12345678901234567892",
                                     "--expect", "ratio=0.1",
                                     "--expect-diff", "~ id: 1795878961569513827 → 1795878961569513828",
                                     "--expect-diff", "~ rate: 0.12345678901234567891 → 0.12345678901234567892",
                                     "--blame", "id=3", "--blame", "rate=3"])
    }

    @Test("in a browser: the slider moves through states, the tree and the diff match the CLI's, blame lists the change, Play keeps the recorded pace")
    func browser() async throws {
        let demo = try await Tool.demoLog(in: scratch)
        let out = scratch.file("search.html")
        #expect(try await timeline([demo, "--stream", "search", "--out", out]).result.status == 0)
        // What the page must show at #27 (a page appended) and #24 (a new search's results replacing the old ones) is
        // what `reactorlog state`, `diff` and `blame` say.
        for step in [27, 24] {
            let state = try #require(try JSONSerialization.jsonObject(
                with: Data(try await Tool.run(["state", demo, "--stream", "search", "--at", "\(step)", "--json"]).output.utf8)) as? [String: Any])
            let value = try #require(state["value"] as? [String: Any])
            var arguments = ["--step", "\(step)"]
            for (key, member) in value where !(member is [Any]) {
                let json = String(decoding: try JSONSerialization.data(withJSONObject: member, options: .fragmentsAllowed), as: UTF8.self)
                arguments += ["--expect", "\(key)=\(json)"]
            }
            let diff = try await Tool.run(["diff", demo, "\(step - 1)", "\(step)", "--stream", "search"]).lines.dropFirst()
            #expect(!diff.isEmpty)
            if step == 24 { #expect(diff.contains { $0.hasPrefix("~ repos[0...9]: 10 changed (") }, "\(diff)") }
            for line in diff { arguments += ["--expect-diff", line] }
            let blame = try #require(try JSONSerialization.jsonObject(
                with: Data(try await Tool.run(["blame", demo, "nextPage", "--stream", "search", "--to", "\(step)", "--json"]).output.utf8)) as? [[String: Any]])
            let lastChange = try #require(blame.last?["sequence"] as? Int)
            arguments += ["--blame", "nextPage=\(lastChange)"]
            try await browserCheck(out, arguments)
        }
        // With mutations and errors hidden, the next button steps from action to action: #19, #22, #25; and Play at a
        // tenth of the recorded pace (the demo's 252 ms in about 2.5 s) shows the actions and markers alone, each no
        // sooner than its recorded time allows.
        try await browserCheck(out, ["--step", "19", "--hide", "mutation", "--hide", "error", "--next", "2", "--expect-label", "#25 action loadNextPage",
                                     "--play", "0.1"])
    }

    @Test("in a browser: a page of 100 000 entries loads, steps and shows the state")
    func large() async throws {
        let log = scratch.file("long.reactorlog")
        #expect(try await Tool.run(["demo", "--out", log, "--actions", "25000", "--durability", "nosync"]).status == 0)
        let out = scratch.file("long.html")
        let written = try await timeline([log, "--out", out])
        #expect(written.result.status == 0, "\(written.result.error)")
        #expect(written.result.output.contains("100000 entries"))
        let state = try #require(try JSONSerialization.jsonObject(
            with: Data(try await Tool.run(["state", log, "--at", "99990", "--json"]).output.utf8)) as? [String: Any])
        let value = try #require((state["value"] as? [String: Any])?["value"] as? Int)
        let blame = try #require(try JSONSerialization.jsonObject(
            with: Data(try await Tool.run(["blame", log, "value", "--from", "99900", "--to", "99990", "--json"]).output.utf8)) as? [[String: Any]])
        let lastChange = try #require(blame.last?["sequence"] as? Int)
        try await browserCheck(out, ["--step", "99990", "--expect", "value=\(value)", "--blame", "value=\(lastChange)"])
    }
}

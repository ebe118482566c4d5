import EventLogKit
import Foundation
import LMDB
import TestSupport
import Testing

/// `reactorlog pack` and range exports: a bug report's slice of a log replays exactly the original's states, opened
/// directly or after `import`, and import refuses what would replay differently.
@Suite("pack and range exports", .serialized, .timeLimit(.minutes(3)))
struct PackTests {
    let scratch = ScratchDirectory()

    func reactorlog(_ arguments: String...) async throws -> Tool.Result {
        try await Tool.run(arguments)
    }

    func jsonLines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// `state` and `diff` of `stream` at each step, as the command prints them.
    func views(_ log: String, stream: String, steps: ClosedRange<UInt64>) async throws -> [String] {
        var views: [String] = []
        for step in steps {
            let state = try await reactorlog("state", log, "--stream", stream, "--at", "\(step)")
            let diff = try await reactorlog("diff", log, "--stream", stream, "\(step - 1)", "\(step)")
            views.append("#\(step) \(state.status) \(state.output)\(state.error)")
            if step > steps.lowerBound { views.append("#\(step) diff \(diff.status) \(diff.output)\(diff.error)") }
        }
        return views
    }

    @Test("a pack of a range starts from the reducer's state before it and gives the original's states and diffs, directly and imported")
    func packRange() async throws {
        let demo = try await Tool.demoLog(in: scratch)
        let pack = scratch.file("bug.pack")
        let packed = try await reactorlog("pack", demo, "--stream", "search", "--from", "20", "--to", "30", "--out", pack)
        #expect(packed.status == 0, "\(packed.error)")
        #expect(packed.output.contains("Packed 11 entries of 'search' (from its state after #19)"), "\(packed.output)")
        let lines = try jsonLines(pack)
        let header = try #require(lines.first?["reactorlog"] as? [String: Any])
        #expect((header["streams"] as? [[String: Any]])?.first?["startsAfter"] as? Int == 19)
        #expect((lines[1]["snapshot"] as? [String: Any])?["sequence"] as? Int == 19, "the starting state comes first")
        let entries = lines.compactMap { $0["entry"] as? [String: Any] }
        #expect(entries.map { $0["sequence"] as? Int } == Array(20...30).map(Optional.some))

        let original = try await views(demo, stream: "search", steps: 19...30)
        #expect(try await views(pack, stream: "search", steps: 19...30) == original)
        let imported = scratch.file("bug.reactorlog")
        #expect(try await reactorlog("import", pack, imported).status == 0)
        #expect(try await views(imported, stream: "search", steps: 19...30) == original)
        #expect(try await reactorlog("verify", imported).status == 0)
        // Numbers, times, causes and markers as the original has them.
        let originalLog = try await reactorlog("log", demo, "--stream", "search", "--from", "20", "--to", "30", "--json")
        #expect(try await reactorlog("log", pack, "--json").output == originalLog.output)

        // info on the pack: the source's creation, the entries it holds and the highest number, the file's size.
        let info = try #require(try JSONSerialization.jsonObject(with: Data(try await reactorlog("info", pack, "--json").output.utf8)) as? [String: Any])
        let source = try #require(try JSONSerialization.jsonObject(with: Data(try await reactorlog("info", demo, "--json").output.utf8)) as? [String: Any])
        #expect(info["createdAt"] as? String == source["createdAt"] as? String)
        #expect(info["export"] as? Bool == true && source["export"] as? Bool == false)
        #expect(info["entries"] as? Int == 11 && info["highestSequence"] as? Int == 30 && source["entries"] as? Int == 73)
        #expect(info["sizeBytes"] as? Int == (try FileManager.default.attributesOfItem(atPath: pack)[.size] as? Int))
        let summary = try #require(try await reactorlog("info", pack).lines.dropFirst(2).first)
        #expect(summary.hasPrefix("11 entries (numbered up to #30), ") && summary.hasSuffix(" KiB in the file"), "\(summary)")

        let before = try await reactorlog("state", pack, "--stream", "search", "--at", "12")
        #expect(before.status == 2)
        #expect(before.error.contains("only from its state at #19 on"), "\(before.error)")
        // An entry before the pack's range: where its entries are, from the first.
        #expect(try await reactorlog("show", pack, "19").error.contains("The log has no entry #19 (its entries run #20…#30)."))
        // blame without --from covers what the pack holds, from its starting state on, as in the original.
        let blamed = try await reactorlog("blame", pack, "nextPage", "--stream", "search")
        #expect(blamed.status == 0, "\(blamed.error)")
        #expect(blamed.lines.first == "search: nextPage changed 1 time" && blamed.output.contains(#"4 → 2  by #22 updateQuery("rx")"#), "\(blamed.output)")
        #expect(try await reactorlog("blame", pack, "nextPage", "--stream", "search", "--from", "5").error.contains("only from its state at #19 on"))
    }

    @Test("without the reducer a range starts at the nearest recorded state, and every recorded state is the same")
    func packWithoutReducer() async throws {
        let log = try GenericModeTests.userLog(at: scratch.file("user.reactorlog"))
        let pack = scratch.file("user.pack")
        let packed = try await reactorlog("pack", log, "--from", "40", "--out", pack)
        #expect(packed.status == 0, "\(packed.error)")
        // Snapshots at #17, #33, #49, #65, #81: the last before #40 is #33, so the pack holds #34 on.
        #expect(packed.output.contains("from its state after #33"), "\(packed.output)")
        let entries = try jsonLines(pack).compactMap { $0["entry"] as? [String: Any] }
        #expect(entries.first?["sequence"] as? Int == 34)
        for step in [33, 49, 65, 81] {
            let original = try await reactorlog("state", log, "--at", "\(step)")
            #expect(try await reactorlog("state", pack, "--at", "\(step)").output == original.output, "#\(step)")
        }
    }

    @Test("a damaged snapshot is left out of an export and a pack, which replay the same; each says so and exits 5")
    func damagedSnapshot() async throws {
        let log = try GenericModeTests.userLog(at: scratch.file("damaged-snapshot.reactorlog"))
        // Snapshots at #17, #33, #49, #65, #81; the record of #33 damaged under its checksum.
        let key = try LogDamage.flipByte(of: log, database: "snapshots", mask: 0x40) { $0[1] }
        #expect(key.suffix(8).reduce(0) { $0 << 8 | UInt64($1) } == 33)
        let said = "snapshot was left out, the rest %@: The snapshot of stream 'items' at #33 is corrupt"
        let recorded = [17, 49, 65, 81]
        var original: [String] = []
        for step in recorded { original.append(try await reactorlog("state", log, "--at", "\(step)").output) }

        let exported = scratch.file("damaged-snapshot.jsonl")
        let export = try await reactorlog("export", log, "--out", exported)
        #expect(export.status == 5 && export.error.contains("A damaged " + said.replacingOccurrences(of: "%@", with: "written")), "\(export.error)")
        let imported = scratch.file("damaged-snapshot-imported.reactorlog")
        #expect(try await reactorlog("import", exported, imported).status == 0)
        #expect(try await reactorlog("verify", imported).status == 0)
        for (step, state) in zip(recorded, original) {
            #expect(try await reactorlog("state", imported, "--at", "\(step)").output == state, "#\(step)")
        }

        // A pack from #40 starts at the recorded state before the damaged one, and holds the entries after it.
        let pack = scratch.file("damaged-snapshot.pack")
        let packed = try await reactorlog("pack", log, "--from", "40", "--out", pack)
        #expect(packed.status == 5 && packed.error.contains(said.replacingOccurrences(of: "%@", with: "packed")), "\(packed.error)")
        #expect(packed.output.contains("from its state after #17"), "\(packed.output)")
        for (step, state) in zip(recorded, original) {
            #expect(try await reactorlog("state", pack, "--at", "\(step)").output == state, "#\(step)")
        }
    }

    /// Before 2026-12-04 the snapshot was left out of lists and exports, and where it was a trimmed
    /// stream's base every state, export, blame and timeline of the stream failed.
    @Test("a snapshot under a key of the wrong length is read where its record places it: listed, counted, exported whole; a trimmed stream's base too")
    func snapshotKeyOfWrongLength() async throws {
        let log = try GenericModeTests.userLog(at: scratch.file("snapshot-key.reactorlog"))
        let trimmed = scratch.file("snapshot-key-trimmed.reactorlog"), sound = scratch.file("snapshot-key-sound.reactorlog")
        try FileManager.default.copyItem(atPath: log, toPath: sound)
        #expect(try await reactorlog("trim", sound, "--before", "50").status == 0)
        try FileManager.default.copyItem(atPath: sound, toPath: trimmed)
        let key: [UInt8] = [0, 0, 0, 1] + withUnsafeBytes(of: UInt64(49).bigEndian) { Array($0) }
        try LogDamage.rekey(of: log, database: "snapshots", from: key, to: key + [0])
        let reader = try EventLog.openReadOnly(at: log)
        #expect(try reader.snapshotSequences(stream: "items") == [17, 33, 49, 65, 81])
        #expect(try reader.snapshot(stream: "items", at: 49)?.sequence == 49)
        #expect(try reader.latestSnapshot(stream: "items", atOrBefore: 60)?.sequence == 49)
        let info = try JSONSerialization.jsonObject(with: Data(try await reactorlog("info", log, "--json").output.utf8)) as? [String: Any]
        #expect((info?["streams"] as? [[String: Any]])?.first?["snapshots"] as? Int == 5, "\(String(describing: info))")
        let verify = try await reactorlog("verify", log)
        #expect(verify.status == 1 && verify.output.contains(
            "a snapshot key is 13 bytes, not 12: readers take it as its record says, the snapshot of stream 'items' at #49"
        ), "\(verify.output)")

        let exported = scratch.file("snapshot-key.jsonl")
        let export = try await reactorlog("export", log, "--out", exported)
        #expect(export.status == 0, "\(export.error)")
        let imported = scratch.file("snapshot-key-imported.reactorlog")
        #expect(try await reactorlog("import", exported, imported).status == 0)
        #expect(try EventLog.openReadOnly(at: imported).snapshotSequences(stream: "items") == [17, 33, 49, 65, 81])
        for step in [17, 49, 81] {
            #expect(try await reactorlog("state", imported, "--at", "\(step)").output == (try await reactorlog("state", log, "--at", "\(step)")).output)
        }

        // The base a trim left is the only state the stream's first steps rebuild from.
        try LogDamage.rekey(of: trimmed, database: "snapshots", from: key, to: Array(key.prefix(11)))
        for command in [["state", "--at", "49"], ["state", "--at", "65"], ["export"], ["blame", "itemCount"], ["log", "--changes"]] {
            let damaged = try await Tool.run([command[0], trimmed] + command.dropFirst()), whole = try await Tool.run([command[0], sound] + command.dropFirst())
            #expect(damaged.status == 0 && damaged.output == whole.output && !whole.output.isEmpty, "\(command): \(damaged.error)")
        }
        let page = scratch.file("snapshot-key.html")
        #expect(try await reactorlog("timeline", trimmed, "--out", page).status == 0)
    }

    @Test("a trimmed log exports and imports with its numbers, floors, snapshot times, creation times and policy")
    func trimmedRoundTrip() async throws {
        let demo = try await Tool.demoLog(in: scratch)
        let trimmed = scratch.file("trimmed.reactorlog")
        #expect(try await reactorlog("compact", demo, trimmed).status == 0)
        #expect(try await reactorlog("trim", trimmed, "--before", "30").status == 0)
        for format in ["jsonl", "json"] {
            let file = scratch.file("trimmed.\(format)")
            #expect(try await reactorlog("export", trimmed, "--format", format, "--out", file).status == 0)
            let copy = scratch.file("trimmed-\(format).reactorlog")
            let imported = try await reactorlog("import", file, copy)
            #expect(imported.status == 0, "\(imported.error)")
            #expect(try await reactorlog("verify", copy).status == 0)
            #expect(try await reactorlog("log", copy, "--json").output == (try await reactorlog("log", trimmed, "--json")).output)
            #expect(try await views(copy, stream: "search", steps: 27...33) == (try await views(trimmed, stream: "search", steps: 27...33)))

            let source = try EventLog.openReadOnly(at: trimmed), restored = try EventLog.openReadOnly(at: copy)
            // The same streams, each initial state the same JSON value (an export writes it with its keys sorted).
            let value = { (codec: CodecID, data: Data) in try JSONSerialization.jsonObject(with: try #require(try codec.json(data))) as? NSDictionary }
            let described = { (log: EventLog) in
                try log.streams().map { "\($0.id) \($0.name) \($0.reactorType) \($0.schemaFingerprint) \($0.createdAt) \($0.sequenceFloor) \($0.initialStateCodec)" }
            }
            #expect(try described(restored) == described(source), "names, types, fingerprints, creation times, floors")
            for (mine, theirs) in zip(try restored.streams(), try source.streams()) {
                #expect(try value(mine.initialStateCodec, mine.initialState) == value(theirs.initialStateCodec, theirs.initialState))
            }
            #expect(try restored.metadata().snapshotPolicy == source.metadata().snapshotPolicy)
            #expect(try restored.metadata().sequenceFloor == source.metadata().sequenceFloor)
            // The log's own creation, not the import's.
            #expect(try restored.metadata().createdAt == source.metadata().createdAt)
            #expect(try restored.metadata().createdBy == source.metadata().createdBy)
            for stream in try source.streams() {
                let sequences = try source.snapshotSequences(stream: stream.name)
                #expect(try restored.snapshotSequences(stream: stream.name) == sequences)
                for sequence in sequences {
                    let mine = try #require(try restored.latestSnapshot(stream: stream.name, atOrBefore: sequence))
                    let theirs = try #require(try source.latestSnapshot(stream: stream.name, atOrBefore: sequence))
                    #expect(mine.sequence == theirs.sequence && mine.timestamp == theirs.timestamp && mine.codec == theirs.codec)
                    // The same JSON value (an export writes it with its keys sorted).
                    #expect(try value(mine.codec, mine.state) == value(theirs.codec, theirs.state))
                }
            }
        }
    }

    @Test("a log whose metadata's seal is broken exports its values as stored, the header saying so; import keeps them unvouched, and so do its exports")
    func unvouchedMetadata() async throws {
        let demo = try await Tool.demoLog(in: scratch)
        let sound = scratch.file("sound.jsonl")
        #expect(try await reactorlog("export", demo, "--out", sound).status == 0)
        let soundHeader = try #require(try jsonLines(sound).first?["reactorlog"] as? [String: Any])
        #expect(soundHeader["exportVersion"] as? Int == 2 && soundHeader["metadataDamage"] == nil)

        // A second added to the creation time: still a time, which only the seal tells from the one written.
        let damaged = scratch.file("damaged.reactorlog")
        #expect(try await reactorlog("compact", demo, damaged).status == 0)
        let createdAt: Int64 = try {
            let environment = try Environment(path: damaged)
            let meta = try environment.openDatabase("meta")
            return try environment.write { txn in
                let key = Array("created-at".utf8)
                let value = try #require(try txn.get(meta, key: key))
                let written = try #require(Int64(String(decoding: value, as: UTF8.self)))
                try txn.put(meta, key: key, value: Array(String(written + 1_000_000_000).utf8))
                return written + 1_000_000_000
            }
        }()
        let file = scratch.file("damaged.jsonl")
        let export = try await reactorlog("export", damaged, "--out", file)
        #expect(export.status == 5 && export.error.contains("The header's metadata was written as stored, and says so, the rest written: The log's metadata is corrupt: its checksum does not match"), "\(export.error)")
        let header = try #require(try jsonLines(file).first?["reactorlog"] as? [String: Any])
        let clause = "the metadata's checksum does not match its keys and values, so one of them is damaged"
        // Version 3, which an inspector before it refuses rather than import the values as sound.
        #expect(header["exportVersion"] as? Int == 3 && header["metadataDamage"] as? String == clause)
        #expect((header["createdAt"] as? NSNumber)?.int64Value == createdAt, "the value as stored")
        let lines = { (path: String) in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst().map(String.init) }
        #expect(try lines(file) == lines(sound), "every entry and snapshot as the sound log's export")

        let copy = scratch.file("imported.reactorlog")
        let imported = try await reactorlog("import", file, copy)
        #expect(imported.status == 0 && imported.output.contains("are kept unvouched, as the export's header says: \(clause)"), "\(imported.output)\(imported.error)")
        do {
            let log = try EventLog.openReadOnly(at: copy)
            defer { try? log.close() }
            #expect(throws: EventLogError.unvouchedMetadata(reason: "its values were imported from an export of a log where \(clause)")) {
                try log.metadata()
            }
            let stored = try log.storedMetadata()
            #expect(stored.metadata.unvouched == clause && stored.metadata.createdAt == createdAt)
        }
        let verify = try await reactorlog("verify", copy)
        #expect(verify.status == 0 && verify.output.contains("warning: the metadata's values were imported from an export of a log where \(clause)"), "\(verify.output)")
        let info = try await reactorlog("info", copy)
        #expect(info.status == 5 && info.lines.count > 3, "\(info.error)")
        #expect(info.lines[2] == "the two lines above are as stored, unvouched: the metadata's values were imported from an export of a log where \(clause)")
        #expect(try await reactorlog("log", copy, "--json").output == (try await reactorlog("log", demo, "--json")).output)
        // Its export carries the source's clause, not one wrapped again; the export read directly is marked too.
        let again = scratch.file("again.jsonl")
        #expect(try await reactorlog("export", copy, "--out", again).status == 5)
        #expect((try jsonLines(again).first?["reactorlog"] as? [String: Any])?["metadataDamage"] as? String == clause)
        let direct = try await reactorlog("info", file)
        #expect(direct.status == 5 && direct.lines.count > 2 && direct.lines[2].hasPrefix("the two lines above are as stored, unvouched"), "\(direct.output)")
        // A trim writes the log: the mark stays. The damaged log itself is refused to a writer, its seal broken.
        #expect(try await reactorlog("trim", copy, "--before", "30").status == 0)
        #expect(try await reactorlog("info", copy).lines.dropFirst(2).first?.hasPrefix("the two lines above are as stored, unvouched") == true)
        let refused = try await reactorlog("trim", damaged, "--before", "30")
        #expect(refused.status == 5 && refused.error.contains("The log's metadata is corrupt: its checksum does not match"), "\(refused.error)")
    }

    @Test("import refuses an export that would replay differently: no starting state, a missing one, a newer version")
    func refusals() async throws {
        let demo = try await Tool.demoLog(in: scratch)
        let range = scratch.file("range.jsonl")
        #expect(try await reactorlog("export", demo, "--from", "20", "--to", "30", "--stream", "search", "--out", range).status == 0)
        let lines = try String(contentsOfFile: range, encoding: .utf8).split(separator: "\n").map(String.init)

        // As an export before version 2 wrote a range: no starting state, entries from the middle of the stream.
        let old = scratch.file("old.jsonl")
        let oldHeader = lines[0].replacingOccurrences(of: #""exportVersion":2,"#, with: "").replacingOccurrences(of: #","startsAfter":19"#, with: "")
        try ([oldHeader] + lines.dropFirst(2)).joined(separator: "\n").write(toFile: old, atomically: true, encoding: .utf8)
        let refusedOld = try await reactorlog("import", old, scratch.file("old.reactorlog"))
        #expect(refusedOld.status == 2)
        #expect(refusedOld.error.contains("stream 'search' starts at #20 with neither its opening nor the state before it"), "\(refusedOld.error)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("old.reactorlog")))

        let missing = scratch.file("missing.jsonl")
        try ([lines[0]] + lines.dropFirst(2)).joined(separator: "\n").write(toFile: missing, atomically: true, encoding: .utf8)
        let refusedMissing = try await reactorlog("state", missing, "--at", "25")
        #expect(refusedMissing.status == 2)
        #expect(refusedMissing.error.contains("starts stream 'search' after #19 but lacks its state there"), "\(refusedMissing.error)")

        let newer = scratch.file("newer.jsonl")
        try ([lines[0].replacingOccurrences(of: #""exportVersion":2"#, with: #""exportVersion":4"#)] + lines.dropFirst())
            .joined(separator: "\n").write(toFile: newer, atomically: true, encoding: .utf8)
        let refusedNewer = try await reactorlog("import", newer, scratch.file("newer.reactorlog"))
        #expect(refusedNewer.status == 4)
        #expect(refusedNewer.error.contains("export versions up to 3"), "\(refusedNewer.error)")
    }

    @Test("--last keeps the entries of the last stretch of time; --redact masks a key everywhere, keeping its shape")
    func lastAndRedact() async throws {
        struct Login: Codable { var user: String; var password: String }
        struct State: Codable { var user: String; var password: String; var attempts: Int }
        let path = scratch.file("login.reactorlog")
        let log = try EventLog.open(at: path)
        let stream = try log.openStream(
            named: "login", reactorType: "MyApp.LoginReactor", schemaFingerprint: "v1",
            initialState: State(user: "", password: "", attempts: 0))
        let start: Int64 = 1_800_000_000_000_000_000
        for minute in 1...60 {
            let time = start + Int64(minute) * 60_000_000_000
            let action = try stream.append(EntryDraft(
                kind: .action, caseName: "login", payload: try JSONEncoder().encode(["login": Login(user: "ann", password: "secret\(minute)")]),
                timestamp: time))
            let mutation = try stream.append(EntryDraft(kind: .mutation, caseName: "attempt", payload: Data(#"{"attempt":{}}"#.utf8), cause: action, timestamp: time))
            if minute % 10 == 0 { try stream.writeSnapshot(State(user: "ann", password: "secret\(minute)", attempts: minute), at: mutation) }
        }
        try log.close()

        let pack = scratch.file("login.pack")
        let packed = try await reactorlog("pack", path, "--last", "15m", "--redact", "password", "--out", pack)
        #expect(packed.status == 0, "\(packed.error)")
        let entries = try jsonLines(pack).compactMap { $0["entry"] as? [String: Any] }
        // Minutes 45…60 are within 15 minutes of the last entry; the state before them is the snapshot at minute 40.
        let actions = entries.filter { $0["kind"] as? String == "action" }
        #expect(actions.count == 20, "minutes 41…60: the pack starts after the recorded state of minute 40")
        let text = try String(contentsOfFile: pack, encoding: .utf8)
        #expect(!text.contains("secret"), "no password is left")
        #expect(text.contains(#""password":"[redacted]""#))
        #expect(text.contains(#""user":"ann""#), "other keys stay")
        let state = try await reactorlog("state", pack, "--at", "\(60 * 2 + 1)")
        #expect(state.status == 0, "\(state.error)")
        #expect(state.output.contains("attempts: 60") || state.output.contains(#""attempts": 60"#), "\(state.output)")
        // A length in parts, as a user says it, each part counted: 0h15m is 15m's stretch, not 0h's (the last minute,
        // after the snapshot of minute 50); 0h30m reaches back to minute 30, after the snapshot of minute 20.
        for (last, actions) in [("0h15m", 20), ("0h30m", 40), ("0h", 10)] {
            let result = try await reactorlog("pack", path, "--last", last, "--out", pack, "--force")
            #expect(result.status == 0, "\(result.error)")
            let kinds = try jsonLines(pack).compactMap { ($0["entry"] as? [String: Any])?["kind"] as? String }
            #expect(kinds.filter { $0 == "action" }.count == actions, "--last \(last)")
        }
    }

    @Test("--since and --until pack the entries of a span of time a bug report names; a span with none is refused")
    func sinceAndUntil() async throws {
        let path = scratch.file("minutes.reactorlog")
        let log = try EventLog.open(at: path)
        let stream = try log.openStream(named: "minutes", reactorType: "MyApp.MinuteReactor", schemaFingerprint: "v1", initialState: ["count": 0])
        // 2027-01-15T08:00:00Z, then an action and its mutation each minute: minute m's are #2m and #2m+1.
        let start: Int64 = 1_800_000_000_000_000_000
        for minute in 1...60 {
            let time = start + Int64(minute) * 60_000_000_000
            let action = try stream.append(EntryDraft(kind: .action, caseName: "tick", payload: Data(#"{"tick":{}}"#.utf8), timestamp: time))
            try stream.append(EntryDraft(kind: .mutation, caseName: "count", payload: Data(#"{"count":{}}"#.utf8), cause: action, timestamp: time))
        }
        try log.close()
        func packed(_ arguments: String...) async throws -> [Int] {
            let pack = scratch.file("minutes.pack")
            let result = try await Tool.run(["pack", path, "--out", pack, "--force"] + arguments)
            #expect(result.status == 0, "\(result.error)")
            return try jsonLines(pack).compactMap { ($0["entry"] as? [String: Any])?["sequence"] as? Int }
        }
        // --until names its whole second: minute 30's entries are in, minute 31's out.
        #expect(try await packed("--until", "2027-01-15T08:30:00Z").last == 61)
        #expect(try await packed("--until", "2027-01-15T08:30:59.999Z").last == 61)
        let span = try await packed("--since", "2027-01-15T08:20:00.000Z", "--until", "2027-01-15T08:30:00Z")
        // Without a reducer or a snapshot, the stream's state before minute 20 is its start: the pack begins there.
        #expect(span.contains(40) && span.last == 61, "\(span)")
        // The stream was opened now, its entries written in 2027.
        let opened = try #require(try jsonLines(scratch.file("minutes.pack")).compactMap { $0["entry"] as? [String: Any] }.first?["time"] as? String)
        // Named in local time, as listings print times (here UTC, the export's zone).
        let early = try await Tool.run(
            Tool.products.appendingPathComponent("reactorlog"), ["pack", path, "--until", "2026-01-01T00:00:00Z", "--out", scratch.file("early.pack")],
            environment: ["TZ": "UTC"])
        #expect(early.status == 2)
        let openedLocal = opened.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "")
        #expect(early.error == "reactorlog: The log has no entry until 2026-01-01T00:00:00Z: its entries were written between \(openedLocal) and 2027-01-15 09:00:00.000. Choose times between them.\n")
        let late = try await Tool.run(["pack", path, "--since", "2027-01-15T09:00:00.001Z", "--out", scratch.file("late.pack")])
        #expect(late.status == 2 && late.error.contains("has no entry since 2027-01-15T09:00:00.001Z"), "\(late.error)")
        let both = try await Tool.run(["pack", path, "--until", "2027-01-15T08:30:00Z", "--to", "9"])
        #expect(both.status == 64 && both.error.contains("Give --until or --to, not both."))
    }

    @Test("integers beyond a double's 53 bits survive export and import, and diff and blame tell them apart")
    func exactIntegers() async throws {
        struct State: Codable { var id: Int64; var hash: UInt64 }
        let path = scratch.file("ids.reactorlog")
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = .everyMutation
        let log = try EventLog.open(at: path, configuration: configuration)
        let stream = try log.openStream(named: "ids", reactorType: "MyApp.IDsReactor", schemaFingerprint: "v1", initialState: State(id: 0, hash: 0))
        for (step, id) in [Int64(1_795_878_961_569_513_827), 1_795_878_961_569_513_828].enumerated() {
            let sequence = try stream.append(.mutation, ["set": ["_0": id]], caseName: "set")
            try stream.writeSnapshot(State(id: id, hash: UInt64.max - UInt64(step)), at: sequence)
        }
        try log.close()
        let export = scratch.file("ids.jsonl"), imported = scratch.file("ids-imported.reactorlog")
        #expect(try await reactorlog("export", path, "--out", export).status == 0)
        #expect(try await reactorlog("import", export, imported).status == 0)
        let original = try await reactorlog("log", path, "--json").output
        #expect(original.contains(#""_0":1795878961569513828"#), "\(original)")
        #expect(try await reactorlog("log", imported, "--json").output == original)
        for log in [path, imported] {
            let diff = try await reactorlog("diff", log, "2", "3")
            #expect(diff.lines.dropFirst() == ["~ hash: 18446744073709551615 → 18446744073709551614", "~ id: 1795878961569513827 → 1795878961569513828"], "\(diff.output)")
            #expect(try await reactorlog("blame", log, "id").output.contains("1795878961569513827 → 1795878961569513828"))
        }
    }

    @Test("--redact with a case name masks that case's values, unlabelled ones too, and keeps the case")
    func redactCase() async throws {
        let path = scratch.file("token.reactorlog")
        let log = try EventLog.open(at: path)
        let stream = try log.openStream(named: "auth", reactorType: "MyApp.AuthReactor", schemaFingerprint: "v1", initialState: ["token": ""])
        try stream.append(EntryDraft(kind: .mutation, caseName: "setToken", payload: Data(#"{"setToken":{"_0":"abc123"}}"#.utf8)))
        try stream.append(EntryDraft(kind: .mutation, caseName: "setUser", payload: Data(#"{"setUser":{"_0":"ann"}}"#.utf8)))
        try log.close()
        let pack = scratch.file("token.pack")
        #expect(try await reactorlog("pack", path, "--redact", "setToken", "--out", pack).status == 0)
        let text = try String(contentsOfFile: pack, encoding: .utf8)
        #expect(!text.contains("abc123"))
        #expect(text.contains(#""case":"setToken""#) && text.contains(#"{"setToken":{"_0":"[redacted]"}}"#), "\(text)")
        #expect(text.contains(#"{"setUser":{"_0":"ann"}}"#))
        // A misspelt key masks nothing: said on standard error, for pack and export alike, naming only that key.
        let misspelt = try await reactorlog("pack", path, "--redact", "setToken", "--redact", "settoken", "--out", scratch.file("typo.pack"))
        #expect(misspelt.status == 0)
        #expect(misspelt.error == "reactorlog: warning: --redact 'settoken' matched no key in what was written, so nothing was masked for it. Keys match exactly, case included: check the spelling.\n")
        let export = try await reactorlog("export", path, "--redact", "pasword", "--redact", "token")
        #expect(export.error.contains("--redact 'pasword' matched no key") && !export.error.contains("'token'"), "\(export.error)")
        #expect(try await reactorlog("export", path, "--redact", "setUser").error.isEmpty)
    }
}

/// Logs whose retention removed stretches and kept pins, through the inspector.
@Suite("retention through the inspector", .timeLimit(.minutes(2)))
struct RetentionInspectorTests {
    let scratch = ScratchDirectory()

    /// 60 mutations of a stream the generic inspector does not know, a snapshot every 5 (#6, #11, …, #56), the
    /// stretch #20…#36 removed (up to the snapshot at #36), and a pin on #40…#45.
    static func gappedLog(at path: String) throws -> String {
        var configuration = EventLogConfiguration()
        configuration.snapshotPolicy = .every(mutations: 5)
        let log = try EventLog.open(at: path, configuration: configuration)
        let stream = try log.openStream(named: "shop", reactorType: "MyApp.Shop", schemaFingerprint: "v1", initialState: 0)
        for index in 1...60 {
            let sequence = try stream.append(.mutation, ["add": ["_0": index]], caseName: "add")
            if stream.isSnapshotDue { try stream.writeSnapshot(index * (index + 1) / 2, at: sequence) }
        }
        try log.removeEntries(20..<40)
        try log.pin(40...45, reason: "ticket 17")
        try log.close()
        return path
    }

    @Test("info lists gaps and pins; state inside a gap names it; export and import keep the gap")
    func gapsThroughTheInspector() async throws {
        let log = try Self.gappedLog(at: scratch.file("gapped.reactorlog"))
        let info = try await Tool.run(["info", log])
        #expect(info.status == 0, "\(info.error)")
        #expect(info.output.contains("format 8"))
        #expect(info.output.contains("shop  #20…#36"), "\(info.output)")
        #expect(info.output.contains("#40…#45  ticket 17"), "\(info.output)")
        let inside = try await Tool.run(["state", log, "--at", "26"])
        #expect(inside.status == 2)
        #expect(inside.error.contains("Retention removed the entries of 'shop' from #20 to #36"), "\(inside.error)")

        let export = scratch.file("gapped.jsonl")
        #expect(try await Tool.run(["export", log, "--out", export]).status == 0)
        let copy = scratch.file("copy.reactorlog")
        let imported = try await Tool.run(["import", export, copy])
        #expect(imported.status == 0, "\(imported.error)")
        #expect(try EventLog.openReadOnly(at: copy).gaps(stream: "shop") == EventLog.openReadOnly(at: log).gaps(stream: "shop"))
        #expect(try EventLog.openReadOnly(at: copy).pins() == EventLog.openReadOnly(at: log).pins(), "the pin, its time kept")
        for step in ["16", "36", "41", "56"] {
            #expect(try await Tool.run(["state", copy, "--at", step]).output == (try await Tool.run(["state", log, "--at", step])).output, "#\(step)")
        }
        #expect(try await Tool.run(["verify", copy]).status == 0)

        // A pack carries the pins whose window meets its range, and no other.
        let late = scratch.file("late.pack")
        #expect(try await Tool.run(["pack", log, "--from", "50", "--out", late]).status == 0)
        #expect(!(try String(contentsOfFile: late, encoding: .utf8)).contains("ticket 17"))
        let pinned = scratch.file("pinned.pack")
        #expect(try await Tool.run(["pack", log, "--from", "44", "--out", pinned]).status == 0)
        let packInfo = try await Tool.run(["info", pinned])
        #expect(packInfo.output.contains("#40…#45  ticket 17"), "\(packInfo.output)")
    }

    @Test("a pin from #0, which the library takes, is exported and imported as it is")
    func pinFromZero() async throws {
        let path = scratch.file("zero-pin.reactorlog")
        let log = try EventLog.open(at: path)
        let stream = try log.openStream(named: "shop", reactorType: "MyApp.Shop", schemaFingerprint: "v1", initialState: 0)
        for index in 1...3 { _ = try stream.append(.mutation, ["add": ["_0": index]], caseName: "add") }
        try log.pin(0...2, reason: "from the start")
        try log.close()
        let export = scratch.file("zero-pin.jsonl")
        #expect(try await Tool.run(["export", path, "--out", export]).status == 0)
        let copy = scratch.file("zero-pin-copy.reactorlog")
        let imported = try await Tool.run(["import", export, copy])
        #expect(imported.status == 0, "\(imported.error)")
        #expect(try EventLog.openReadOnly(at: copy).pins() == EventLog.openReadOnly(at: path).pins())
    }

    @Test("show names the pins whose window holds the entry, in its rows and its JSON, and none elsewhere")
    func showNamesPins() async throws {
        let log = try Self.gappedLog(at: scratch.file("pinned.reactorlog"))
        let inside = try await Tool.run(["show", log, "42"])
        #expect(inside.status == 0, "\(inside.error)")
        #expect(inside.output.contains("  pinned  ticket 17 (#40…#45)\n"), "\(inside.output)")
        let json = try JSONSerialization.jsonObject(with: Data(try await Tool.run(["show", log, "42", "--json"]).output.utf8)) as? [String: Any]
        let pins = try #require(json?["pins"] as? [[String: Any]])
        #expect(pins.count == 1 && pins.first?["reason"] as? String == "ticket 17" && pins.first?["from"] as? Int == 40)
        let outside = try await Tool.run(["show", log, "46"])
        #expect(outside.status == 0 && !outside.output.contains("pinned"), "\(outside.output)")
        let outsideJSON = try JSONSerialization.jsonObject(with: Data(try await Tool.run(["show", log, "46", "--json"]).output.utf8)) as? [String: Any]
        #expect(outsideJSON?["pins"] == nil)
    }

    @Test("a damaged pin record: info and show name it damaged, verify fails on it, and export and import keep its window as a pin anew")
    func damagedPin() async throws {
        let log = try Self.gappedLog(at: scratch.file("damaged-pin.reactorlog"))
        // The middle of the record: its last sequence number, under its checksum; the key still says #40…#45.
        try LogDamage.flipByte(of: log, database: "pins", mask: 0x40) { $0[0] }
        let said = "a damaged pin record: its reason is lost; its window is kept (reactorlog verify)"
        let info = try await Tool.run(["info", log])
        #expect(info.status == 0, "\(info.error)")
        #expect(info.output.contains("#40…#45  \(said)"), "\(info.output)")
        let json = try JSONSerialization.jsonObject(with: Data(try await Tool.run(["info", log, "--json"]).output.utf8)) as? [String: Any]
        let pin = try #require((json?["pins"] as? [[String: Any]])?.first)
        #expect(pin["damaged"] as? Bool == true && pin["from"] as? Int == 40 && pin["through"] as? Int == 45 && pin["createdAt"] == nil, "\(pin)")
        let show = try await Tool.run(["show", log, "42"])
        #expect(show.output.contains("  pinned  \(said) (#40…#45)\n"), "\(show.output)")
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status != 0)
        #expect((verify.output + verify.error).contains("retention keeps #40…#45"), "\(verify.output)\(verify.error)")

        let export = scratch.file("damaged-pin.jsonl")
        #expect(try await Tool.run(["export", log, "--out", export]).status == 0)
        let copy = scratch.file("damaged-pin-copy.reactorlog")
        let imported = try await Tool.run(["import", export, copy])
        #expect(imported.status == 0, "\(imported.error)")
        let restored = try EventLog.openReadOnly(at: copy).pins()
        #expect(restored.map(\.range) == [40...45] && !restored[0].isDamaged, "\(restored)")
        #expect(restored.first?.reason == "kept for a pin whose record was damaged (its reason was lost)")
        #expect(try await Tool.run(["verify", copy]).status == 0)
    }

    @Test("a damaged gap record stands for the gap the stream's entries show: info, state, export read on, verify names it, and a removal across it writes it anew")
    func damagedGap() async throws {
        let log = try Self.gappedLog(at: scratch.file("damaged-gap.reactorlog"))
        let sound = try Self.gappedLog(at: scratch.file("sound-gap.reactorlog"))
        // The middle of the record: the gap's first number, under its checksum; the key still says stream 1, #36.
        try LogDamage.flipByte(of: log, database: "gaps", mask: 0x40) { $0[0] }
        let info = try await Tool.run(["info", log])
        #expect(info.status == 0, "\(info.error)")
        #expect(info.output.contains("shop  #20…#36"), "\(info.output)")
        for step in ["16", "41", "56"] {
            let state = try await Tool.run(["state", log, "--at", step]), expected = try await Tool.run(["state", sound, "--at", step])
            #expect(state.status == 0 && state.output == expected.output, "#\(step): \(state.error)")
        }
        let inside = try await Tool.run(["state", log, "--at", "26"])
        #expect(inside.status == 2 && inside.error.contains("Retention removed the entries of 'shop' from #20 to #36"), "\(inside.error)")
        let export = try await Tool.run(["export", log])
        #expect(export.status == 0 && export.output.contains("\"gaps\":[{\"from\":20,\"through\":36}]"), "\(export.error)")
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1)
        #expect(verify.output.contains(
            "error at #36: the gap record of stream 'shop' is damaged (its checksum, key or bounds do not match): readers take the gap as #20…#36, from the stream's entries"
        ), "\(verify.output)")
        #expect(!verify.output.contains("missing before it"), "the entries the gap removed are not damage: \(verify.output)")

        // Removing a stretch that reaches the gap's snapshot merges the two into a new record.
        do {
            let writer = try EventLog.open(at: log)
            try writer.removeEntries(10..<42)
            try writer.close()
        }
        #expect(try EventLog.openReadOnly(at: log).gaps(stream: "shop").map(\.removed) == [10...41])
        #expect(try await Tool.run(["verify", log]).status == 0)
    }

    @Test("a gap record under a key a bad bit changed is read as its record says, and verify names it")
    func movedGapKey() async throws {
        let log = try Self.gappedLog(at: scratch.file("moved-gap.reactorlog"))
        func key(_ sequence: UInt64) -> [UInt8] { [0, 0, 0, 1] + withUnsafeBytes(of: sequence.bigEndian) { Array($0) } }
        try LogDamage.rekey(of: log, database: "gaps", from: key(36), to: key(38))
        #expect(try EventLog.openReadOnly(at: log).gaps(stream: "shop").map(\.removed) == [20...36])
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1 && verify.output.contains("error at #38: the gap record of stream 'shop' is damaged"), "\(verify.output)")
        #expect(try await Tool.run(["state", log, "--at", "26"]).status == 2)
    }

    @Test("a gap record under a key of the wrong length is read as its record says: info, state, removal and trim read on, verify names it", arguments: [11, 13])
    func gapKeyOfWrongLength(length: Int) async throws {
        let log = try Self.gappedLog(at: scratch.file("gap-key-\(length).reactorlog"))
        let sound = try Self.gappedLog(at: scratch.file("gap-key-sound-\(length).reactorlog"))
        let key: [UInt8] = [0, 0, 0, 1] + withUnsafeBytes(of: UInt64(36).bigEndian) { Array($0) }
        try LogDamage.rekey(of: log, database: "gaps", from: key, to: Array((key + [0]).prefix(length)))
        #expect(try EventLog.openReadOnly(at: log).gaps(stream: "shop").map(\.removed) == [20...36])
        let info = try await Tool.run(["info", log])
        #expect(info.status == 0 && info.output.contains("shop  #20…#36"), "\(info.output)\(info.error)")
        for step in ["16", "41"] {
            let state = try await Tool.run(["state", log, "--at", step]), expected = try await Tool.run(["state", sound, "--at", step])
            #expect(state.status == 0 && state.output == expected.output, "#\(step): \(state.error)")
        }
        #expect(try await Tool.run(["state", log, "--at", "26"]).error.contains("Retention removed the entries of 'shop' from #20 to #36"))
        let verify = try await Tool.run(["verify", log])
        #expect(verify.status == 1 && verify.output.contains(
            "a gap record's key is \(length) bytes, not 12: readers take it as its record says, the gap of stream 'shop' #20…#36"
        ), "\(verify.output)")
        #expect(!verify.output.contains("missing"), "the entries the gap removed are not damage: \(verify.output)")

        // A removal across it takes the record in, wherever its key put it; a trim past it deletes it.
        let writer = try EventLog.open(at: log)
        try writer.removeEntries(10..<42)
        #expect(try writer.gaps(stream: "shop").map(\.removed) == [10...41])
        try writer.close()
        #expect(try await Tool.run(["verify", log]).status == 0)
        try LogDamage.rekey(of: sound, database: "gaps", from: key, to: Array((key + [0]).prefix(length)))
        let trimmed = try EventLog.open(at: sound)
        #expect(try trimmed.trim(before: 50).removedEntries > 0)
        #expect(try trimmed.gaps(stream: "shop").isEmpty)
        try trimmed.close()
        #expect(try await Tool.run(["verify", sound]).status == 0)
    }

    @Test("a gap record whose key size a bad bit changed is read from the stream's entries: verify says so, and finds no entries missing", arguments: [UInt8(1), 8])
    func gapKeySizeDamaged(mask: UInt8) async throws {
        let log = try Self.gappedLog(at: scratch.file("gap-size-\(mask).reactorlog"))
        let key: [UInt8] = [0, 0, 0, 1] + withUnsafeBytes(of: UInt64(36).bigEndian) { Array($0) }
        try LogDamage.damageKeySizeInFile(of: log, database: "gaps", mask: mask) { _ in key }
        #expect(try EventLog.openReadOnly(at: log).gaps(stream: "shop").map(\.removed) == [20...36])
        #expect(try await Tool.run(["state", log, "--at", "26"]).error.contains("Retention removed the entries of 'shop' from #20 to #36"))
        let verify = try await Tool.run(["verify", log])
        let size = mask == 1 ? 13 : 4
        #expect(verify.status == 1 && verify.output.contains(
            "error: a gap record's key is \(size) bytes, not 12: its size is damaged, so its record is read from the wrong bytes: readers take the gap of stream 'shop' up to #36 as #20…#36, from the stream's entries"
        ), "\(verify.output)")
        #expect(!verify.output.contains("missing") && !verify.output.contains("does not hold"), "the gap's entries are no damage: \(verify.output)")

        // A grown key on a page's one record runs its value past the page, which a writer refuses to copy or split;
        // a shrunk one is taken in by a removal across it, whose new gap record replaces it.
        guard mask == 8 else {
            #expect(throws: EventLogError.self) { try EventLog.open(at: log) }
            return
        }
        let writer = try EventLog.open(at: log)
        try writer.removeEntries(10..<42)
        #expect(try writer.gaps(stream: "shop").map(\.removed) == [10...41])
        try writer.close()
        #expect(try await Tool.run(["verify", log]).status == 0)
    }
}

@testable import EventLogKit
import Foundation
import LMDB
import TestSupport
import Testing

/// Tools/scripts/read-log.py reads a log with LMDB and JSON alone, following docs/FORMAT.md: the proof that the
/// document is enough, and a check that logs obey the rules it states.
@Suite("FORMAT.md reader", .timeLimit(.minutes(2)))
struct FormatReaderTests {
    let scratch = ScratchDirectory()
    func read(_ arguments: [String]) async throws -> Tool.Result {
        try await Tool.python("read-log.py", arguments)
    }

    @Test("it reads every entry of a demo log, and a copy without a lock file, and finds every rule kept")
    func healthy() async throws {
        let demo = scratch.file("demo.reactorlog")
        #expect(try await Tool.run(["demo", "--out", demo]).status == 0)
        let result = try await read([demo])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("#31 search mutation appendRepos"))
        #expect(result.output.contains(#"#2 search action updateQuery {"updateQuery":{"_0":"s"}} @ reactorlog/Demo.swift:"#), "each action with its call site")
        #expect(result.output.hasSuffix("snapshots, all checksums match\n"))
        let copy = scratch.file("copy.reactorlog")
        try ScratchDirectory.copyLog(at: demo, to: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: copy)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: copy) }
        let fromCopy = try await read([copy, "--copy"])
        #expect(fromCopy.status == 0, "\(fromCopy.error)")
        #expect(!FileManager.default.fileExists(atPath: copy + "/lock.mdb"))
    }

    @Test("what a log holds is printed as the inspector prints it: control characters, newlines too, shown as text, one line an entry")
    func hostileText() async throws {
        let path = scratch.file("hostile.reactorlog")
        let log = try EventLog.open(at: path)
        let forged = "\n12:00:00.000 #99 shop action refund\u{1B}]0;pwned\u{7}\u{202E}"
        let stream = try log.openStream(named: "shop" + forged, reactorType: "Shop", schemaFingerprint: "v1", initialState: 0)
        let action = try stream.append(.action, 1, caseName: "buy" + forged)
        try stream.append(.mutation, 1, caseName: "add" + forged, cause: action)
        try log.close()
        let result = try await read([path])
        #expect(result.status == 0, "\(result.error)")
        // The format line, three entries (the stream's opened marker first), the snapshots' line.
        #expect(result.lines.count == 5, "\(result.output)")
        #expect(result.lines[2].contains(#"shop\u{A}12:00:00.000 #99 shop action refund\u{1B}]0;pwned\u{7}\u{202E} action buy\u{A}"#), "\(result.lines[2])")
        let controls = result.output.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" }
        #expect(controls.isEmpty, "\(controls.map { String($0.value, radix: 16) })")
    }

    @Test("it refuses an entry that breaks a rule, naming it", arguments: [
        (EntryDraft(kind: .action, caseName: "buy", payload: Data("1".utf8), cause: 2), "an action with a cause"),
        (EntryDraft(kind: .mutation, caseName: "add", payload: Data("NaN".utf8)), "not valid JSON"),
        // JSON that Python's or Foundation's parser takes and the log's own readers refuse: both tools refuse it too.
        (EntryDraft(kind: .mutation, caseName: "add", payload: Data("1e999".utf8)), "not valid JSON"),
        (EntryDraft(kind: .mutation, caseName: "add", payload: Data(#""\ud800""#.utf8)), "not valid JSON"),
        (EntryDraft(kind: .mutation, caseName: "add", payload: Data("\u{FEFF}1".utf8)), "not valid JSON"),
        (EntryDraft(kind: .mutation, caseName: "add", payload: Data("[1,]".utf8)), "not valid JSON"),
        (EntryDraft(kind: .mutation, caseName: "add", payload: Data((String(repeating: "[", count: 513) + String(repeating: "]", count: 513)).utf8)), "not valid JSON"),
        (EntryDraft(kind: .mutation, caseName: "add", payload: Data([7]), codec: .none), "codec none with a 1-byte payload"),
        (EntryDraft(kind: .mutation, caseName: "add", payload: Data([0x07, 0x03]), codec: .binary), "binary payload is not well formed"),
        // A decimal number whose text is JSON but not a number: the Python reader stopped with a stack trace.
        (EntryDraft(kind: .mutation, caseName: "add", payload: Data([0x09, 0x03] + Array("[1]".utf8)), codec: .binary), "binary payload is not well formed"),
        (EntryDraft(kind: .streamClosed, caseName: "bogus", payload: Data(), codec: .none), "marker named 'bogus'"),
    ])
    func ruleBreaker(_ draft: EntryDraft, _ rule: String) async throws {
        let path = scratch.file("broken.reactorlog")
        let log = try EventLog.open(at: path)
        let stream = try log.openStream(named: "shop", reactorType: "Shop", schemaFingerprint: "v1", initialState: 0)
        try stream.append(.action, "buy", caseName: "buy")
        try stream.append(draft)
        try log.close()
        let result = try await read([path])
        #expect(result.status == 1)
        #expect(result.error.contains("breaks a rule") && result.error.contains(rule), "\(result.error)")
        let verify = try await Tool.run(["verify", path])
        #expect(verify.status == 1, "verify finds the same broken rule: \(verify.output)")
    }

    @Test("it checks the metadata's seal (format version 6): a changed digit of created-at is refused, as verify refuses it")
    func metadataSeal() async throws {
        let path = scratch.file("sealed.reactorlog")
        let log = try EventLog.open(at: path)
        try log.openStream(named: "shop", reactorType: "Shop", schemaFingerprint: "v1", initialState: 0).append(.action, "buy", caseName: "buy")
        try log.close()
        #expect(try await read([path]).status == 0)
        let sound = try #require(try JSONSerialization.jsonObject(with: Data(try await Tool.run(["info", path, "--json"]).output.utf8)) as? [String: Any])
        #expect(sound["metadataDamage"] == nil && sound["createdAt"] != nil)
        do {
            let environment = try Environment(path: path)
            let meta = try environment.openDatabase("meta")
            try environment.write { txn in
                var value = Array(try #require(try txn.get(meta, key: Array("created-at".utf8))))
                value[value.count - 1] ^= 0x01
                try txn.put(meta, key: Array("created-at".utf8), value: value)
            }
        }
        let result = try await read([path])
        #expect(result.status == 1)
        #expect(result.error.contains("the metadata: checksum mismatch"), "\(result.error)")
        #expect(try await Tool.run(["verify", path]).status == 1)
        // `info` shows the metadata as stored, marked so, the stream table whole, and names the damage last, exit 5
        // (before 2026-12-06 it refused the log, which every other reading command reads).
        let info = try await Tool.run(["info", path])
        #expect(info.status == 5 && info.error.contains("The metadata was shown as stored: The log's metadata is corrupt: its checksum does not match"), "\(info.error)")
        #expect(info.lines.count > 3 && info.lines[2] == "the two lines above are as stored, unvouched: the metadata's checksum does not match its keys and values, so one of them is damaged", "\(info.output)")
        #expect(info.lines.contains { $0.hasPrefix("shop ") && $0.contains("#1…#2") }, "\(info.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try await Tool.run(["info", path, "--json"]).output.utf8)) as? [String: Any])
        #expect(json["metadataDamage"] as? String == "the metadata's checksum does not match its keys and values, so one of them is damaged")
        #expect((json["streams"] as? [Any])?.count == 1 && json["formatVersion"] as? Int == EventLog.formatVersion)
    }

    @Test("a bad bit in the format version or in a key of the metadata is put back by both readers where the seal vouches for one value", arguments: [
        ("format-version", "format-version", "9"), ("durability", "durabilitx", "grouped"), ("format-version", "format-version8", "\u{0}"),
    ])
    func metadataMended(_ key: String, _ damagedKey: String, _ value: String) async throws {
        let path = scratch.file("mended-\(damagedKey.count).reactorlog")
        let log = try EventLog.open(at: path)
        try log.openStream(named: "shop", reactorType: "Shop", schemaFingerprint: "v1", initialState: 0).append(.action, "buy", caseName: "buy")
        try log.close()
        let sound = try await read([path])
        do {
            let environment = try Environment(path: path)
            let meta = try environment.openDatabase("meta")
            try environment.write { txn in
                let stored = Array(try #require(try txn.get(meta, key: Array(key.utf8))))
                _ = try txn.delete(meta, key: Array(key.utf8))
                try txn.put(meta, key: Array(damagedKey.utf8), value: damagedKey == key || damagedKey.hasPrefix("format-version") ? Array(value.utf8) : stored)
            }
        }
        let result = try await read([path])
        #expect(result.status == 0 && result.output == sound.output, "\(result.error)")
        #expect(result.error.contains("warning: the metadata's record") && result.error.contains("is damaged; its seal vouches for"), "\(result.error)")
        let info = try await Tool.run(["info", path])
        #expect(info.status == 0, "\(info.error)")
        #expect(try await Tool.run(["verify", path]).status == 1)
    }

    @Test("an entry kind this version does not know is refused, not skipped, by both readers: a new kind is a new format version")
    func unknownKind() async throws {
        let path = scratch.file("kind.reactorlog")
        let log = try EventLog.open(at: path)
        let stream = try log.openStream(named: "shop", reactorType: "Shop", schemaFingerprint: "v1", initialState: 0)
        try stream.append(.action, "buy", caseName: "buy")
        try log.close()
        #expect(try await read([path]).status == 0)
        do {
            // The first entry of the first block: its distance (one byte, 0) follows the 23-byte header, then its kind.
            let environment = try Environment(path: path)
            let entries = try environment.openDatabase("entries")
            try environment.write { txn in
                let key = KeyCoding.sequence(1)
                var block = Array(try #require(try txn.get(entries, key: key)))
                #expect(block[24] == EntryKind.streamOpened.rawValue)
                block[24] = 9
                block.withUnsafeMutableBytes { ByteWriter(bytes: $0).sealChecksum() }
                try txn.put(entries, key: key, value: block)
            }
        }
        let result = try await read([path])
        #expect(result.status == 1)
        #expect(result.error.contains("entry #1 has kind 9, which this reader does not know"), "\(result.error)")
        let list = try await Tool.run(["log", path])
        #expect(list.status != 0)
        #expect(list.error.contains("kind byte 9 is unknown"), "\(list.error)")
        #expect(try await Tool.run(["verify", path]).status == 1)
    }

    @Test("it refuses a sequence gap no trim explains, as verify does")
    func gap() async throws {
        let path = scratch.file("gap.reactorlog")
        let log = try EventLog.open(at: path)
        let stream = try log.openStream(named: "shop", reactorType: "Shop", schemaFingerprint: "v1", initialState: 0)
        for _ in 0..<4 { try stream.append(.action, "buy", caseName: "buy") }
        try log.close()
        do {
            let environment = try Environment(path: path)
            let entries = try environment.openDatabase("entries")
            try environment.write { txn in try LogStorage.removeEntries([3], from: entries, in: txn) }
        }
        let result = try await read([path])
        #expect(result.status == 1)
        #expect(result.error.contains("entry 4 breaks a rule: the numbers before it are missing"), "\(result.error)")
        #expect(try await Tool.run(["verify", path]).status == 1)
    }

    @Test("it reads a version 2 log whose retention removed a stretch, accepting that gap and no other")
    func retentionGap() async throws {
        let path = try RetentionInspectorTests.gappedLog(at: scratch.file("gapped.reactorlog"))   // #20…#36 removed
        let result = try await read([path])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("format 8"))
        #expect(result.output.contains("#19 shop mutation add") && result.output.contains("#37 shop mutation add"))
        #expect(!result.output.contains("#20 shop"))
        #expect(try await Tool.run(["verify", path]).status == 0)

        do {
            let environment = try Environment(path: path)
            let entries = try environment.openDatabase("entries")
            try environment.write { txn in try LogStorage.removeEntries([50], from: entries, in: txn) }
        }
        let damaged = try await read([path])
        #expect(damaged.status == 1)
        #expect(damaged.error.contains("entry 51 breaks a rule: the numbers before it are missing"), "\(damaged.error)")
    }

    @Test("it checks the meta pages before LMDB maps the file, as FORMAT.md tells readers to: a cut file and a damaged page size are refused, not a crash")
    func metaPages() async throws {
        let demo = scratch.file("whole.reactorlog")
        #expect(try await Tool.run(["demo", "--out", demo]).status == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: demo + "/data.mdb"))
        let transactions = [0, 4096].map { page in data[(page + 144)..<(page + 152)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        let current = transactions[1] > transactions[0] ? 4096 : 0
        var sizeless = data
        sizeless.replaceSubrange((current + 40)..<(current + 44), with: [0, 0, 0, 0])
        for (name, bytes, message) in [
            ("cut", data.prefix(data.count / 2), "its data.mdb is truncated: its meta page says it uses \(data.count / 4096) pages"),
            ("sizeless", sizeless, "its data.mdb has a damaged meta page: its page size is 0"),
        ] {
            let path = scratch.file("\(name).reactorlog")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            try bytes.write(to: URL(fileURLWithPath: path + "/data.mdb"))
            let result = try await read([path])
            #expect(result.status == 1, "\(name): \(result.error)")
            // Refused; or, with a damaged size, read from the other page, which records the commit before (FORMAT.md,
            // "A damaged meta page"), saying why LMDB refuses the log: where the damaged size is the first page's, the
            // second is the page at a possible size that gives that size as its own (before 2026-12-06, refused).
            let readFromOther = name == "sizeless"
            #expect(readFromOther
                ? result.error.hasPrefix("\(path) was read as it stood one commit before its last") && result.error.contains("as it is: \(message)")
                : result.error.hasPrefix("\(path): \(message)"), "\(result.error)")
            #expect(result.error.filter { $0 == "\n" }.count == 1)
        }
    }

    @Test("it walks the page trees before LMDB reads them, as FORMAT.md tells readers to: a node moved outside its branch page is refused, not a crash")
    func pageTrees() async throws {
        // 2,002 entries: the trees of `entries` and `stream-index` have branch pages.
        let log = scratch.file("branches.reactorlog")
        #expect(try await Tool.run(["demo", "--out", log, "--actions", "500"]).status == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: log + "/data.mdb"))
        // Every branch page (flag 0x01 at byte 10), reachable or left over, its first node offset (byte 16) sent past
        // the page: LMDB would read the node 60 KiB on, past the file's end for a page near it.
        let branches = (2..<data.count / 4096).filter { data[$0 * 4096 + 10] & 0x01 != 0 }
        try #require(branches.count >= 2)
        var refused = 0
        for page in branches {
            var bytes = data
            bytes.replaceSubrange((page * 4096 + 16)..<(page * 4096 + 18), with: [0xF0, 0xFF])
            let copy = scratch.file("branch-\(page).reactorlog")
            try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
            try bytes.write(to: URL(fileURLWithPath: copy + "/data.mdb"))
            let result = try await read([copy, "--copy"])
            #expect(!result.crashed, "page \(page): signal \(result.status)")
            #expect(result.error.filter { $0 == "\n" }.count <= 1, "page \(page): \(result.error)")
            if result.error.contains("its data.mdb has a damaged page structure (node 0 of page \(page) ") {
                #expect(result.status == 1)
                refused += 1
            }
        }
        // A left-over page is unreachable, so its damage is harmless; the trees' own branch pages are refused.
        #expect(refused >= 2, "\(branches)")
    }

    /// The reader walks the trees beside a live writer, whose commits reuse the pages of the tree it walks: a walk that
    /// finds damage after the meta pages' ids changed walks the new commit, as the Swift walk does.
    @Test("a walk that finds damage after a writer committed under it walks again, from the new commit", arguments: [1, 3])
    func commitsDuringTheWalk(attempts: Int) async throws {
        let directory = scratch.file("live-\(attempts)")
        // The first commit frees the tree the walk reads, those after it fill its pages with overflow values.
        let script = """
            import importlib.util, sys, lmdb
            reader, directory, attempts = sys.argv[1], sys.argv[2], int(sys.argv[3])
            spec = importlib.util.spec_from_file_location("readlog", reader); readlog = importlib.util.module_from_spec(spec)
            sys.argv = sys.argv[:1]; spec.loader.exec_module(readlog)
            env = lmdb.open(directory, max_dbs=2, map_size=1 << 28); db = env.open_db(b"values")
            with env.begin(write=True) as txn:
                for key in range(400): txn.put(b"key-%d" % key, bytes([1]) * (20 + key % 300), db=db)
            def commits():
                for round in range(1, 5):
                    with env.begin(write=True) as txn:
                        if round == 1:
                            for key in range(400): txn.delete(b"key-%d" % key, db=db)
                        txn.put(b"large-%d" % round, bytes([0xAB]) * (40 * 4096), db=db)
            print(readlog.check_meta_pages(directory + "/data.mdb", True, attempts, commits))
            """
        let reader = Tool.scripts.appendingPathComponent("read-log.py").path
        let result = try await Tool.run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, reader, directory, "\(attempts)"])
        #expect(result.status == 0, "\(result.error)")
        if attempts == 1 {
            #expect(result.output.hasPrefix("has a damaged page structure ("), "\(result.output)")
        } else {
            #expect(result.output == "None\n", "\(result.output)")
        }
    }

    @Test("page flags: a page of fixed-size keys is refused, as the inspector refuses it; flags LMDB acts on only when it writes are read past, as the inspector reads them")
    func pageFlags() async throws {
        let log = scratch.file("flags.reactorlog")
        #expect(try await Tool.run(["demo", "--out", log]).status == 0)
        let expected = try await read([log])
        for flag: UInt8 in [0x20, 0x10, 0x40] {
            let copy = scratch.file("flags-\(flag).reactorlog")
            try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
            try LogDamage.markLeafPages(of: log + "/data.mdb", with: flag, writingTo: copy + "/data.mdb")
            let result = try await read([copy])
            let inspector = try await Tool.run(["info", copy])
            if flag == 0x20 {
                #expect(result.status == 1 && result.error.contains("is neither a branch nor a leaf page (flags \(2 | Int(flag)))"), "\(result.error)")
                #expect(inspector.status == 5 && inspector.error.contains("is neither a branch nor a leaf page"), "\(inspector.error)")
            } else {
                #expect(result.status == 0 && result.output == expected.output, "flag \(flag): \(result.error)")
                #expect(inspector.status == 0, "flag \(flag): \(inspector.error)")
            }
        }
    }

    @Test("an index block's checksum covers its key from format version 8: a key moved by one is a mismatch; the blocks of version 6, sealed over their items alone, read")
    func indexSeals() async throws {
        let path = scratch.file("moved.reactorlog")
        let log = try EventLog.open(at: path)
        let shop = try log.openStream(named: "shop", reactorType: "Shop", schemaFingerprint: "v1", initialState: 0)
        // 3 bytes an action in the index: two blocks.
        for round in 0..<600 { try shop.append(.action, round, caseName: "buy") }
        try log.close()
        #expect(try await read([path]).status == 0)
        let moved: String = try {
            let environment = try Environment(path: path)
            let index = try environment.openDatabase("stream-index")
            return try environment.write { txn in
                let (key, value) = try #require(try txn.withCursor(index) { try $0.last().map { (Array($0.key), Array($0.value)) } })
                var movedKey = key
                movedKey[11] += 1
                _ = try txn.delete(index, key: key)
                try txn.put(index, key: movedKey, value: value)
                return movedKey.map { String(format: "%02x", $0) }.joined()
            }
        }()
        let result = try await read([path])
        #expect(result.status == 1 && result.error == "index block \(moved): checksum mismatch\n", "\(result.error)")
        let older = try await read([try scratch.fixture("version6.reactorlog")])
        #expect(older.status == 0 && older.output.hasPrefix("format 6"), "\(older.error)")
    }

    @Test("a block of entries whose key is damaged out of the tree's order stops the reader at it, naming the number it records")
    func entryKeyOutOfPlace() async throws {
        let path = scratch.file("moved-key.reactorlog")
        #expect(try await Tool.run(["demo", "--out", path, "--actions", "2000", "--durability", "nosync"]).status == 0)
        let healthy = try await read([path])
        let key = try LogDamage.moveKeyInFile(of: path) { $0[$0.count / 2] }
        let first = key.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, moved = first | 1 << 22
        // LMDB's order puts the block last; the reader reads in order, so it lists every entry before the block and
        // stops there, as at any damaged record, with one line and exit 1.
        let result = try await read([path])
        #expect(result.status == 1, "\(result.error)")
        #expect(result.error == "the block of entries from #\(moved): it records #\(first) as its first entry\n", "\(result.error)")
        let before = healthy.output.split(separator: "\n").prefix { !$0.contains(" #\(first) ") }
        #expect(result.output.split(separator: "\n").prefix(before.count) == before)
    }

    @Test("a record too short for its checksum, a key of the wrong size or a format version that is not a number is one line naming it, not a traceback", arguments: [
        ("sites", [0, 0, 0, 9], [0x01, 0x02], "call site 00000009: its record is 2 bytes, too short for its checksum"),
        ("snapshots", [0, 0, 0, 1, 0], Array("x".utf8), "a snapshot: its key 0000000100 is 5 bytes, not 12"),
        ("meta", Array("format-version".utf8), Array("7x".utf8), "the metadata breaks a rule: its format-version is b'7x', not a number"),
    ] as [(String, [UInt8], [UInt8], String)])
    func malformedRecord(database: String, key: [UInt8], value: [UInt8], message: String) async throws {
        let path = scratch.file("\(database).reactorlog")
        let log = try EventLog.open(at: path)
        try log.openStream(named: "shop", reactorType: "Shop", schemaFingerprint: "v1", initialState: 0).append(.action, "buy", caseName: "buy")
        try log.close()
        do {
            let environment = try Environment(path: path)
            let named = try environment.openDatabase(database)
            try environment.write { txn in
                try txn.put(named, key: key, value: value)
                // Sealed as it stands: a bad bit would leave a value the seal puts back (`metadataMended`).
                if database == "meta" { try MetadataSeal.seal(txn, named) }
            }
        }
        let result = try await read([path])
        #expect(result.status == 1 && !result.crashed)
        #expect(result.error == message + "\n", "\(result.error)")
    }
}

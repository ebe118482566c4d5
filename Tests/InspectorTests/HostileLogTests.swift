import EventLogKit
import Foundation
import TestSupport
import Testing

/// A log from elsewhere may hold anything: what the inspector prints must never control the terminal.
@Suite("reactorlog on hostile logs", .timeLimit(.minutes(2)))
struct HostileLogTests {
    let scratch = ScratchDirectory()

    /// Retitles the terminal, clears it, moves the cursor, hides text, and reverses text direction.
    static let attacks = "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}1;1H\u{1B}[8mhidden\u{202E}"

    /// A log whose case names and payloads carry escape sequences.
    func hostileLog() throws -> String {
        let path = scratch.file("hostile.reactorlog")
        let log = try EventLog.open(at: path)
        let stream = try log.openStream(named: "shop", reactorType: "Shop", schemaFingerprint: "v1", initialState: ["note": "x"])
        let action = try stream.append(.action, Self.attacks, caseName: "buy" + Self.attacks)
        try stream.append(.mutation, ["note": Self.attacks], caseName: "setNote", cause: action)
        try stream.close(finalState: try log.encode(["note": Self.attacks]))
        try log.close()
        return path
    }

    /// No byte of a control sequence reaches the output.
    func expectNoControls(_ output: String, _ command: String) {
        let controls = output.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" }
        #expect(controls.isEmpty, "\(command) printed \(controls.map { String($0.value, radix: 16) })")
    }

    @Test("log, show, state and info show control characters as text; --json escapes them and stays exact")
    func escapes() async throws {
        let log = try hostileLog()
        // #1 is the stream's opened marker, #2 the action, #3 the mutation.
        for arguments in [["log", log], ["show", log, "2"], ["show", log, "3"], ["info", log], ["state", log, "--stream", "shop", "--at", "4"]] {
            let result = try await Tool.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.error)")
            expectNoControls(result.output, arguments.joined(separator: " "))
        }
        let listing = try await Tool.run(["log", log]).output
        #expect(listing.contains("action   \\u{1B}]0;pwned\\u{7}\\u{1B}[2J\\u{9B}"), "\(listing)")
        let json = try await Tool.run(["log", log, "--json"])
        expectNoControls(json.output, "log --json")
        let action = try #require(json.lines.dropFirst().first)
        let entry = try #require(try JSONSerialization.jsonObject(with: Data(action.utf8)) as? [String: Any])
        #expect(entry["case"] as? String == "buy" + Self.attacks)
        #expect(entry["payload"] as? String == Self.attacks)
    }

    @Test("a name or a string holding newlines stays on its line: no listing, table or header gains a line the log does not have")
    func newlines() async throws {
        let path = scratch.file("newlines.reactorlog")
        let log = try EventLog.open(at: path)
        // Each would, printed as it is, add a line that reads as an entry of the listing.
        let forged = "\n12:00:00.000 #99 shop action   refund(1000000)\n\t"
        let stream = try log.openStream(named: "shop" + forged, reactorType: "Shop" + forged, schemaFingerprint: "v1", initialState: ["note": "x"])
        let action = try stream.append(.action, "buy" + forged, caseName: "buy" + forged)
        try stream.append(.mutation, ["note" + forged: "x"], caseName: "setNote" + forged, cause: action)
        try stream.append(.effectError, ["type": "Failure" + forged, "message": "lost" + forged], caseName: "effectError")
        try stream.close(finalState: try log.encode(["note" + forged: "x"]))
        try log.close()
        // #1 the stream's opened marker, #2 the action, #3 the mutation, #4 the error, #5 the closed marker.
        let listing = try await Tool.run(["log", path])
        #expect(listing.status == 0 && listing.lines.count == 5, "\(listing.output)")
        #expect(listing.lines.allSatisfy { $0.wholeMatch(of: /\d\d:\d\d:\d\d\.\d{3} #\d .*/) != nil }, "\(listing.output)")
        #expect(listing.lines[1].hasSuffix("action   buy\\u{A}12:00:00.000 #99 shop action   refund(1000000)\\u{A}\\u{9}"), "\(listing.lines[1])")
        for arguments in [
            ["log", path, "--changes"], ["tail", path, "-n", "5"], ["info", path], ["show", path, "2"], ["show", path, "3"], ["show", path, "4"],
            ["state", path, "--stream", "shop" + forged, "--at", "5"], ["diff", path, "0", "5", "--stream", "shop" + forged],
        ] {
            let result = try await Tool.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.error)")
            // The forged line itself, not any line of noon: the entries' own times are the clock's when recorded.
            #expect(!result.lines.contains { $0.hasPrefix("12:00:00.000 #99") || $0.hasPrefix("\t") }, "\(arguments): \(result.output)")
        }
    }

    @Test("a stream name holding control characters is padded by its escapes' columns: the listing's columns line up")
    func controlCharactersAlign() async throws {
        let path = scratch.file("aligned.reactorlog")
        let log = try EventLog.open(at: path)
        for name in ["a\u{1B}b\tc", "plainname"] {
            let stream = try log.openStream(named: name, reactorType: "T", schemaFingerprint: "v1", initialState: ["n": 0])
            try stream.append(.action, "go", caseName: "go")
        }
        try log.close()
        for arguments in [["log", path], ["tail", path, "-n", "4"]] {
            let result = try await Tool.run(arguments)
            // `a\u{1B}b\u{9}c` takes 15 columns, `plainname` 9: each action's kind begins in the same column.
            let starts = result.lines.filter { $0.hasSuffix(" go") }.map { $0.ranges(of: "action").first?.lowerBound.utf16Offset(in: $0) }
            #expect(starts.count == 2 && Set(starts).count == 1, "\(arguments): \(result.output)")
        }
    }

    @Test("an error naming a hostile stream stays on one line and shows its control characters")
    func hostileError() async throws {
        let log = try hostileLog()
        let result = try await Tool.run(["log", log, "--stream", "x\u{1B}[2J\ny"])
        #expect(result.status == 2)
        #expect(result.error.filter { $0 == "\n" }.count == 1, "\(result.error)")
        #expect(!result.error.contains("\u{1B}"))
    }

    @Test("a log whose lock file links to a file of the user's is refused by the inspector and the Python reader; the file is untouched")
    func lockFileLinks() async throws {
        let demo = try await Tool.demoLog(in: scratch)
        let precious = scratch.file("precious.txt")
        let text = "the user's own file\n"
        try text.write(toFile: precious, atomically: false, encoding: .utf8)
        for (name, link) in [("lock.mdb", "symbolic"), ("lock.mdb", "hard"), ("writer.lock", "symbolic")] {
            let copy = scratch.file("\(link)-\(name).reactorlog")
            try FileManager.default.copyItem(atPath: demo, toPath: copy)
            try? FileManager.default.removeItem(atPath: copy + "/" + name)
            if link == "symbolic" {
                try FileManager.default.createSymbolicLink(atPath: copy + "/" + name, withDestinationPath: precious)
            } else {
                try FileManager.default.linkItem(atPath: precious, toPath: copy + "/" + name)
            }
            for arguments in [["info", copy], ["verify", copy], ["trim", copy, "--before", "2"]] {
                let result = try await Tool.run(arguments)
                #expect(result.status == 3, "\(arguments): \(result.error)")
                #expect(result.error.contains("its \(name) is a "), "\(arguments): \(result.error)")
                #expect(result.error.contains("not a lock file of its own (delete it, and a new one is made)"), "\(result.error)")
            }
            let reader = try await Tool.python("read-log.py", [copy])
            #expect(reader.status != 0 && reader.error.contains("its \(name) is not a lock file of its own"), "\(reader.error)")
            #expect(try String(contentsOfFile: precious, encoding: .utf8) == text, "\(link) \(name)")
            // The advice works: without the link, the log opens.
            try FileManager.default.removeItem(atPath: copy + "/" + name)
            #expect(try await Tool.run(["info", copy]).status == 0)
        }
    }
}

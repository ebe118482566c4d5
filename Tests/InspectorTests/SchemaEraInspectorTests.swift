import EventLogKit
import Foundation
import TestSupport
import Testing

/// A stream resumed with other types (format version 3): the inspector, export, import, pack and the Python
/// reader keep and show which types wrote which entries.
@Suite("Schema eras in the inspector", .timeLimit(.minutes(2)))
struct SchemaEraInspectorTests {
    let scratch = ScratchDirectory()

    /// A stream written by types `release-1` (#1…#4), then resumed with types `v2` (#5…#7).
    func migratedLog() throws -> String {
        let path = scratch.file("migrated.reactorlog")
        let log = try EventLog.open(at: path)
        do {
            let stream = try log.openStream(named: "cart", reactorType: "Cart", schemaFingerprint: "release-1", initialState: ["lines": [String]()])
            try stream.append(.mutation, ["appendLine": ["_0": "apple"]], caseName: "appendLine")
            try stream.append(.mutation, ["appendLine": ["_0": "pear"]], caseName: "appendLine")
            try stream.close(finalState: nil)
        }
        try log.updateSchemaFingerprint("v2", stream: "cart")
        do {
            let stream = try log.openStream(named: "cart", reactorType: "Cart", schemaFingerprint: "v2", initialState: ["lines": [String]()])
            try stream.append(.mutation, ["addLine": ["_0": ["title": "fig"]]], caseName: "addLine")
            try stream.close(finalState: nil)
        }
        try log.close()
        return path
    }

    struct InfoJSON: Decodable {
        struct Stream: Decodable {
            struct Era: Decodable, Equatable {
                let fingerprint: String
                let through: UInt64
            }
            let name: String
            let schemaFingerprint: String
            let schemaEras: [Era]
        }
        let formatVersion: Int
        let streams: [Stream]
    }

    func info(_ path: String) async throws -> InfoJSON {
        let result = try await Tool.run(["info", path, "--json"])
        #expect(result.status == 0, "\(result.error)")
        return try JSONDecoder().decode(InfoJSON.self, from: Data(result.output.utf8))
    }

    @Test("info lists the eras; export and import, and a pack, keep them; verify and the Python reader accept the log")
    func roundTrip() async throws {
        let path = try migratedLog()
        let original = try await info(path)
        #expect(original.formatVersion == 8)
        #expect(original.streams.first?.schemaEras == [.init(fingerprint: "release-1", through: 4)])
        let text = try await Tool.run(["info", path])
        #expect(text.output.contains("up to #4") && text.output.contains("from #5"), "\(text.output)")
        #expect(try await Tool.run(["verify", path]).status == 0)

        let exported = scratch.file("cart.jsonl")
        #expect(try await Tool.run(["export", path, "--out", exported]).status == 0)
        let imported = scratch.file("imported.reactorlog")
        let result = try await Tool.run(["import", exported, imported])
        #expect(result.status == 0, "\(result.error)")
        let copy = try await info(imported)
        #expect(copy.formatVersion == 8)
        #expect(copy.streams.first?.schemaEras == original.streams.first?.schemaEras)
        #expect(copy.streams.first?.schemaFingerprint == "v2")

        // A pack of the later stretch: the era that ends inside it still says who wrote its starting state.
        let pack = scratch.file("cart.pack")
        #expect(try await Tool.run(["pack", path, "--from", "3", "--out", pack]).status == 0)
        let opened = try await info(pack)
        #expect(opened.streams.first?.schemaEras == [.init(fingerprint: "release-1", through: 4)])

        let reader = try await Tool.python("read-log.py", [path])
        #expect(reader.status == 0, "\(reader.error)")
        #expect(reader.output.contains("format 8") && reader.output.contains("schema era: stream 'cart' up to #4 written by release-1"), "\(reader.output)")
    }

    @Test("two builds of one app: release 2 upgrades release 1's log through its migrations, and keeps one stream")
    func twoBuilds() async throws {
        let path = scratch.file("cart.reactorlog")
        let first = try await Tool.run("cart-app-1", [path, "apple", "pear"])
        #expect(first.status == 0 && first.output == #"{"lines":["apple","pear"]}"# + "\n", "\(first.error)")

        let upgraded = try await Tool.run("cart-app-2", [path, "fig"])
        #expect(upgraded.status == 0, "\(upgraded.error)")
        #expect(upgraded.error.contains("decodes through the migrations"), "\(upgraded.error)")
        #expect(upgraded.output.contains(#"{"quantity":1,"title":"apple"},{"quantity":1,"title":"pear"},{"quantity":1,"title":"fig"}"#), "\(upgraded.output)")

        let again = try await Tool.run("cart-app-2", [path, "kiwi"])
        #expect(again.status == 0 && again.error.isEmpty, "no schema change the second time: \(again.error)")
        #expect(again.output.contains(#""title":"kiwi""#))

        let described = try await info(path)
        #expect(described.formatVersion == 8)
        #expect(described.streams.map(\.name) == ["cart"], "one stream, no new generation")
        #expect(described.streams.first?.schemaEras.map(\.through) == [6], "release 1 wrote #1…#6")
        #expect(try await Tool.run(["verify", path]).status == 0)
    }

    @Test("a damaged era record is an era of unknown types: verify names it, the inspector reads on, export and import keep it, the app starts a new generation, the Python reader refuses it")
    func damagedEra() async throws {
        let path = try migratedLog()
        try CorruptFile.flipByte(in: path + "/data.mdb", after: Array("release-1".utf8))
        let verify = try await Tool.run(["verify", path])
        #expect(verify.status == 1)
        #expect(verify.output.contains(
            "error at #4: the schema era record of stream 'cart' through #4 is damaged (its checksum, key or text do not match): the types that wrote the era are not known, so migrations refuse its payloads"
        ), "\(verify.output)\(verify.error)")
        let unknown = [InfoJSON.Stream.Era(fingerprint: SchemaHistory.unknownFingerprint, through: 4)]
        #expect(try await info(path).streams.first?.schemaEras == unknown)
        for command in [["log", path], ["timeline", path, "--out", scratch.file("cart.html")], ["pack", path, "--out", scratch.file("damaged.pack")]] {
            let result = try await Tool.run(command)
            #expect(result.status == 0, "\(command[0]): \(result.error)")
        }
        let exported = scratch.file("damaged.jsonl")
        #expect(try await Tool.run(["export", path, "--out", exported]).status == 0)
        let imported = scratch.file("damaged-imported.reactorlog")
        #expect(try await Tool.run(["import", exported, imported]).status == 0)
        #expect(try await info(imported).streams.first?.schemaEras == unknown)

        // Release 2 migrates from release 1; what wrote #1…#4 is not known, so it keeps them aside and starts anew.
        let upgraded = try await Tool.run("cart-app-2", [path, "fig"])
        #expect(upgraded.status == 0, "\(upgraded.error)")
        #expect(upgraded.error.contains(
            "the initial state no longer decodes (The migration from an unknown version failed: the stream's schema era record naming it is damaged, so which steps apply is not known). Its entries are kept as stream 'cart@1'"
        ), "\(upgraded.error)")
        let reader = try await Tool.python("read-log.py", [path])
        #expect(reader.status == 1 && reader.error.contains("schema era"), "\(reader.error)")
    }

    @Test("an era record under a key a bad bit changed is read as its record says, and verify names it")
    func movedEraKey() async throws {
        let path = try migratedLog()
        func key(_ sequence: UInt64) -> [UInt8] { [0, 0, 0, 1] + withUnsafeBytes(of: sequence.bigEndian) { Array($0) } }
        try LogDamage.rekey(of: path, database: "schemas", from: key(4), to: key(6))
        #expect(try EventLog.openReadOnly(at: path).schemaHistory(stream: "cart").eras == [SchemaHistory.Era(fingerprint: "release-1", through: 4)])
        let verify = try await Tool.run(["verify", path])
        #expect(verify.status == 1 && verify.output.contains("error at #6: the schema era record of stream 'cart' through #4 is damaged"), "\(verify.output)")
        #expect(verify.output.contains("it is read as its record says, written by 'release-1'"), "\(verify.output)")
    }

    @Test("an era record under a key of the wrong length is read as its record says, and verify names it", arguments: [11, 13])
    func eraKeyOfWrongLength(length: Int) async throws {
        let path = try migratedLog()
        let key: [UInt8] = [0, 0, 0, 1] + withUnsafeBytes(of: UInt64(4).bigEndian) { Array($0) }
        try LogDamage.rekey(of: path, database: "schemas", from: key, to: Array((key + [0]).prefix(length)))
        #expect(try EventLog.openReadOnly(at: path).schemaHistory(stream: "cart").eras == [SchemaHistory.Era(fingerprint: "release-1", through: 4)])
        #expect(try await info(path).streams.first?.schemaEras.map(\.through) == [4])
        let verify = try await Tool.run(["verify", path])
        #expect(verify.status == 1 && verify.output.contains(
            "a schema era record's key is \(length) bytes, not 12: readers take it as its record says, the era of stream 'cart' through #4 written by 'release-1'"
        ), "\(verify.output)")
    }

    @Test("an era record whose key size a bad bit changed is read as an era of types not known, and verify says so", arguments: [UInt8(1), 8])
    func eraKeySizeDamaged(mask: UInt8) async throws {
        let path = try migratedLog()
        let key: [UInt8] = [0, 0, 0, 1] + withUnsafeBytes(of: UInt64(4).bigEndian) { Array($0) }
        try LogDamage.damageKeySizeInFile(of: path, database: "schemas", mask: mask) { _ in key }
        let unknown = [SchemaHistory.Era(fingerprint: SchemaHistory.unknownFingerprint, through: 4)]
        #expect(try EventLog.openReadOnly(at: path).schemaHistory(stream: "cart").eras == unknown)
        let verify = try await Tool.run(["verify", path])
        #expect(verify.status == 1 && verify.output.contains(
            "error: a schema era record's key is \(mask == 1 ? 13 : 4) bytes, not 12: its size is damaged, so its record is read from the wrong bytes: readers take it as the era of stream 'cart' through #4, and the types that wrote the era are not known, so migrations refuse its payloads"
        ), "\(verify.output)")
    }
}

import BinaryPayloadFixtures
import Foundation
@testable import BinaryPayloadKit
@testable import EventLogKit
@testable import ReactorLogInspector
@testable import TimeTravel

/// One input for the decoders a log from elsewhere reaches: its first byte picks the decoder, the rest is the
/// bytes it decodes. A decoder may refuse the input with an error, never crash; what it accepts must hold
/// together (parsed JSON and paths print back to what they were parsed from).
enum FuzzTarget: UInt8, CaseIterable {
    case entryRecord, entryRecordSealed, streamRecord, streamRecordSealed, snapshotRecord, snapshotRecordSealed
    case keys, json, statePath, exportLine, binaryPayload, binaryDecode, indexBlockSealed, entryBlockSealed, handWrittenDecode

    /// Runs `input` through the decoder its first byte names.
    static func run(_ input: [UInt8]) {
        guard let first = input.first else { return }
        let target = allCases[Int(first) % allCases.count]
        var body = Array(input.dropFirst())
        switch target {
        case .entryRecord, .entryRecordSealed:
            if target == .entryRecordSealed { seal(&body) }
            body.withUnsafeBytes { bytes in
                guard let header = try? EntryRecord.header(key: 7, record: bytes) else { return }
                check(header.caseRange.upperBound <= bytes.count && header.payloadRange.upperBound <= bytes.count,
                      "entry record \(body) has ranges past its end")
                _ = ByteReader(bytes: bytes).string(header.caseRange)
            }
        case .streamRecord, .streamRecordSealed:
            if target == .streamRecordSealed { seal(&body) }
            body.withUnsafeBytes { bytes in _ = try? StreamRecord.decode(id: 1, record: bytes) }
        case .snapshotRecord, .snapshotRecordSealed:
            if target == .snapshotRecordSealed { seal(&body) }
            body.withUnsafeBytes { bytes in
                _ = try? SnapshotRecord.decode(streamID: 1, sequence: 7, streamName: "s", record: bytes)
            }
        case .keys:
            body.withUnsafeBytes { bytes in
                _ = KeyCoding.decodeSequence(bytes)
                _ = KeyCoding.decodeStream(bytes)
                _ = KeyCoding.decodeStreamSequence(bytes)
            }
        case .json:
            let compact = JSONValue.compactText(Data(body))
            let binary = try? BinaryPayload.fromJSON(Data(body))
            let document = body.withUnsafeBytes { JSONScanner.isDocument($0) }
            guard let value = try? JSONValue(parsing: Data(body)), value.isExpressibleAsJSON else {
                check(binary == nil, "the conversion to the binary form accepts what the parser refuses")
                check(!document, "verify's check accepts what the parser refuses")
                return check(compact == nil, "the compactor accepts what the parser refuses")
            }
            check(binary != nil, "the conversion to the binary form refuses what the parser accepts")
            check(document, "verify's check refuses what the parser accepts")
            check((try? JSONValue(parsing: value.data)) == value, "JSON \(value) does not parse back to itself")
            check(compact.flatMap { try? JSONValue(parsing: Data($0.utf8)) } == value, "the compact text of \(value) is not the same value")
        case .statePath:
            guard let text = String(validating: body, as: UTF8.self), let path = try? StatePath(parsing: text) else { return }
            check((try? StatePath(parsing: path.description)) == path, "path '\(text)' does not print back to itself")
        case .exportLine:
            _ = try? JSONDecoder().decode(ExportLine.self, from: Data(body))
        case .binaryPayload:
            let direct = try? JSONValue(binary: Data(body))
            // The value at a path read straight from the bytes (blame's way) is the whole value's there; on bytes
            // the whole value refuses, it only must not trap.
            for path in direct.map({ Self.paths(in: $0) }) ?? [StatePath([.key("count")]), StatePath([.index(0), .key("a")])] {
                do {
                    let found = try JSONValue(binary: Data(body), at: path)
                    if let direct { check(found == direct[path], "binary payload \(body) has \(found as Any) at \(path), not \(direct[path] as Any)") }
                } catch {
                    check(direct == nil, "binary payload \(body) is read as a value, but reading \(path) from it throws \(error)")
                }
            }
            // A case read in place (the listing's way) is the whole value's one member, its arguments each once.
            if let (name, held) = body.withUnsafeBytes(JSONValue.enumCase(binary:)) {
                let whole: JSONValue = switch held {
                case .single(let value): .object([name: value])
                case .arguments(let arguments): .object([name: .object(Dictionary(uniqueKeysWithValues: arguments))])
                }
                check(direct == whole, "binary payload \(body) is read in place as the case \(whole), not as \(direct as Any)")
            }
            let entry = LogEntry(
                sequence: 1, streamID: 1, stream: "s", kind: .mutation, timestamp: 0, cause: nil, caseName: "m",
                codec: .binary, payload: Data(body))
            check(EntryFormatter.payload(entry) == EntryFormatter.payloadOfValue(entry), "binary payload \(body) is listed otherwise read in place")
            guard let rendered = try? BinaryPayload.json(Data(body)) else {
                check(direct == nil, "binary payload \(body) is refused as JSON text but read as a value")
                return
            }
            let parsed = try? JSONValue(parsing: rendered)
            check(parsed != nil, "binary payload \(body) renders as JSON that does not parse")
            check(direct == parsed, "binary payload \(body) reads as another value than its JSON text")
            let again = (try? BinaryPayload.fromJSON(rendered)).flatMap { try? BinaryPayload.json(Data($0)) }
            check(again == rendered, "the JSON of binary payload \(body) does not convert back to the same JSON")
        case .binaryDecode:
            _ = try? BinaryLogCodec().decode(FuzzShape.self, from: Data(body))
        case .handWrittenDecode:
            // Straight through the hand-written reading, without the codec's fallback to `Codable`.
            let value = body.withUnsafeBytes { bytes -> Tree? in
                var reader = BinaryPayloadReader(bytes)
                return try? Tree(from: &reader)
            }
            guard let value else { return }
            do {
                try BinaryPayload.checkHandWrittenCoding(of: value)
            } catch {
                check(false, "payload \(body) reads as \(value), which the conformances then disagree on: \(error)")
            }
        case .indexBlockSealed:
            // Sealed as format version 8 seals a block: over its key (stream 1, from #7), then its items.
            if body.count >= 4 {
                let checksum = body.withUnsafeBytes { StreamIndex.checksum($0, stream: 1, first: 7) }
                for index in 0..<4 { body[index] = UInt8(truncatingIfNeeded: checksum >> (8 * UInt32(index))) }
            }
            var items: [StreamIndex.Item] = []
            let accepted = (try? body.withUnsafeBytes {
                try StreamIndex.decode($0, stream: 1, first: 7, seal: .keyAndItems) { items.append($0); return true }
            }) != nil
            guard accepted else { return }
            check(items.first?.sequence == 7, "index block \(body) starts at #\(items.first?.sequence ?? 0), not at its key")
            check(zip(items, items.dropFirst()).allSatisfy { $0.sequence < $1.sequence }, "index block \(body) lists entries out of order")
        case .entryBlockSealed:
            seal(&body)
            body.withUnsafeBytes { bytes in
                guard var reader = try? EntryBlock.Reader(key: 7, block: bytes) else { return }
                var headers: [EntryRecord.Header] = []
                while let header = try? reader.next() {
                    check(header.caseRange.upperBound <= bytes.count && header.payloadRange.upperBound <= bytes.count,
                          "entry block \(body) has ranges past its end")
                    headers.append(header)
                }
                // A lookup that steps over the entries before one finds what reading each found.
                for header in headers {
                    var stepping = try? EntryBlock.Reader(key: 7, block: bytes)
                    let found = try? stepping?.next(from: header.sequence)
                    check(found.map { [$0.sequence, UInt64(bitPattern: $0.timestamp), $0.cause, UInt64($0.streamID)] }
                            == [header.sequence, UInt64(bitPattern: header.timestamp), header.cause, UInt64(header.streamID)]
                            && found?.caseRange == header.caseRange && found?.payloadRange == header.payloadRange,
                          "entry block \(body): a lookup of #\(header.sequence) finds another entry than reading each")
                }
                let sequences = headers.map(\.sequence)
                check(sequences.first.map { $0 == 7 } ?? true, "entry block \(body) starts at #\(sequences.first ?? 0), not at its key")
                check(zip(sequences, sequences.dropFirst()).allSatisfy { $0 < $1 }, "entry block \(body) holds entries out of order")
            }
        }
    }

    /// Writes the CRC-32C of bytes 4... into bytes 0..<4, as a valid record has, so decoding goes past it.
    /// Paths into `value` to read from its bytes: the root, and under it the first members and elements, `count`,
    /// and one that is not there, three steps deep at most.
    private static func paths(in value: JSONValue, under prefix: [StatePath.Component] = []) -> [StatePath] {
        var paths = [StatePath(prefix), StatePath(prefix + [.key("count")]), StatePath(prefix + [.index(7)])]
        guard prefix.count < 3 else { return paths }
        switch value {
        case .object(let members):
            for key in members.keys.sorted().prefix(2) { paths += Self.paths(in: members[key]!, under: prefix + [.key(key)]) }
        case .array(let values):
            for (index, element) in values.prefix(2).enumerated() { paths += Self.paths(in: element, under: prefix + [.index(index)]) }
        default:
            break
        }
        return paths
    }

    private static func seal(_ body: inout [UInt8]) {
        guard body.count >= 4 else { return }
        let checksum = CRC32C.checksum(Array(body[4...]))
        for index in 0..<4 { body[index] = UInt8(truncatingIfNeeded: checksum >> (8 * UInt32(index))) }
    }

    private static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        guard !condition else { return }
        if let (input, file) = current { try? Data(input).write(to: URL(fileURLWithPath: file)) }
        FileHandle.standardError.write(Data("reactorlog-fuzz: \(message())\n".utf8))
        abort()
    }

    /// Runs `input`; a failed check first writes the input to `file`, to replay it (`reactorlog-fuzz FILE`).
    static func run(_ input: [UInt8], savingFailuresTo file: String) {
        current = (input, file)
        run(input)
    }

    nonisolated(unsafe) private static var current: (input: [UInt8], file: String)?

    /// Valid inputs of every kind, to start mutating from.
    static func seeds() -> [[UInt8]] {
        func record(_ size: Int, _ write: (UnsafeMutableRawBufferPointer) -> Void) -> [UInt8] {
            var bytes = [UInt8](repeating: 0, count: size)
            bytes.withUnsafeMutableBytes(write)
            return bytes
        }
        let entry = EntryRecord.Pending(
            sequence: 7, streamID: 1, kind: .mutation, codec: .json, timestamp: 1_700_000_000_000_000_000, cause: 6,
            caseName: "setRepos", payload: Array(#"{"setRepos":{"_0":["a","b"],"nextPage":2}}"#.utf8))
        let stream = StreamInfo(
            id: 1, name: "search", reactorType: "App.SearchReactor", schemaFingerprint: "structure-1:0123456789abcdef",
            createdAt: 1_700_000_000_000_000_000, initialStateCodec: .json, initialState: Data(#"{"query":""}"#.utf8), sequenceFloor: 0)
        let snapshot = Snapshot(streamID: 1, sequence: 7, timestamp: 1_700_000_000_000_000_000, codec: .json, state: Data(#"{"query":"rx","repos":[]}"#.utf8))
        let exportLine = #"{"entry":{"sequence":7,"stream":"search","kind":"mutation","time":"2023-11-14T22:13:20.000Z","timestamp":1700000000000000000,"timestampNanoseconds":"1700000000000000000","cause":6,"case":"setQuery","codec":"json","payload":{"setQuery":{"_0":"rx"}}}}"#
        // The version-1 layout, which the writer no longer writes but readers must still take.
        let legacyEntry = record(EntryRecord.headerSize + entry.caseName.utf8.count + entry.payload.count) { buffer in
            let out = ByteWriter(bytes: buffer)
            out.u8(4, entry.kind.rawValue)
            out.u8(5, entry.codec.rawValue)
            out.u16(6, UInt16(entry.caseName.utf8.count))
            out.u32(8, entry.streamID)
            out.u32(12, UInt32(entry.payload.count))
            out.u64(16, entry.sequence)
            out.i64(24, entry.timestamp)
            out.u64(32, entry.cause)
            out.copy(entry.caseName, to: EntryRecord.headerSize)
            out.copy(entry.payload, to: EntryRecord.headerSize + entry.caseName.utf8.count)
            out.sealChecksum()
        }
        let bodies: [(FuzzTarget, [UInt8])] = [
            (.entryRecord, record(entry.size) { entry.write(into: $0) }),
            (.entryRecordSealed, record(entry.size) { entry.write(into: $0) }),
            (.entryRecord, legacyEntry),
            (.entryRecordSealed, legacyEntry),
            (.streamRecord, StreamRecord.encode(stream)),
            (.streamRecordSealed, StreamRecord.encode(stream)),
            (.snapshotRecord, record(SnapshotRecord.size(stateBytes: snapshot.state.count)) { SnapshotRecord.write(snapshot, into: $0) }),
            (.snapshotRecordSealed, record(SnapshotRecord.size(stateBytes: snapshot.state.count)) { SnapshotRecord.write(snapshot, into: $0) }),
            (.keys, KeyCoding.streamSequence(1, 7)),
            (.json, Array(#"{"a":[1,-2.5e3,true,null,"\u00e9\n"],"b":{"c":{}}}"#.utf8)),
            (.statePath, Array("items[2].done".utf8)),
            (.exportLine, Array(exportLine.utf8)),
            (.binaryPayload, [UInt8]((try? BinaryLogCodec().encode(FuzzShape.sample)) ?? Data())),
            (.binaryDecode, [UInt8]((try? BinaryLogCodec().encode(FuzzShape.sample)) ?? Data())),
        ] + HandWrittenFixtures.trees.map { tree in
            // Among them, what the first release-built run found (see `HandWrittenFixtures.trees`).
            (.handWrittenDecode, [UInt8]((try? BinaryLogCodec().encode(tree)) ?? Data()))
        } + [
            (.entryBlockSealed, Self.block([entry, EntryRecord.Pending(
                sequence: 9, streamID: 2, kind: .action, codec: .binary, timestamp: 1_600_000_000_000_000_000, cause: 0,
                caseName: "setRepos", payload: [0x01])])),
            (.indexBlockSealed, StreamIndex.block([
                .init(sequence: 7, kind: EntryKind.action.rawValue, site: 3), .init(sequence: 8, kind: EntryKind.mutation.rawValue),
                .init(sequence: 300, kind: EntryKind.action.rawValue),
            ], stream: 1)),
        ]
        return bodies.map { [$0.0.rawValue] + $0.1 }
    }

    /// A block of `entries`, as the writer makes one.
    private static func block(_ entries: [EntryRecord.Pending]) -> [UInt8] {
        var builder = EntryBlock.Builder()
        for entry in entries { _ = builder.append(entry) }
        var bytes = [UInt8](repeating: 0, count: builder.size)
        bytes.withUnsafeMutableBytes { builder.write(into: $0) }
        return bytes
    }
}

/// A value of every shape the binary codec writes, for the binary decoder to meet damaged; recursive, so that
/// deep nesting reaches the decoder's depth limit.
indirect enum FuzzShape: Codable {
    case record(name: String, count: Int, ratio: Double, flags: [Bool], nested: [String: [Int]], names: [String], missing: Int?, big: UInt64, price: Decimal)
    case plain
    case tree([FuzzShape])

    static let sample = FuzzShape.tree([
        .record(name: "é\n", count: -3, ratio: 0.25, flags: [true, false], nested: ["a": [1, 2]], names: ["x", ""], missing: nil, big: .max, price: Decimal(string: "1.05")!),
        // A decimal of more digits than a double holds: time travel keeps it as a `Decimal`.
        .record(name: "", count: 0, ratio: -1e-300, flags: [], nested: [:], names: [], missing: 5, big: 0, price: Decimal(string: "-0.12345678901234567891")!),
        .tree([.plain]),
    ])
}

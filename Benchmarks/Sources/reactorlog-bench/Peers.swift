import Foundation
import GRDB

/// What a user might write instead of ReactorLog: each entry as a JSON line, fsync per batch.
final class JSONLinesAppender: @unchecked Sendable {
    // Used from the one thread that runs the benchmark's reactor.
    private let handle: FileHandle
    private var buffer = Data()
    private var count = 0
    private let encoder = JSONEncoder()

    struct Line<Payload: Encodable>: Encodable {
        let sequence: Int
        let kind: String
        let time: Double
        let payload: Payload
    }

    init(path: String) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        guard let handle = FileHandle(forWritingAtPath: path) else { throw CocoaError(.fileWriteUnknown) }
        self.handle = handle
    }

    func append<Payload: Encodable>(kind: String, _ payload: Payload) {
        count += 1
        if let data = try? encoder.encode(Line(sequence: count, kind: kind, time: Date().timeIntervalSince1970, payload: payload)) {
            buffer.append(data)
            buffer.append(0x0A)
        }
        if count % 1000 == 0 { flush() }
    }

    func flush() {
        try? handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
        try? handle.synchronize()
    }
}

/// SQLite through GRDB, WAL, one transaction per 1000 entries (synchronous=FULL: each commit syncs).
final class SQLiteAppender: @unchecked Sendable {
    // Used from the one thread that runs the benchmark's reactor.
    let queue: DatabaseQueue
    private var pending: [(kind: Int, payload: Data)] = []
    private let encoder = JSONEncoder()

    init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "CREATE TABLE entries (sequence INTEGER PRIMARY KEY, kind INTEGER NOT NULL, time REAL NOT NULL, payload BLOB NOT NULL)")
        }
    }

    func append<Payload: Encodable>(kind: Int, _ payload: Payload) {
        if let data = try? encoder.encode(payload) { pending.append((kind, data)) }
        if pending.count == 1000 { flush() }
    }

    func flush() {
        let batch = pending
        pending.removeAll(keepingCapacity: true)
        try? queue.write { db in
            let statement = try db.makeStatement(sql: "INSERT INTO entries (kind, time, payload) VALUES (?, ?, ?)")
            let now = Date().timeIntervalSince1970
            for entry in batch {
                try statement.execute(arguments: [entry.kind, now, entry.payload])
            }
        }
    }
}

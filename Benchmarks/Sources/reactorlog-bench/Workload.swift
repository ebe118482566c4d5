import EventLogKit
import Foundation
import GRDB
import LMDB
import ReactorLog
import ReactorLogInspector
import ReactorLogPersistence
import Synchronization
import TimeTravel

/// The benchmark's sections, in order; later sections reuse the logs earlier ones wrote.
final class Workload {
    let actions: Int
    let scratch: String
    let syncBudget: Double
    /// Rounds of the paired logging-cost figure.
    let rounds: Int
    let report: Report
    /// The section being measured, for the report.
    private var current = ""

    init(actions: Int, scratch: String, syncBudget: Double, rounds: Int, report: Report) {
        self.actions = actions
        self.scratch = scratch
        self.syncBudget = syncBudget
        self.rounds = rounds
        self.report = report
    }

    var bugAt: Int { actions }   // about halfway through the ~2 mutations per action

    func path(_ name: String) -> String { scratch + "/" + name }

    func run() async throws {
        let records = try sampleRecords()
        let entries = actions * 3
        section("1. Write ceiling: raw LMDB appends of pre-encoded records (entries/s)")
        try ceiling("LMDB, batches of 1000, nosync", records: records, count: entries, batch: 1000, noSync: true)
        try ceiling("LMDB, batches of 1000, sync", records: records, count: entries, batch: 1000, noSync: false)
        try ceiling("LMDB, 1 per transaction, nosync", records: records, count: min(entries, 300_000), batch: 1, noSync: true)
        try ceiling("LMDB, 1 per transaction, sync", records: records, count: entries, batch: 1, noSync: false, budget: syncBudget)

        section("0. Codecs: the workload's actions and mutations, encoded and decoded")
        try codecs()

        section("3. Runtime without a log (in memory)")
        try inMemory()
        await starvation()

        section("2. Runtime with the log, end to end: send → mutate → log → reduce → publish, then flush")
        try withLog(.grouped, name: "grouped", policy: .default, against: "LMDB, batches of 1000, sync")
        try withLog(
            .grouped, name: "grouped, through Codable", policy: .default, against: "runtime + log, grouped",
            codec: BinaryLogCodec(directCoding: false)
        )
        try withLog(.noSync, name: "nosync", policy: .every(mutations: 32), against: "LMDB, batches of 1000, nosync")
        try withLog(.sync, name: "sync", policy: .default, against: "LMDB, 1 per transaction, sync", budget: syncBudget)
        try loggingCost(rounds: rounds)

        section("4. What a user would pick instead: same entries, same durability (fsync per batch of 1000)")
        try peers()

        section("5. Replay: rebuilding the state from every logged mutation")
        try replay()
        await export()

        section("6. Time travel: the state at 1,000 random steps")
        try timeTravel("grouped", policy: "every 256 mutations")
        try timeTravel("nosync", policy: "every 32 mutations")

        section("7. Bisect: the first corrupted state, planted halfway")
        try bisect()

        section("8. Recovery: reopening a reactor on the stream")
        try recovery()

        section("9. Dispatch latency: send to state observed, 100,000 sends")
        try latency()

        section("10. Storage and memory")
        try storage()
    }

    private func section(_ title: String) {
        FileHandle.standardError.write(Data("\(title)\n".utf8))
        current = title
    }


    @discardableResult
    private func add(_ name: String, _ value: Double, _ unit: String, against: String? = nil) -> Double {
        report.add(current, name, value, unit, against: against)
    }

    // MARK: 1

    /// Records of the workload's sizes: each action and mutation of the first actions, with a compact header.
    private func sampleRecords() throws -> [[UInt8]] {
        let payloads = Mutex<[Data]>([])
        let codec = BinaryLogCodec()
        let reactor = BenchReactor(tap: { tapped in
            let data: Data? = switch tapped {
            case .action(let action): try? codec.encode(action)
            case .mutation(let mutation): try? codec.encode(mutation)
            }
            if let data { payloads.withLock { $0.append(data) } }
        })
        for index in 0..<8 { reactor.send(BenchReactor.action(index)) }
        // An 18-byte compact header and a 12-byte case name before each payload.
        return payloads.withLock { $0 }.map { [UInt8](repeating: 0, count: 18 + 12) + [UInt8]($0) }
    }

    private func ceiling(_ name: String, records: [[UInt8]], count: Int, batch: Int, noSync: Bool, budget: Double? = nil) throws {
        let directory = path("ceiling-\(batch)-\(noSync)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var options = EnvironmentOptions()
        options.mapSize = 4 << 30
        options.noSync = noSync
        let env = try Environment(path: directory, options: options)
        let db = try env.openDatabase("entries", flags: .create)
        var sequence: UInt64 = 0
        let deadline = ContinuousClock.now + .seconds(budget ?? 1e9)
        let seconds = try Measure.seconds {
            while sequence < UInt64(count) && ContinuousClock.now < deadline {
                try env.write { txn in
                    for _ in 0..<batch {
                        sequence += 1
                        let record = records[Int(sequence) % records.count]
                        try withUnsafeBytes(of: sequence.bigEndian) { key in
                            try record.withUnsafeBytes { value in try txn.put(db, key: key, value: value, flags: .append) }
                        }
                    }
                }
            }
            if noSync { try env.sync(force: true) }
        }
        add(name, Double(sequence) / seconds, "entries/s")
    }

    // MARK: 0

    /// The binary codec against Foundation's JSON on the workload's own values, both ways.
    private func codecs() throws {
        let values = Mutex<[BenchReactor.Tapped]>([])
        let reactor = BenchReactor(tap: { tapped in values.withLock { $0.append(tapped) } })
        for index in 0..<3_000 { reactor.send(BenchReactor.action(index)) }
        let sample = values.withLock { $0 }
        let rounds = max(1, min(100, actions / 3_000))
        let json = JSONLogCodec()
        let binary = BinaryLogCodec(), binaryViaCodable = BinaryLogCodec(directCoding: false)
        // The hand-written conformances must write what `Codable` writes (the smoke test runs this too).
        for tapped in sample.prefix(1_000) {
            switch tapped {
            case .action(let action): try BinaryPayload.checkHandWrittenCoding(of: action)
            case .mutation(let mutation): try BinaryPayload.checkHandWrittenCoding(of: mutation)
            }
        }
        func encodeAll(_ codec: some LogCodec) throws -> [Data] {
            try sample.map { tapped in
                switch tapped {
                case .action(let action): try codec.encode(action)
                case .mutation(let mutation): try codec.encode(mutation)
                }
            }
        }
        func decodeAll(_ codec: some LogCodec, _ payloads: [Data]) throws {
            for (tapped, payload) in zip(sample, payloads) {
                switch tapped {
                case .action: _ = try codec.decode(BenchReactor.Action.self, from: payload)
                case .mutation: _ = try codec.decode(BenchReactor.Mutation.self, from: payload)
                }
            }
        }
        let jsonPayloads = try encodeAll(json)
        let binaryPayloads = try encodeAll(binary)
        let count = Double(sample.count * rounds)
        let jsonEncode = count / (try Measure.seconds { for _ in 0..<rounds { _ = try encodeAll(json) } })
        let jsonDecode = count / (try Measure.seconds { for _ in 0..<rounds { try decodeAll(json, jsonPayloads) } })
        add("Foundation JSON, encode", jsonEncode, "values/s")
        add("Foundation JSON, decode", jsonDecode, "values/s")
        add("binary codec, encode", count / (try Measure.seconds { for _ in 0..<rounds { _ = try encodeAll(binary) } }), "values/s", against: "Foundation JSON, encode")
        add("binary codec, decode", count / (try Measure.seconds { for _ in 0..<rounds { try decodeAll(binary, binaryPayloads) } }), "values/s", against: "Foundation JSON, decode")
        add("binary codec through Codable, encode", count / (try Measure.seconds { for _ in 0..<rounds { _ = try encodeAll(binaryViaCodable) } }), "values/s", against: "Foundation JSON, encode")
        add("binary codec through Codable, decode", count / (try Measure.seconds { for _ in 0..<rounds { try decodeAll(binaryViaCodable, binaryPayloads) } }), "values/s", against: "Foundation JSON, decode")
        let jsonBytes = Double(jsonPayloads.reduce(0) { $0 + $1.count }) / Double(sample.count)
        add("JSON payload, mean", jsonBytes, "bytes")
        add("binary payload, mean", Double(binaryPayloads.reduce(0) { $0 + $1.count }) / Double(sample.count), "bytes", against: "JSON payload, mean")
    }

    // MARK: 3

    private func inMemory() throws {
        // The baseline: the same actions and mutations folded by a plain loop, no runtime.
        let plain = BenchReactor(bugAtMutation: bugAt)
        var state = plain.initialState
        let plainSeconds = Measure.seconds {
            for index in 0..<actions {
                for mutation in BenchReactor.mutations(for: BenchReactor.action(index), in: state) {
                    state = plain.reduce(state: state, mutation: mutation)
                }
            }
        }
        add("raw reduce loop", Double(actions + state.mutations) / plainSeconds, "entries/s")

        let reactor = BenchReactor(bugAtMutation: bugAt)
        let seconds = Measure.seconds {
            for index in 0..<actions { reactor.send(BenchReactor.action(index)) }
        }
        let entries = Double(actions + reactor.currentState.mutations)
        add("runtime in memory", entries / seconds, "entries/s", against: "raw reduce loop")
        add("runtime in memory, actions", Double(actions) / seconds, "actions/s")
    }

    /// Whether senders on the cooperative pool starve other tasks: a 200 ms sleep, alone and while 50 tasks
    /// send 200 actions each to one reactor (the measurement the runtime issue started from).
    private func starvation() async {
        func sleep() async -> Double {
            let start = ContinuousClock.now
            try? await Task.sleep(for: .milliseconds(200))
            return (ContinuousClock.now - start).seconds * 1000
        }
        let alone = await sleep()
        add("a 200 ms Task.sleep, alone", alone, "ms")
        let reactor = BenchReactor()
        let loaded = await withTaskGroup(of: Double?.self) { group in
            group.addTask { await sleep() }
            for task in 0..<50 {
                group.addTask {
                    for index in 0..<200 { reactor.send(BenchReactor.action(task * 200 + index)) }
                    return nil
                }
            }
            var slept = 0.0
            for await result in group { if let result { slept = result } }
            return slept
        }
        add("the same sleep while 50 tasks × 200 sends run", loaded, "ms", against: "a 200 ms Task.sleep, alone")
    }

    // MARK: 2

    /// The workload recorded with `durability`. `codec` is the binary codec with the values' hand-written
    /// conformances (the default), or without them, for the figure through `Codable`.
    private func withLog(
        _ durability: Durability, name: String, policy: SnapshotPolicy, against: String, budget: Double? = nil,
        codec: BinaryLogCodec = BinaryLogCodec()
    ) throws {
        var configuration = EventLogConfiguration(durability: durability)
        configuration.snapshotPolicy = policy
        configuration.codec = codec
        let log = try EventLog.open(at: path("\(name.replacingOccurrences(of: ", ", with: "-")).reactorlog"), configuration: configuration)
        var sent = 0
        var residentSamples: [Int] = []
        let deadline = ContinuousClock.now + .seconds(budget ?? 1e9)
        let quarter = max(1, actions / 4)
        var nextSample = name == "grouped" ? quarter : Int.max
        // Attaching is timed on its own, as making the reactor is left out of the in-memory baseline: a one-time cost
        // (the schema's fingerprint, the stream's registration) is not a send's.
        let reactor = BenchReactor(bugAtMutation: bugAt)
        let attachSeconds = try Measure.seconds { _ = try reactor.attach(to: log, stream: "search") }
        let sendSeconds = Measure.seconds {
            // Sends in runs between the checks (a memory sample; the sync run's time budget, after each of its sends,
            // which wait for their commit), so that the loop around `send` is the in-memory baseline's: a clock read, a
            // string comparison and a division for every send were counted as the log's cost.
            while sent < actions {
                let end = min(actions, nextSample, budget == nil ? actions : sent + 1)
                while sent < end {
                    reactor.send(BenchReactor.action(sent))
                    sent += 1
                }
                if sent == nextSample {
                    residentSamples.append(Measure.privateResidentBytes)
                    nextSample += quarter
                }
                if budget != nil && ContinuousClock.now >= deadline { break }
            }
        }
        let flushSeconds = try Measure.seconds { try log.flush() }
        let entries = Double(try log.highestSequence())
        withExtendedLifetime(reactor) {}
        try log.close()
        add("runtime + log, \(name)", entries / (sendSeconds + flushSeconds), "entries/s", against: against)
        add("runtime + log, \(name), actions", Double(sent) / (sendSeconds + flushSeconds), "actions/s", against: "runtime in memory, actions")
        add("final flush, \(name)", flushSeconds * 1000, "ms")
        if name == "grouped" {
            add("attaching the reactor to the log, grouped", attachSeconds * 1000, "ms")
            add("actions sent, grouped", Double(sent), "actions")
            if let first = residentSamples.first, let last = residentSamples.last {
                add("private memory at 25% of the run", Double(first) / 1e6, "MB")
                add("private memory at 100% of the run", Double(last) / 1e6, "MB", against: "private memory at 25% of the run")
            }
        }
    }

    /// The reactors of the logging cost's rounds over many streams.
    static let manyStreams = 1_000

    /// The logged action rate ÷ the in-memory one in `grouped`, as the median of `rounds` rounds that each time the
    /// in-memory sends right before the logged ones: the single run above puts seconds and other figures between its
    /// two times, and on a shared host one such pair swings by a fifth from run to run. Each round is followed by one
    /// that sends the same actions to ``manyStreams`` reactors in turn, a stream each (a server with a reactor per
    /// session), so that the two medians face the same host. Beside them, the cores' round trip (``CoreRoundTrip``),
    /// which the host moves and the logged sends follow.
    private func loggingCost(rounds: Int) throws {
        var roundTrips: [Double] = []
        let measured = try (1...rounds).map { number in
            if let roundTrip = CoreRoundTrip.measure() { roundTrips.append(roundTrip) }
            let one = try LoggingRound.measure(actions: actions, path: path("round-\(number).reactorlog"), durability: .grouped)
            let many = try LoggingRound.measure(
                actions: actions, path: path("round-\(number)-streams.reactorlog"), durability: .grouped, streams: Self.manyStreams,
                besideBusyCore: false)
            return (one: one, many: many)
        }
        let rates = measured.compactMap(\.one.rate).sorted()
        let name = "logged ÷ in-memory rate, grouped"
        add("\(name), median of \(rounds) rounds", Measure.percentile(rates, 0.5), "×")
        add("\(name), lowest of \(rounds) rounds", rates.first ?? 0, "×")
        add("\(name), highest of \(rounds) rounds", rates.last ?? 0, "×")
        add("\(name), sends alone, median", Measure.percentile(measured.compactMap(\.one.sendsAlone), 0.5), "×")
        add("\(name), \(Self.manyStreams) streams, median of \(rounds) rounds",
            Measure.percentile(measured.compactMap(\.many.rate), 0.5), "×", against: "\(name), median of \(rounds) rounds")
        // What the host allows a writer busy through the sends: the in-memory sends beside a spinning core (not
        // measured on a single core), and the logged rate as a ratio to those.
        let busyCore = measured.compactMap(\.one.busyCoreRate)
        if !busyCore.isEmpty {
            add("in memory beside a busy core ÷ alone, median of \(rounds) rounds", Measure.percentile(busyCore, 0.5), "×")
            add("logged ÷ in memory beside a busy core, median of \(rounds) rounds",
                Measure.percentile(measured.compactMap(\.one.rateBesideBusyCore), 0.5), "×")
        }
        // What the host does to the hand-off between the cores: the rate above falls as this rises (not measured on
        // a single core).
        if !roundTrips.isEmpty {
            add("core-to-core round trip before each round, median", Measure.percentile(roundTrips, 0.5), "ns")
        }
    }

    // MARK: 4

    private func peers() throws {
        let jsonl = try JSONLinesAppender(path: path("peer.jsonl"))
        let jsonlSeconds = Measure.seconds {
            let reactor = BenchReactor(tap: { tapped in
                switch tapped {
                case .action(let action): jsonl.append(kind: "action", action)
                case .mutation(let mutation): jsonl.append(kind: "mutation", mutation)
                }
            }, bugAtMutation: bugAt)
            for index in 0..<actions { reactor.send(BenchReactor.action(index)) }
            jsonl.flush()
        }
        let ours = report.value("runtime + log, grouped") ?? 0
        let entries = Double(actions * 3)
        let jsonlRate = add("JSON-lines appender", entries / jsonlSeconds, "entries/s")
        add("ReactorLog grouped ÷ JSON-lines", ours / jsonlRate, "×")
        add("ReactorLog grouped through Codable ÷ JSON-lines", (report.value("runtime + log, grouped, through Codable") ?? 0) / jsonlRate, "×")

        let sqlite = try SQLiteAppender(path: path("peer.sqlite"))
        let sqliteSeconds = Measure.seconds {
            let reactor = BenchReactor(tap: { tapped in
                switch tapped {
                case .action(let action): sqlite.append(kind: 0, action)
                case .mutation(let mutation): sqlite.append(kind: 1, mutation)
                }
            }, bugAtMutation: bugAt)
            for index in 0..<actions { reactor.send(BenchReactor.action(index)) }
            sqlite.flush()
        }
        let sqliteRate = add("SQLite via GRDB (WAL, synchronous=FULL)", entries / sqliteSeconds, "entries/s")
        add("ReactorLog grouped ÷ SQLite", ours / sqliteRate, "×")
        add("ReactorLog grouped through Codable ÷ SQLite", (report.value("runtime + log, grouped, through Codable") ?? 0) / sqliteRate, "×")
    }

    // MARK: 5

    private func replay() throws {
        // The read ceiling: a raw cursor over every record, no decoding. A block of entries (format version 7,
        // docs/FORMAT.md) counts the entries its header gives.
        var scanned = 0
        let scanSeconds = try Measure.seconds {
            var options = EnvironmentOptions()
            options.readOnly = true
            let env = try Environment(path: path("grouped.reactorlog"), options: options)
            let db = try env.openDatabase("entries")
            try env.read { txn in
                try txn.withCursor(db) { cursor in
                    var item = try cursor.first()
                    while let current = item {
                        let value = current.value
                        scanned += value.count > 6 && value[4] == 0xB7 ? Int(value[5]) | Int(value[6]) << 8 : 1
                        item = try cursor.next()
                    }
                }
            }
        }
        add("LMDB cursor scan (read ceiling)", Double(scanned) / scanSeconds, "entries/s")

        let log = try EventLog.openReadOnly(at: path("grouped.reactorlog"))
        let reactor = BenchReactor(bugAtMutation: bugAt)
        var mutations = 0
        let replaySeconds = try Measure.seconds { mutations = try Replay.replay(log, with: reactor) }
        add("replay: decode + reduce every mutation", Double(mutations) / replaySeconds, "mutations/s", against: "LMDB cursor scan (read ceiling)")
        // One stream among many: the same actions sent to ``manyStreams`` reactors in turn, a stream each, and every
        // stream replayed in turn. Each of a stream's entries then lies in a block of other streams' entries.
        let many = try EventLog.open(at: path("streams.reactorlog"))
        let senders = (0..<Self.manyStreams).map { _ in BenchReactor() }
        try LoggingRound.attach(senders, to: many)
        LoggingRound.send(0..<actions, to: senders)
        try many.flush()
        withExtendedLifetime(senders) {}
        try many.close()
        let manyLog = try EventLog.openReadOnly(at: path("streams.reactorlog"))
        let plain = BenchReactor()
        var manyMutations = 0
        let manySeconds = try Measure.seconds {
            for index in 0..<Self.manyStreams {
                let stream = LoggingRound.streamName(index, of: Self.manyStreams)
                manyMutations += try Replay.replay(manyLog, stream: stream, with: plain)
            }
        }
        add("replay: every stream of \(Self.manyStreams), one after another", Double(manyMutations) / manySeconds, "mutations/s",
            against: "replay: decode + reduce every mutation")

        let viaCodable = BinaryLogCodec(directCoding: false)
        let codableSeconds = try Measure.seconds {
            var state = reactor.initialState
            try log.forEachEntry(EntryQuery(stream: "search", kinds: [.mutation])) { entry in
                state = reactor.reduce(state: state, mutation: try viaCodable.decode(BenchReactor.Mutation.self, from: entry.payload))
            }
        }
        add("replay through Codable", Double(mutations) / codableSeconds, "mutations/s", against: "replay: decode + reduce every mutation")

        let queue = try DatabaseQueue(path: path("peer.sqlite"))
        var sqliteMutations = 0
        let sqliteSeconds = try Measure.seconds {
            var state = reactor.initialState
            let decoder = JSONDecoder()
            try queue.read { db in
                let rows = try Row.fetchCursor(db, sql: "SELECT payload FROM entries WHERE kind = 1 ORDER BY sequence")
                while let row = try rows.next() {
                    let payload: Data = row[0]
                    state = reactor.reduce(state: state, mutation: try decoder.decode(BenchReactor.Mutation.self, from: payload))
                    sqliteMutations += 1
                }
            }
        }
        let sqliteRate = add("replay from SQLite via GRDB", Double(sqliteMutations) / sqliteSeconds, "mutations/s")
        add("ReactorLog replay ÷ SQLite replay", (Double(mutations) / replaySeconds) / sqliteRate, "×")
    }


    /// `reactorlog export` of the whole grouped log to a JSON-lines file, as the command line runs it.
    private func export() async {
        let entries = (try? EventLog.openReadOnly(at: path("grouped.reactorlog")).highestSequence()) ?? 0
        let start = ContinuousClock.now
        await ReactorLogInspector.main(name: "reactorlog", reactors: [], arguments: ["export", path("grouped.reactorlog"), "--output", path("export.jsonl")])
        add("export to JSON lines (reactorlog export)", Double(entries) / (ContinuousClock.now - start).seconds, "entries/s", against: "LMDB cursor scan (read ceiling)")
    }

    // MARK: 6

    private func timeTravel(_ name: String, policy: String) throws {
        let log = try EventLog.openReadOnly(at: path("\(name).reactorlog"))
        let machine = try TimeMachine(log: log, stream: "search", replayer: ReactorReplayer { BenchReactor(bugAtMutation: bugAt) })
        let highest = try log.highestSequence()
        var generator = SplitMix(seed: 42)
        var samples: [Double] = []
        for _ in 0..<1000 {
            let step = UInt64.random(in: 1...highest, using: &generator)
            samples.append(try Measure.seconds { _ = try machine.state(at: step) } * 1000)
        }
        add("state at a random step, p50, \(policy)", Measure.percentile(samples, 0.5), "ms")
        add("state at a random step, p99, \(policy)", Measure.percentile(samples, 0.99), "ms")
    }

    // MARK: 7

    private func bisect() throws {
        let log = try EventLog.openReadOnly(at: path("grouped.reactorlog"))
        let machine = try TimeMachine(log: log, stream: "search", replayer: ReactorReplayer { BenchReactor(bugAtMutation: bugAt) })
        var result: BisectResult?
        let seconds = try Measure.seconds {
            result = try machine.bisect { state, _ in state.corrupted ? .bad : .good }
        }
        add("bisect over \(try log.highestSequence()) entries", seconds * 1000, "ms")
        add("bisect: states rebuilt", Double(result?.reconstructions ?? 0), "states")
        // Blame walks every step of its range (the state after each mutation, as JSON): timed over the last 1M
        // mutations, the target's own unit, or the whole stream when it has fewer. (Runs before 2026-11-26 timed the
        // last 200,000 entries, 138k mutations, where the call's fixed costs, the second core's thread and its
        // allocator first touched, weighed seven times as much per mutation.)
        let steps = try log.sequences(stream: "search", kinds: [.mutation])
        let mutations = min(steps.count, 1_000_000)
        let start = steps.isEmpty ? 1 : steps[steps.count - mutations]
        let end = steps.last ?? 1
        let blameSeconds = try Measure.seconds {
            _ = try machine.blame(try StatePath(parsing: "nextPage"), from: start, through: end)
        }
        add("blame over the last \(mutations) mutations", blameSeconds * 1000, "ms")
        add("blame: mutations walked per second", Double(mutations) / blameSeconds, "mutations/s", against: "replay: decode + reduce every mutation")
    }

    // MARK: 8

    private func recovery() throws {
        let log = try EventLog.open(at: path("grouped.reactorlog"))
        var state: BenchReactor.State?
        let seconds = try Measure.seconds {
            let reactor = BenchReactor(bugAtMutation: bugAt)
            try reactor.attach(to: log, stream: "search")
            state = reactor.currentState
        }
        add("reopen a reactor on \(state?.mutations ?? 0) mutations (clean close)", seconds * 1000, "ms")
        try log.close()
    }

    // MARK: 9

    private func latency() throws {
        let count = min(100_000, actions)
        func measure(_ reactor: BenchReactor) -> [Double] {
            var samples: [Double] = []
            samples.reserveCapacity(count)
            let seen = Mutex(0)
            let observation = reactor.observe { _ in seen.withLock { $0 += 1 } }
            for index in 0..<count {
                let start = ContinuousClock.now
                reactor.send(BenchReactor.action(index))
                samples.append((ContinuousClock.now - start).seconds * 1e6)
            }
            observation.cancel()
            return samples
        }
        let memory = measure(BenchReactor())
        add("p50 in memory", Measure.percentile(memory, 0.5), "µs")
        add("p99 in memory", Measure.percentile(memory, 0.99), "µs")
        let log = try EventLog.open(at: path("latency.reactorlog"))
        let logged = BenchReactor()
        try logged.attach(to: log, stream: "search")
        let withLog = measure(logged)
        add("p50 with the log, grouped", Measure.percentile(withLog, 0.5), "µs", against: "p50 in memory")
        add("p99 with the log, grouped", Measure.percentile(withLog, 0.99), "µs", against: "p99 in memory")
        add("p99.9 with the log, grouped", Measure.percentile(withLog, 0.999), "µs")
        try log.flush()
        // Retention at work the whole time: 100,000 sends make about 26 MB of entries for a 4 MiB budget.
        let budget = 4 << 20
        var configuration = EventLogConfiguration()
        configuration.retention = RetentionPolicy(maxBytes: budget)
        let small = try EventLog.open(at: path("retained.reactorlog"), configuration: configuration)
        let kept = BenchReactor()
        try kept.attach(to: small, stream: "search")
        let withRetention = measure(kept)
        add("p50 with a 4 MiB retention budget", Measure.percentile(withRetention, 0.5), "µs", against: "p50 with the log, grouped")
        add("p99 with a 4 MiB retention budget", Measure.percentile(withRetention, 0.99), "µs", against: "p99 with the log, grouped")
        add("p99.9 with a 4 MiB retention budget", Measure.percentile(withRetention, 0.999), "µs", against: "p99.9 with the log, grouped")
        try small.flush()
        add("retained data file ÷ its budget", Double(small.sizeOnDisk) / Double(budget), "×")
    }

    // MARK: 10

    private func storage() throws {
        let log = try EventLog.openReadOnly(at: path("grouped.reactorlog"))
        let entries = Double(try log.highestSequence())
        // What each entry holds, as stored (binary) and as the JSON codec would have stored it.
        var stored = 0, json = 0
        try log.forEachEntry { entry in
            stored += entry.caseName.count + entry.payload.count
            json += entry.caseName.count + ((try? entry.codec.json(Data(entry.payload)))??.count ?? entry.payload.count)
        }
        add("binary payload and case name per entry", Double(stored) / entries, "bytes")
        add("JSON payload and case name per entry", Double(json) / entries, "bytes")
        add("disk per entry (data file ÷ entries)", Double(log.sizeOnDisk) / entries, "bytes", against: "JSON payload and case name per entry")
        add("peak resident memory of the whole run", Double(Measure.peakResidentBytes) / 1e6, "MB")
    }
}

/// A deterministic random number generator, so every run probes the same steps.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

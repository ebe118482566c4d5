import EventLogKit
import Foundation
import ReactorLogPersistence

/// One round of the logging-cost measurement: the workload sent to a reactor in memory, then to a new log, so that
/// the two times are taken a fraction of a second apart and a slow phase of the host falls on both or on neither.
struct LoggingRound {
    /// Seconds for the sends in memory, or nil when the round was logged only.
    let memory: Double?
    /// Seconds for the same sends in memory with the other core kept busy (``BusyCore``), or nil when the round was
    /// logged only or had one usable processor.
    let memoryBesideBusyCore: Double?
    /// Seconds for the logged sends, the reactor attached before the timing.
    let send: Double
    /// Seconds for the final flush after the logged sends.
    let flush: Double

    /// The logged action rate ÷ the in-memory one, the final flush counted (as the full run's single figure does).
    var rate: Double? { memory.map { $0 / (send + flush) } }
    /// The same ratio for the sends alone: what a sync at the end costs (in `nosync`, everything written) left out.
    var sendsAlone: Double? { memory.map { $0 / send } }
    /// The in-memory rate beside a busy core ÷ the rate alone: the logged rate a writer that keeps the other core busy
    /// through the sends allows at best, on this host, whatever the sends themselves cost.
    var busyCoreRate: Double? {
        guard let memory, let memoryBesideBusyCore else { return nil }
        return memory / memoryBesideBusyCore
    }
    /// The logged rate ÷ the in-memory rate beside a busy core: what the logging costs beyond what the host takes from
    /// a sender beside a busy core, the final flush counted.
    var rateBesideBusyCore: Double? { memoryBesideBusyCore.map { $0 / (send + flush) } }

    /// Measures a round of `actions` sends, to `streams` reactors in turn (a server with a reactor per session:
    /// in memory as well, so that what many live reactors cost the host's caches falls on both times); the log is
    /// written to `path`, which must not exist, and removed afterwards. With `besideBusyCore`, the in-memory sends are
    /// timed a second time beside a busy core (``memoryBesideBusyCore``).
    static func measure(
        actions: Int, path: String, durability: Durability, codec: BinaryLogCodec = BinaryLogCodec(),
        loggedOnly: Bool = false, streams: Int = 1, besideBusyCore timesBusyCore: Bool = true
    ) throws -> LoggingRound {
        // The in-memory reactors are made before their timing, as the logged ones are attached before their own, and
        // afresh for each timing.
        func inMemory() -> Double {
            let reactors = (0..<streams).map { _ in BenchReactor() }
            defer { withExtendedLifetime(reactors) {} }
            return Measure.seconds { Self.send(0..<actions, to: reactors) }
        }
        var memory: Double?, memoryBesideBusyCore: Double?
        if !loggedOnly {
            memory = inMemory()
            if timesBusyCore { memoryBesideBusyCore = BusyCore.beside(inMemory) }
        }
        var configuration = EventLogConfiguration(durability: durability)
        configuration.codec = codec
        let log = try EventLog.open(at: path, configuration: configuration)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reactors = (0..<streams).map { _ in BenchReactor() }
        try attach(reactors, to: log)
        let send = Measure.seconds { Self.send(0..<actions, to: reactors) }
        let flush = try Measure.seconds { try log.flush() }
        withExtendedLifetime(reactors) {}
        try log.close()
        return LoggingRound(memory: memory, memoryBesideBusyCore: memoryBesideBusyCore, send: send, flush: flush)
    }

    /// The stream of the `index`-th of `count` reactors: "search" for one, else "search-0", "search-1", …, the names
    /// `replay --stream` takes.
    static func streamName(_ index: Int, of count: Int) -> String {
        count == 1 ? "search" : "search-\(index)"
    }

    /// Attaches `reactors` to `log`, each to its stream (``streamName(_:of:)``).
    static func attach(_ reactors: [BenchReactor], to log: EventLog) throws {
        for (index, reactor) in reactors.enumerated() {
            try reactor.attach(to: log, stream: streamName(index, of: reactors.count))
        }
    }

    /// Sends the workload's actions numbered `indices` to `reactors` in turn; to one reactor, by the loop the
    /// figures before `--streams` were measured with, which indexes no array.
    static func send(_ indices: Range<Int>, to reactors: [BenchReactor]) {
        if reactors.count == 1 {
            let reactor = reactors[0]
            for index in indices { reactor.send(BenchReactor.action(index)) }
        } else {
            for index in indices { reactors[index % reactors.count].send(BenchReactor.action(index)) }
        }
    }
}

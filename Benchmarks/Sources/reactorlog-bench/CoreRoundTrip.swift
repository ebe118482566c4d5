import Foundation
import Synchronization

/// How long a cache line takes to go from one core to another and back: two threads hand a counter back and forth.
///
/// A logged send hands its entries to the writer thread on the other core, so its cost follows this figure; a send
/// in memory does not. On a shared virtual machine it moves with the host (90 ns in some minutes here, 400–530 ns
/// in others), which is why the benchmark prints it beside the logging cost.
enum CoreRoundTrip {
    /// The median nanoseconds of a round trip over `batches` batches of `trips`, or `nil` on one usable processor, where
    /// the two threads would take turns on it instead of handing the line over.
    static func measure(batches: Int = 5, trips: Int = 20_000) -> Double? {
        guard usableProcessors > 1 else { return nil }
        let counter = Counter()
        // The responder answers each odd number with the next even one, until it reads `stop`.
        let responder = Thread {
            while true {
                let value = counter.value.load(ordering: .acquiring)
                if value == Counter.stop { return }
                if value & 1 == 1 { counter.value.store(value + 1, ordering: .releasing) }
            }
        }
        responder.start()
        defer { counter.value.store(Counter.stop, ordering: .releasing) }
        var next = 1
        func trip() {
            counter.value.store(next, ordering: .releasing)
            while counter.value.load(ordering: .acquiring) != next + 1 {}
            next += 2
        }
        for _ in 0..<1_000 { trip() }   // the responder started and both lines warm
        let samples = (0..<batches).map { _ in
            Measure.seconds { for _ in 0..<trips { trip() } } / Double(trips) * 1e9
        }
        return Measure.percentile(samples, 0.5)
    }

    /// The processors this process may run on: its affinity mask (`taskset`, a container's cpuset), which may be
    /// fewer than the machine's. On one, each trip would wait for the scheduler to switch threads (minutes).
    static var usableProcessors: Int {
        // Linux lists the mask in hexadecimal, in groups of 32 bits: `Cpus_allowed:\t00000000,00000003`.
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) {
            let digits = line.dropFirst("Cpus_allowed:".count).filter(\.isHexDigit)
            let count = digits.reduce(0) { $0 + (Int(String($1), radix: 16) ?? 0).nonzeroBitCount }
            if count > 0 { return count }
        }
        return ProcessInfo.processInfo.activeProcessorCount
    }

    private final class Counter: Sendable {
        static let stop = -1
        let value = Atomic<Int>(0)
    }
}

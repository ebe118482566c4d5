import Foundation
import Synchronization

/// Another core kept busy while something is timed: a thread that spins on a flag of its own and touches nothing
/// else, so it shares no memory with the timed work.
///
/// A logged round's writer thread works on the other core through the sends. On a virtual machine whose two cores
/// the host does not give to this guest alone (hyperthreads of one physical core, or cores other guests share), any
/// work there slows this core, whatever it touches: the in-memory sends timed beside this spinner are what a logger
/// whose writer is busy all round could reach at best, however little its sends did and shared with the writer.
enum BusyCore {
    /// Runs `body` while another thread spins, and returns what it returns; `nil` on one usable processor
    /// (``CoreRoundTrip/usableProcessors``), where the spinner would take turns on it with `body` instead.
    static func beside<Result>(_ body: () throws -> Result) rethrows -> Result? {
        guard CoreRoundTrip.usableProcessors > 1 else { return nil }
        let flag = Flag()
        let spinner = Thread {
            flag.value.store(Flag.spinning, ordering: .releasing)
            while flag.value.load(ordering: .relaxed) != Flag.stop {}
        }
        spinner.start()
        // Timed only once the spinner runs, so that none of `body` is timed beside an idle core.
        while flag.value.load(ordering: .acquiring) != Flag.spinning {}
        defer { flag.value.store(Flag.stop, ordering: .releasing) }
        return try body()
    }

    private final class Flag: Sendable {
        static let spinning = 1, stop = 2
        let value = Atomic<Int>(0)
    }
}

import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a command does when the user interrupts it (SIGINT, Ctrl-C) or it is terminated (SIGTERM):
/// `cleanUp` runs, its sentence is printed as one line on standard error (``printDiagnostic``), and the process exits with
/// 128 + the signal's number (130 or 143), as shells expect. Keep the returned sources until the command ends.
enum Interrupts {
    /// A queue of its own: a serial queue gets a thread even when every thread of the global queues is busy or
    /// blocked (a command waiting for its judge), so an interrupt is handled at once, not after the wait.
    private static let queue = DispatchQueue(label: "reactorlog.interrupts")

    static func handle(_ cleanUp: @escaping @Sendable (_ event: String) -> String) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                // Made visible as every other line on standard error: the sentence may name a path with control characters.
                printDiagnostic(cleanUp(number == SIGINT ? "interrupted" : "terminated"))
                exit(128 + number)
            }
            source.resume()
            return source
        }
    }
}

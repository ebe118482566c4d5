// Tools/scripts/tsan.sh checks its own instrument with this before the suite: threads that only touch a
// Mutex-guarded counter must give no report (the preloaded hook at work), and with `race`, a counter they also bump
// unguarded must give one (the sanitizer still sees a race).
import Foundation
import Synchronization

final class Counters: @unchecked Sendable {
    let guarded = Mutex(0)
    var unguarded = 0
}

let counters = Counters()
let racing = CommandLine.arguments.dropFirst().first == "race"
let threads = 8
let rounds = 20_000
let done = DispatchGroup()
for _ in 0..<threads {
    DispatchQueue.global().async(group: done) {
        for _ in 0..<rounds {
            counters.guarded.withLock { $0 += 1 }
            if racing { counters.unguarded += 1 }
        }
    }
}
done.wait()
let total = counters.guarded.withLock { $0 }
if total != threads * rounds {
    FileHandle.standardError.write(Data("tsan-check: the guarded counter is \(total), not \(threads * rounds)\n".utf8))
    exit(1)
}

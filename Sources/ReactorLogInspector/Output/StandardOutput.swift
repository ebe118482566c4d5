import Foundation
import Synchronization
import SystemPackage

/// The inspector's standard output, the one place its bytes are written from. To a terminal each write goes out at
/// once; into a pipe or a file, bytes are gathered and written 64 KiB at a time, as C's standard I/O does (a write
/// for each line was a tenth of `reactorlog log | grep …` over a large log). What is gathered is written when the
/// command ends, before the inspector writes to standard error (so that the two stay in order where they meet; an
/// interrupt's line does not wait for a write in progress), before a command waits for more entries (`tail
/// --follow`) and before it starts a judge. A failed write (a full disk) is an error, never lost output with exit 0;
/// a closed pipe ends the process by SIGPIPE, as it ends `cat`.
enum StandardOutput {
    private static let isTerminal = isatty(STDOUT_FILENO) == 1
    private static let blockSize = 1 << 16
    /// Bytes not yet written; kept when a write fails, so that the failure is reported where the command ends.
    private static let pending = Mutex<[UInt8]>([])

    /// Writes `text` as it is (callers make it terminal-safe).
    static func write(_ text: String) throws {
        try append { $0.append(contentsOf: text.utf8) }
    }

    /// Writes the bytes `body` appends, as they are (callers make them terminal-safe).
    static func append(_ body: (inout [UInt8]) -> Void) throws {
        let full = pending.withLock { pending in
            body(&pending)
            return isTerminal || pending.count >= blockSize
        }
        if full { try flush() }
    }

    /// Writes everything gathered.
    static func flush() throws {
        try pending.withLock { (pending) throws(InspectorFailure) in try write(&pending) }
    }

    /// Writes everything gathered unless another thread is writing it (an interrupt's handler must not wait for a
    /// write to a pipe that nobody reads); a failure is left for the command to report.
    static func flushIfIdle() {
        _ = pending.withLockIfAvailable { pending in try? write(&pending) }
    }

    private static func write(_ pending: inout [UInt8]) throws(InspectorFailure) {
        guard !pending.isEmpty else { return }
        do {
            _ = try pending.withUnsafeBytes { try FileDescriptor.standardOutput.writeAll($0) }
        } catch {
            throw InspectorFailure.writing(error)
        }
        pending.removeAll(keepingCapacity: true)
    }
}

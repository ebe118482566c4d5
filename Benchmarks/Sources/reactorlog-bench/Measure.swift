import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Timing and memory helpers.
enum Measure {
    /// Seconds taken by `body`.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        return (ContinuousClock.now - start).seconds
    }

    /// Seconds taken by `body`.
    static func seconds(_ body: () async throws -> Void) async rethrows -> Double {
        let start = ContinuousClock.now
        try await body()
        return (ContinuousClock.now - start).seconds
    }

    /// The process's peak resident memory in bytes.
    static var peakResidentBytes: Int {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_maxrss * 1024
    }

    /// The process's private resident memory in bytes: resident minus file-backed shared pages (from
    /// /proc/self/statm). LMDB's memory map makes the data file's pages resident as they are touched; they are
    /// page cache, reclaimable, and not the writer's memory.
    static var privateResidentBytes: Int {
        residentPages.map { ($0.resident - $0.shared) * pageSize } ?? 0
    }

    /// The process's file-backed resident memory in bytes (from /proc/self/statm): the log's mapped pages, and the
    /// binary's.
    static var sharedResidentBytes: Int {
        residentPages.map { $0.shared * pageSize } ?? 0
    }

    /// The resident and the shared (file-backed) pages of /proc/self/statm.
    private static var residentPages: (resident: Int, shared: Int)? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ").compactMap { Int($0) }
        guard fields.count >= 3 else { return nil }
        return (fields[1], fields[2])
    }

    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// The bytes this process has caused to be written to storage so far (`write_bytes` of /proc/self/io: what
    /// reached the disk, the log's pages rewritten by each commit included), or `nil` where the kernel does not say.
    static var storageBytesWritten: Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return nil }
        let line = text.split(separator: "\n").first { $0.hasPrefix("write_bytes:") }
        return line.flatMap { Int($0.dropFirst("write_bytes:".count).trimmingCharacters(in: .whitespaces)) }
    }

    /// The `fraction` percentile of `samples` (0.5 for the median, 0.99 for p99).
    static func percentile(_ samples: [Double], _ fraction: Double) -> Double {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    /// "median M, lowest L, highest H" of `samples`, each shown by `show`: how a probe that repeats one figure reports it.
    static func spread(_ samples: [Double], _ show: (Double) -> String) -> String {
        "median \(show(percentile(samples, 0.5))), lowest \(show(samples.min() ?? 0)), highest \(show(samples.max() ?? 0))"
    }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
